"""The die size a box detector was trained on, as vision/learned/scales.py needs it (TRAINED_PX: the
median die side at the detector's input; BAND: the 5-95 % range of those sides): every labelled die on
the real photos the detector's card lists (`train_photos`), each side scaled as the photo is shrunk to
the detector's input. Boxes of a `pips` set are first grown to whole dice as training grew them
(datasets/dice/pip_boxes.py). Renders are not counted (as for the first detector's band).

    python bench/dice_trained_size.py [vision/learned/models/dice_die_n320.json] [--realdata DIR]

Run it when the detector changes, and copy the "all" line into scales.py.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from datasets.dice.pip_boxes import grow_pip_box  # noqa: E402
from vision.learned.card_photos import photos_by_set  # noqa: E402


def sides_at_input(folder: Path, photos: set[str], input_px: int) -> np.ndarray:
    labels = json.loads((folder / "labels.json").read_text(encoding="utf-8"))
    grow = labels.get("box_convention", "whole_die") != "whole_die"
    out = []
    for it in labels["items"]:
        if it["image"] not in photos and Path(it["image"]).name not in photos:
            continue
        image = cv2.imread(str(folder / it["image"])) if grow else None
        scale = input_px / max(it["width"], it["height"])
        for o in it["objects"]:
            b = grow_pip_box(image, o["bbox"])[0] if grow else o["bbox"]
            out.append(max(b[2] - b[0], b[3] - b[1]) * scale)
    return np.array(out)


def line(name: str, s: np.ndarray) -> str:
    lo, hi = np.percentile(s, [5, 95])
    return f"{name}: {len(s)} dice, median {np.median(s):.1f} px, 5-95 % {lo:.1f}-{hi:.1f} px"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("card", type=Path, nargs="?", default=ROOT / "vision/learned/models/dice_die_n320.json")
    ap.add_argument("--realdata", type=Path, default=ROOT.parent / "shared" / "realdata")
    args = ap.parse_args()
    meta = json.loads(args.card.read_text(encoding="utf-8"))
    input_px = int(meta.get("imgsz", 320))
    every = []
    for name, photos in sorted(photos_by_set(meta).items()):
        s = sides_at_input(args.realdata / name, photos, input_px)
        print(line(name, s))
        every.append(s)
    if not every:
        print(f"{args.card}: the card lists no training photos", file=sys.stderr)
        return 2
    print(line("all", np.concatenate(every)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
