"""`highway-referee compare dice FOLDER... --json OUT [--readers classical,combo,crops]`: the same
scores as `eval dice` (recall, precision, value accuracy, n_labelled, n_detected; detections matched to
labelled dice as each folder's `box_convention` says, see vision/dice/evaluate.py) for
several readers side by side on the same photos, plus frames per second on one thread.

Photos any compared model trained on are left out for every reader (so all are scored on the same
held-out photos). `--renders N` adds a freshly rendered labelled folder (datasets/dice, its own seed).
`--markdown FILE` writes the table that docs/models.md carries (between its compare-dice markers)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from referee_app.cli import CliError, CommandTree

READERS = ("classical", "learned", "combo", "combo-tiled", "crops", "crops-any-scale", "crops-tiled")


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("folders", nargs="*", type=Path, metavar="FOLDER", help="folders with labels.json")
    p.add_argument("--json", type=Path, required=True, help="write the side-by-side report here")
    p.add_argument("--readers", default="classical,combo,crops",
                   help=f"comma-separated, from {', '.join(READERS)} (default classical,combo,crops)")
    p.add_argument("--renders", type=int, default=0, metavar="N", help="also score N fresh rendered scenes")
    p.add_argument("--render-seed", type=int, default=77, help="seed of those renders (not a training seed)")
    p.add_argument("--work", type=Path, default=Path("runs/compare"), help="where the renders are written")
    p.add_argument("--include-training", action="store_true", help="also score photos a model trained on")
    p.add_argument("--threads", type=int, default=1, help="OpenCV threads while timing (default 1: one core)")
    p.add_argument("--markdown", type=Path, help="also write the comparison as a Markdown table here")
    p.add_argument("--value-model", type=Path, help="six-class ONNX for the 'learned' reader (default: "
                   "vision/learned/models/dice_value_n320.onnx; not shipped, see docs/models.md)")


def make_reader(name: str, value_model: Path | None = None):  # noqa: ANN201 - image -> Detections
    from vision.learned.reader import MODELS, LearnedDiceReader

    if name == "classical":
        from vision.dice.reader import DiceReader

        return DiceReader().read
    if name == "learned":
        path = value_model or MODELS / "dice_value_n320.onnx"
        if not path.is_file():
            raise CliError(f"the 'learned' reader needs a six-class model: {path} does not exist (train one "
                           "with `highway-referee train dice --scheme value ... --export PATH`, pass "
                           "--value-model PATH)")
        return LearnedDiceReader(path, mode="learned").read
    if name == "combo":
        return LearnedDiceReader(MODELS / "dice_die_n320.onnx", mode="combo").read
    if name == "combo-tiled":
        return LearnedDiceReader(MODELS / "dice_die_n320.onnx", mode="combo", tile=640).read
    if name == "crops":
        return LearnedDiceReader(MODELS / "dice_die_n320.onnx", mode="crops").read
    if name == "crops-any-scale":  # re-read at the dice's trained size when they are far from it
        return LearnedDiceReader(MODELS / "dice_die_n320.onnx", mode="crops", any_scale=True).read
    if name == "crops-tiled":
        return LearnedDiceReader(MODELS / "dice_die_n320.onnx", mode="crops", tile=640).read
    raise CliError(f"unknown reader {name!r}; choose from {', '.join(READERS)}")


def trained_photos(names: list[str]) -> dict[str, set[str]]:
    """Folder name -> photos that the classical models or the shipped ONNX models trained on."""
    from vision.dice.evaluate import trained_photos as from_cards

    return from_cards()


KEYS = ("n_images", "n_labelled", "n_detected", "recall", "precision", "value_accuracy", "end_to_end",
        "ms_per_image")


def _run(args: argparse.Namespace) -> int:
    import cv2

    from vision.dice.evaluate import box_convention, evaluate, load
    from vision.types import VisionError

    names = [n.strip() for n in args.readers.split(",") if n.strip()]
    if not names:
        raise CliError("--readers is empty")
    if args.threads < 1:
        raise CliError(f"--threads must be at least 1, got {args.threads}")
    folders = list(args.folders)
    if args.renders:
        folders.append(_renders(args.work / f"renders_{args.render_seed}", args.renders, args.render_seed))
    if not folders:
        raise CliError("give at least one FOLDER or --renders N")
    try:
        readers = {n: make_reader(n, args.value_model) for n in names}
    except VisionError as exc:
        raise CliError(str(exc)) from exc
    skip_by = {} if args.include_training else trained_photos(names)
    cv2.setNumThreads(args.threads)
    report: dict = {"readers": names, "threads": args.threads, "folders": []}
    for folder in folders:
        try:
            labels = load(folder)
            box_convention(labels.meta)
        except VisionError as exc:
            raise CliError(f"{folder}: {exc}") from exc
        skip = skip_by.get(folder.resolve().name, set())
        n_skip = len(skip & {i.image for i in labels.items})
        entry = {"folder": str(folder), "box_convention": box_convention(labels.meta),
                 "skipped_training_photos": n_skip, "results": {}}
        for n, read in readers.items():
            r = evaluate(labels, read, skip=skip)
            row = {k: r[k] for k in KEYS}
            row["fps"] = round(1000 / r["ms_per_image"], 1) if r["ms_per_image"] else None
            entry["results"][n] = row
            print(_line(folder.name, n, row))
        report["folders"].append(entry)
    try:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")
        if args.markdown:
            args.markdown.parent.mkdir(parents=True, exist_ok=True)
            args.markdown.write_text(splice_table(args.markdown, markdown_table(report)), encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot write the report: {exc}", 1) from exc
    print(f"wrote {args.json}" + (f" and {args.markdown}" if args.markdown else ""))
    return 0


def _renders(out: Path, n: int, seed: int) -> Path:
    from datasets.dice import write_dataset

    lab = out / "labels.json"
    if not lab.is_file() or len(json.loads(lab.read_text(encoding="utf-8"))["items"]) != n:
        write_dataset(out, n, seed)
    return out


def _pct(v: float | None) -> str:
    return "n/a" if v is None else f"{100 * v:.1f} %"


def _line(folder: str, name: str, row: dict) -> str:
    return (f"{folder:>24} {name:>12}: recall {_pct(row['recall'])}  precision {_pct(row['precision'])}  "
            f"values {_pct(row['value_accuracy'])}  ({row['n_detected']} found / {row['n_labelled']} "
            f"labelled, {row['fps']} fps)")


def markdown_table(report: dict) -> str:
    lines = ["| photos | reader | images | dice | found | recall | precision | value accuracy | end to end | "
             "ms / image | fps |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for entry in report["folders"]:
        boxes = entry.get("box_convention", "whole_die")  # named where matched by centre, not IoU
        photos = Path(entry["folder"]).name + ("" if boxes == "whole_die" else f" ({boxes} boxes)")
        for name, r in entry["results"].items():
            lines.append(f"| {photos} | {name} | {r['n_images']} | "
                         f"{r['n_labelled']} | {r['n_detected']} | {_pct(r['recall'])} | "
                         f"{_pct(r['precision'])} | "
                         f"{_pct(r['value_accuracy'])} | {_pct(r['end_to_end'])} | {r['ms_per_image']} | "
                         f"{r['fps']} |")
    return "\n".join(lines) + f"\n\nOpenCV threads: {report['threads']}.\n"


BEGIN, END = "<!-- compare-dice:begin -->", "<!-- compare-dice:end -->"


def splice_table(path: Path, table: str) -> str:
    """The file's text with the part between the BEGIN/END markers replaced (docs keep their prose);
    a file without markers is replaced by the table alone."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    if BEGIN in old and END in old.split(BEGIN, 1)[1]:
        head, rest = old.split(BEGIN, 1)
        return f"{head}{BEGIN}\n{table}{END}{rest.split(END, 1)[1]}"
    return table


def register(cli: CommandTree) -> None:
    cli.group(("compare",), help="score several readers side by side on the same labelled photos")
    cli.add(("compare", "dice"), _setup, _run, help="classical vs learned vs combined dice readers")
