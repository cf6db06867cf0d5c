"""YOLO training sets of rendered scenes for the numbered pieces, route dice and Tokyo sticks.

Layout written under OUT (Ultralytics' images/labels convention, see docs/formats/yolo-sets.md):
    images/{train,val}/KIND_SEED_K.jpg, labels/{train,val}/KIND_SEED_K.txt
    data.yaml      - absolute path, splits, class names (+ kpt_shape/flip_idx for pose schemes)
    labels.json    - the generators' own labels in the realdata format (image = images/SPLIT/NAME),
                     so the readers' eval commands can score the same scenes
    manifest.json  - spec, seeds, scene indices per split, counts, boxes per class, dropped objects
The last round(N * val_fraction) scenes (at least one when the fraction is > 0 and N >= 2) are val.
Deterministic from the seed: same seed and size, same bytes.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import cv2

from datasets.yolo.labels import get_scheme, yolo_lines
from datasets.yolo.progress import progress
from datasets.yolo.sources import GENERATORS, RENDERERS

OWN_FILES = ("images", "labels", "data.yaml", "labels.json", "manifest.json")


@dataclass
class SceneSetSpec:
    kind: str
    n: int = 100
    seed: int = 0
    val_fraction: float = 0.2
    scheme: str | None = None  # None: the kind's first scheme
    size: tuple[int, int] = (1280, 720)
    quality: int = 90

    def check(self) -> None:
        """ValueError naming the bad field."""
        get_scheme(self.kind, self.scheme)
        if not 1 <= self.n <= 1_000_000:
            raise ValueError(f"n must be between 1 and 1000000, got {self.n}")
        if self.seed < 0:
            raise ValueError(f"seed must be >= 0, got {self.seed}")
        if not 0.0 <= self.val_fraction < 1.0:
            raise ValueError(f"val_fraction must be in [0, 1), got {self.val_fraction}")
        w, h = self.size
        if not (64 <= w <= 8192 and 64 <= h <= 8192):
            raise ValueError(f"size must be 64..8192 pixels each way, got {w}x{h}")
        if not 1 <= self.quality <= 100:
            raise ValueError(f"quality must be 1..100, got {self.quality}")

    def n_val(self) -> int:
        n_val = int(round(self.n * self.val_fraction))
        return max(n_val, 1) if self.val_fraction > 0 and self.n >= 2 else n_val


def prepare_folder(out: Path) -> None:
    """Make `out` ready: an earlier set built here is replaced; any other non-empty folder is refused
    (so a mistyped --out never deletes someone's files)."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out}: exists and is not a folder")
    if out.is_dir() and any(out.iterdir()):
        if not (out / "manifest.json").is_file():
            raise ValueError(f"{out}: folder is not empty and holds no YOLO set built here "
                             "(no manifest.json); choose a new or empty folder")
        for name in OWN_FILES:
            path = out / name
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()
    for sub in ("images/train", "images/val", "labels/train", "labels/val"):
        (out / sub).mkdir(parents=True, exist_ok=True)


def data_yaml(out: Path, names: tuple[str, ...], pose: bool, has_val: bool) -> str:
    # an absolute path: Ultralytics resolves a relative one against its own datasets_dir
    text = (f"path: {out.resolve()}\ntrain: images/train\nval: images/{'val' if has_val else 'train'}\n")
    if pose:  # the two stick ends, leftmost first: a left-right flip makes the other end leftmost
        text += "kpt_shape: [2, 3]\nflip_idx: [1, 0]\n"
    return text + "names:\n" + "".join(f"  {i}: '{n}'\n" for i, n in enumerate(names))


def build_scene_set(out: Path, spec: SceneSetSpec, show_progress: bool = True) -> dict[str, Any]:
    """Render spec.n scenes of spec.kind into `out` and return the manifest."""
    spec.check()
    scheme = get_scheme(spec.kind, spec.scheme)
    prepare_folder(out)
    render = RENDERERS[spec.kind]
    n_val = spec.n_val()
    scenes: dict[str, list[int]] = {"train": [], "val": []}
    boxes = {"train": 0, "val": 0}
    per_class: Counter[str] = Counter()
    dropped: Counter[str] = Counter()
    items: list[dict[str, Any]] = []
    jpeg = [cv2.IMWRITE_JPEG_QUALITY, spec.quality]
    for k in progress(range(spec.n), spec.n, f"{spec.kind} scenes", enabled=show_progress):
        image, fields = render(spec.seed, k, spec.size)
        split = "val" if k >= spec.n - n_val else "train"
        stem = f"{spec.kind}_{spec.seed}_{k:05d}"
        h, w = image.shape[:2]
        lines, lost = yolo_lines(scheme, fields["objects"], w, h)
        cv2.imwrite(str(out / "images" / split / f"{stem}.jpg"), image, jpeg)
        (out / "labels" / split / f"{stem}.txt").write_text("".join(f"{ln}\n" for ln in lines),
                                                             encoding="utf-8")
        items.append({"image": f"images/{split}/{stem}.jpg", "width": w, "height": h, "split": split,
                      "scene_index": k, **fields})
        scenes[split].append(k)
        boxes[split] += len(lines)
        per_class.update(scheme.names[int(ln.split(" ", 1)[0])] for ln in lines)
        dropped.update(lost)
    (out / "data.yaml").write_text(data_yaml(out, scheme.names, scheme.pose, n_val > 0), encoding="utf-8")
    labels = {"source": f"highway-referee dataset yolo {spec.kind} --seed {spec.seed} --n {spec.n}",
              "license": "MIT (generated by Highway Referee)", "attribution": "Highway Referee",
              "notes": f"rendered by {GENERATORS[spec.kind]}; YOLO labels under labels/", "items": items}
    (out / "labels.json").write_text(json.dumps(labels, indent=1), encoding="utf-8")
    manifest = {"kind": spec.kind, "scheme": scheme.name, "names": list(scheme.names), "pose": scheme.pose,
                "generator": GENERATORS[spec.kind], "spec": asdict(spec) | {"scheme": scheme.name},
                "scenes": scenes, "images": {s: len(v) for s, v in scenes.items()}, "boxes": boxes,
                "per_class": {n: per_class[n] for n in scheme.names},
                "dropped": dict(sorted(dropped.items())), "real_photos": []}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return manifest
