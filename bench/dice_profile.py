"""Teach-your-set on the real dice series: per set, a profile is taught on the first 3 photos of one
block (scene family or capture series), then the crops reader is scored without and with it on the
photos of the set's OTHER blocks (photos the shipped models trained on are left out too); each
profile is also applied to the other sets, to measure that a profile of other dice does no harm.

`--ceiling` measures how far the method can go on the scored photos at all: a profile taught on every
other scored photo (tens of photos of those very blocks, not 3 of another), scored on the rest, with
the guard as shipped and with no guard.

    python bench/dice_profile.py [--realdata ../shared/realdata] [--json OUT] [--ceiling]

Numbers go to docs/vision/dice.md ("Teach your set"). Speed is CPU time (time.process_time)."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.dice.evaluate import evaluate, trained_photos  # noqa: E402
from vision.learned.reader import LearnedDiceReader  # noqa: E402
from vision.learned.teach import teach  # noqa: E402
from vision.realdata import LabelledImage, LabelledSet, load_labels  # noqa: E402

# the block each set is taught on (see blocks()): one with several values shown, as a player would roll
TEACH_BLOCK = {"nell_byler_d6": "IMG_20191208_112826", "epanemu_d6": "home scenes", "matteop65_d6": "valid_"}
SETS = tuple(TEACH_BLOCK)


def blocks(labels: LabelledSet) -> dict[str, list[LabelledImage]]:
    """Block name -> its photos in file-name order: epanemu's scene families, matteop65's file-name
    series, and nell_byler's capture bursts (a gap of over a minute between shots starts a new one)."""
    out: dict[str, list[LabelledImage]] = {}
    items = sorted(labels.items, key=lambda it: it.image)
    if all("scene" in it.extra for it in items):
        for it in items:
            out.setdefault(str(it.extra["scene"]).split(" (")[0].split(",")[0], []).append(it)
        return out
    stamp = re.compile(r"IMG_(\d{8})_(\d\d)(\d\d)(\d\d)")
    if all(stamp.match(it.image) for it in items):
        last, name = None, ""
        for it in items:
            m = stamp.match(it.image)
            assert m
            t = int(m[1]) * 86400 + int(m[2]) * 3600 + int(m[3]) * 60 + int(m[4])
            if last is None or t - last > 60:
                name = it.image[:-4]
            out.setdefault(name, []).append(it)
            last = t
        return out
    for it in items:
        out.setdefault(re.sub(r"\d+\.\w+$", "", it.image), []).append(it)
    return out


def score(labels: LabelledSet, read, skip: set[str]) -> dict:
    t = time.process_time()
    r = evaluate(labels, read, skip=skip)
    keys = ("n_images", "n_labelled", "recall", "precision", "value_accuracy", "end_to_end")
    return {**{k: r[k] for k in keys}, "cpu_s": round(time.process_time() - t, 1)}


def ceiling(labels: LabelledSet, held: set[str], default) -> dict:
    """Teach on every other scored photo (those with labelled dice), score the others: without, with
    the profile as taught, and with its guard off (near = -1: the correction reads every proposal)."""
    scored = [it for it in sorted(labels.items, key=lambda it: it.image) if it.image not in held]
    taught = [it for it in scored[0::2] if any(o.kind == "die" for o in it.objects)]
    skip = held | {it.image for it in scored[0::2]}
    t = time.process_time()
    profile = teach(labels, taught)
    out = {"ceiling: taught photos": len(taught), "ceiling: teach_cpu_s": round(time.process_time() - t, 1),
           "ceiling: without": score(labels, default, skip),
           "ceiling: with profile": score(labels, LearnedDiceReader(mode="crops", profile=profile), skip)}
    profile.near = -1.0
    out["ceiling: with profile, no guard"] = score(labels, LearnedDiceReader(mode="crops", profile=profile),
                                                   skip)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = Path(__file__).resolve().parents[1]
    ap.add_argument("--realdata", type=Path, default=here.parent / "shared" / "realdata",
                    help="the realdata folder (default: ../shared/realdata beside the checkout)")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--sets", nargs="+", default=list(SETS))
    ap.add_argument("--same-block-only", action="store_true",
                    help="only score the rest of the block taught on (quick)")
    ap.add_argument("--ceiling", action="store_true",
                    help="also teach on every other scored photo and score the rest (an upper bound)")
    args = ap.parse_args()
    trained = trained_photos()
    default = LearnedDiceReader(mode="crops").read
    data = {s: load_labels(args.realdata / s) for s in args.sets}
    profiles, held, results = {}, {}, {}
    for s, labels in data.items():
        bl = blocks(labels)
        name = next(k for k in bl if k.startswith(TEACH_BLOCK[s]))
        t = time.process_time()
        profiles[s] = teach(labels, bl[name][:3])
        # scored: the photos of the other blocks, less those the shipped models trained on
        held[s] = {it.image for it in bl[name]} | trained.get(s, set())
        results[s] = {"teach_block": name, "teach_photos": [it.image for it in bl[name][:3]],
                      "keep": profiles[s].keep,
                      "teach_cpu_s": round(time.process_time() - t, 2)}
    for s, labels in data.items():
        # the player's own use: later photos of the very block taught on (same table, light, dice)
        block = {it.image for it in blocks(labels)[results[s]["teach_block"]]}
        rest = ({it.image for it in labels.items if it.image not in block} | trained.get(s, set())
                | set(results[s]["teach_photos"]))
        results[s]["same block: without"] = score(labels, default, rest)
        results[s]["same block: with own"] = score(labels, LearnedDiceReader(mode="crops",
                                                                             profile=profiles[s]).read, rest)
        if args.same_block_only:
            print(json.dumps({s: results[s]}, indent=1, default=str), flush=True)
            continue
        results[s]["without"] = score(labels, default, held[s])
        for p, prof in profiles.items():
            read = LearnedDiceReader(mode="crops", profile=prof).read
            results[s]["with " + ("own" if p == s else p)] = score(labels, read, held[s])
        if args.ceiling:
            results[s].update(ceiling(labels, held[s], default))
        print(json.dumps({s: results[s]}, indent=1, default=str), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
