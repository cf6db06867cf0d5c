"""Held-out accuracy of dice model pairs (box detector + crop network) on the three real series, on
exactly the photos the split of issue 21 leaves out of training (datasets/dice/photo_split.series_split:
nell_byler_d6's last 78, the later half of every epanemu_d6 scene family and of every matteop65_d6
file-name series), whole frame (the default reader) and `--scales any`. The same photos for every
pair, so "before" (models trained on nell_byler's first 52 only) and "after" compare like for like.

    python bench/dice_heldout.py --pair before=OLD_DETECTOR.onnx,OLD_CROPS.onnx \\
        --pair after=NEW_DETECTOR.onnx,NEW_CROPS.onnx --json out/dice_heldout.json \\
        --markdown docs/vision/dice.md

Writes the table between `<!-- dice-heldout:begin -->` and `<!-- dice-heldout:end -->` of the
Markdown file. Precision is lenient or strict as `eval dice` chooses per set."""

from __future__ import annotations

import argparse
import json
import sys
import time
from fnmatch import fnmatch
from itertools import product
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from datasets.dice.photo_split import series_split  # noqa: E402
from vision.dice.evaluate import evaluate  # noqa: E402
from vision.learned.reader import LearnedDiceReader  # noqa: E402
from vision.realdata import LabelledSet, load_labels  # noqa: E402

SETS = ("nell_byler_d6", "epanemu_d6", "matteop65_d6")
KEYS = ("n_images", "n_labelled", "n_detected", "recall", "precision", "precision_strict", "value_accuracy",
        "end_to_end")
BEGIN, END = "<!-- dice-heldout:begin -->", "<!-- dice-heldout:end -->"


def left_out(labels: LabelledSet, blocks: str = "heldout", only: tuple[str, ...] = ()) -> set[str]:
    """The photos a run on `blocks` ("heldout" or "train") does not score: the other blocks, and with
    `only` (file-name patterns) every photo that matches none of them (a validation block carved out
    of the training blocks: `--blocks train --only 'dice_37[2-8].jpg'`)."""
    train = set(series_split(labels))
    names = {it.image for it in labels.items}
    if blocks == "heldout":
        skip = train
    elif blocks == "train":
        skip = names - train
    else:
        raise ValueError(f"blocks must be 'heldout' or 'train', got {blocks!r}")
    if only:
        skip |= {n for n in names if not any(fnmatch(n, pat) for pat in only)}
    return skip


def score(pairs: dict[str, tuple[Path, Path]], realdata: Path,
          scales_list: tuple[str, ...] = ("whole", "any"),
          ttas: tuple[int | None, ...] = (None,), blocks: str = "heldout",
          only: tuple[str, ...] = (), rechecks: tuple[bool, ...] = (False,)) -> list[dict]:
    """`ttas`: the crop reader's turned views per likely die to try (None: the reader's default); with
    more than one, each row's models label says how many. `blocks`: "train" scores the training blocks
    instead (where a change is chosen; the held-out ones are for reporting it). `only`: see `left_out`;
    a set with no photo left is not scored. `rechecks`: the reader's second reading of close calls on
    (True) or off (False, the default)."""
    rows = []
    for name in SETS:
        labels = load_labels(realdata / name)
        skip = left_out(labels, blocks, only)
        if len(skip) == len(labels.items):
            continue
        for (label, (detector, crops)), tta, scales, recheck in product(pairs.items(), ttas, scales_list,
                                                                        rechecks):
            reader = LearnedDiceReader(detector, mode="crops", crop_model=crops,
                                       any_scale=scales == "any", tta=tta, recheck=recheck)
            if len(ttas) > 1:
                label = f"{label}, {reader.tta} views"
            if len(rechecks) > 1:
                label = f"{label}, recheck {'on' if reader.recheck else 'off'}"
            c0 = time.process_time()
            r = evaluate(labels, reader.read, None, skip)
            cpu = (time.process_time() - c0) / max(r["n_images"], 1)
            rows.append({"set": name, "models": label, "scales": scales, "blocks": blocks,
                         "files": [str(detector), str(crops)],
                         "box_convention": r.get("box_convention", "whole_die"),
                         "cpu_ms_per_image": round(1000 * cpu, 1), **{k: r[k] for k in KEYS}})
            print(json.dumps(rows[-1]), flush=True)
    return rows


def markdown(rows: list[dict], pairs: dict[str, tuple[Path, Path]]) -> str:
    pct = lambda v: "n/a" if v is None else f"{100 * v:.1f} %"  # noqa: E731
    out = ["| set (held-out photos, dice) | models | scales | recall | value accuracy | end to end "
           "| precision | found | CPU ms / photo |", "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| {r['set']} ({r['n_images']}, {r['n_labelled']}) | {r['models']} | {r['scales']} | "
                   f"{pct(r['recall'])} | {pct(r['value_accuracy'])} | {pct(r['end_to_end'])} | "
                   f"{pct(r['precision'])} | {r['n_detected']} | {r['cpu_ms_per_image']} |")
    out += ["", "Models: " + "; ".join(f"{k} = `{d.name}` + `{c.name}`" for k, (d, c) in pairs.items())
            + ". CPU time of the process, one OpenCV thread, on a shared machine."]
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pair", action="append", required=True, metavar="LABEL=DETECTOR,CROPS")
    ap.add_argument("--realdata", type=Path, default=Path(__file__).resolve().parents[1] / ".." / "shared" /
                    "realdata")
    ap.add_argument("--scales", default="whole,any", help="which of whole,any to read at (default both)")
    ap.add_argument("--previous", type=Path, action="append", default=[], metavar="JSON",
                    help="rows of an earlier run (its --json) to put in the table too, before this run's")
    ap.add_argument("--tta", default="", metavar="N,N",
                    help="the crop reader's views per likely die to compare (default: the reader's own)")
    ap.add_argument("--blocks", choices=("heldout", "train"), default="heldout",
                    help="score the held-out blocks (default) or the training blocks (to choose on)")
    ap.add_argument("--only", action="append", default=[], metavar="PATTERN",
                    help="score only the photos matching these file-name patterns (within --blocks)")
    ap.add_argument("--recheck", default="", metavar="on,off",
                    help="score the reader with its second reading of close calls on, off or both "
                         "(default: off, as the reader)")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--markdown", type=Path)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    pairs: dict[str, tuple[Path, Path]] = {}
    for p in args.pair:
        label, _, files = p.partition("=")
        detector, _, crops = files.partition(",")
        pairs[label] = (Path(detector), Path(crops))
    ttas = tuple(int(t) for t in args.tta.split(",")) if args.tta else (None,)
    onoff = {"on": True, "off": False}
    rechecks = tuple(onoff[v] for v in args.recheck.split(",")) if args.recheck else (False,)
    rows = score(pairs, args.realdata, tuple(args.scales.split(",")), ttas, args.blocks, tuple(args.only),
                 rechecks)
    earlier = [r for p in args.previous for r in json.loads(p.read_text(encoding="utf-8"))]
    rows = sorted(earlier + rows, key=lambda r: SETS.index(r["set"]))  # stable: per set, in run order
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    named = {r["models"]: (Path(r["files"][0]), Path(r["files"][1])) for r in earlier if "files" in r}
    table = markdown(rows, named | pairs)
    print(table)
    if args.markdown:
        text = args.markdown.read_text(encoding="utf-8")
        if BEGIN in text and END in text:
            head, rest = text.split(BEGIN, 1)
            text = head + BEGIN + "\n" + table + "\n" + END + rest.split(END, 1)[1]
            args.markdown.write_text(text, encoding="utf-8")
        else:
            print(f"{args.markdown}: no {BEGIN} ... {END} markers; table not written", file=sys.stderr)


if __name__ == "__main__":
    main()
