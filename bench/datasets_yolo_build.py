"""Build speed and size of the YOLO scene sets, one OpenCV thread.

Baseline in the same run: rendering the same scenes with the generators alone (nothing written).
Compared: `build_scene_set` (render + label conversion + JPEG/label/labels.json writing); the ratio
is the builder's time over the bare rendering. Also printed: images per minute, kilobytes per image,
boxes per image (the numbers docs/formats/yolo-sets.md quotes).
Usage: python bench/datasets_yolo_build.py [--n N] [--size W H]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import cv2

from datasets.yolo.scenes import SceneSetSpec, build_scene_set
from datasets.yolo.sources import RENDERERS

KINDS = (("tiles", "number"), ("route-dice", "face"), ("sticks", "pieces"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10, help="scenes per kind")
    ap.add_argument("--size", type=int, nargs=2, default=(1280, 720))
    args = ap.parse_args()
    cv2.setNumThreads(1)
    size = (args.size[0], args.size[1])
    print(f"{args.n} scenes per kind at {size[0]}x{size[1]}")
    print(f"{'kind':12} {'render s/img':>12} {'build s/img':>11} {'ratio':>6} {'img/min':>8} "
          f"{'KB/img':>7} {'boxes/img':>9}")
    for kind, scheme in KINDS:
        RENDERERS[kind](0, 0, size)  # warm-up: the generators cache their printed boards and faces
        t = time.perf_counter()
        for k in range(args.n):
            RENDERERS[kind](1, k, size)
        base = (time.perf_counter() - t) / args.n
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / kind
            t = time.perf_counter()
            m = build_scene_set(out, SceneSetSpec(kind, n=args.n, seed=1, scheme=scheme, size=size),
                                show_progress=False)
            built = (time.perf_counter() - t) / args.n
            kb = sum(f.stat().st_size for f in (out / "images").rglob("*.jpg")) / 1024 / args.n
            labels_kb = (out / "labels.json").stat().st_size / 1024 / args.n
            boxes = sum(m["boxes"].values()) / args.n
            print(f"{kind:12} {base:12.3f} {built:11.3f} {built / base:6.2f} {60 / built:8.0f} {kb:7.0f} "
                  f"{boxes:9.1f}  (labels.json {labels_kb:.0f} KB/img; dropped {json.dumps(m['dropped'])})")


if __name__ == "__main__":
    main()
