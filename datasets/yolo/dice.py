"""The dice detector's YOLO training set: labelled real photos plus rendered scenes.

Layout written under OUT (Ultralytics' images/labels convention):
    images/train, labels/train  - the chosen real photos + the training renders
    images/val,   labels/val    - held-back renders only (real photos are too few to spare; the
                                  held-out real photos are scored separately by `compare dice`)
    data.yaml, manifest.json    - class names, the photos used, seeds and counts
Two label schemes: "die" (one class: the detector finds dice, a value reader reads each crop) and
"value" (six classes, value - 1, for a detector that also reads the top face).
Everything is deterministic from `seed`: render k uses np.random.default_rng([seed, k]).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from datasets.yolo.progress import progress
from vision.realdata import load_labels

SCHEMES = ("die", "value")


@dataclass
class DiceSetSpec:
    real_folder: Path | None = None  # realdata folder (labels.json); None: renders only
    real_first: int = 52  # use the first N photos in file-name order (a block, not a sample)
    renders: int = 60  # rendered scenes, of which `val_fraction` go to val
    val_fraction: float = 0.25
    render_size: tuple[int, int] = (960, 540)
    seed: int = 2026
    scheme: str = "die"
    quality: int = 90
    # more realdata folders, each taking its training blocks (datasets/dice/photo_split.series_split);
    # a folder whose boxes enclose only the pips has them grown to whole-die boxes first
    real_sets: tuple[str, ...] = ()
    surface_share: float = 0.0  # share of the renders that show dice on bare table tops (surfaces.py)
    # per real training photo, this many copies with small dice pasted in (datasets/yolo/small_dice.py)
    small_copies: int = 0

    def check(self) -> None:
        if self.scheme not in SCHEMES:
            raise ValueError(f"scheme must be one of {SCHEMES}, got {self.scheme!r}")
        if self.renders < 0 or self.real_first < 0 or self.small_copies < 0:
            raise ValueError("renders, real_first and small_copies must be >= 0")
        if not 0.0 <= self.val_fraction < 1.0:
            raise ValueError(f"val_fraction must be in [0, 1), got {self.val_fraction}")
        if not 0.0 <= self.surface_share <= 1.0:
            raise ValueError(f"surface_share must be in [0, 1], got {self.surface_share}")
        if self.small_copies and self.scheme != "die":
            raise ValueError("small_copies pastes dice without values: only with scheme 'die'")
        if self.real_folder is None and not self.real_sets and self.renders == 0:
            raise ValueError("nothing to build: no real folder and no renders")


def yolo_lines(objects: list[dict[str, Any]], width: int, height: int, scheme: str) -> list[str]:
    """One `class cx cy w h` line (normalised, clipped to the image) per die with a usable box."""
    lines = []
    for o in objects:
        if o.get("kind", "die") != "die":
            continue
        x0, y0, x1, y1 = (float(v) for v in o["bbox"])
        x0, y0, x1, y1 = max(0.0, x0), max(0.0, y0), min(float(width), x1), min(float(height), y1)
        if x1 - x0 < 2 or y1 - y0 < 2:
            continue
        if scheme == "value":
            if o.get("value") not in (1, 2, 3, 4, 5, 6):
                continue  # an unread die cannot teach a value class
            cls = int(o["value"]) - 1
        else:
            cls = 0
        lines.append(f"{cls} {(x0 + x1) / 2 / width:.6f} {(y0 + y1) / 2 / height:.6f} "
                     f"{(x1 - x0) / width:.6f} {(y1 - y0) / height:.6f}")
    return lines


def real_training_photos(folder: Path, first: int) -> list[str]:
    """File names of the first `first` photos of a realdata folder, in file-name order."""
    return sorted(it.image for it in load_labels(folder).items)[:first]


def build_dice_set(out: Path, spec: DiceSetSpec, show_progress: bool = True) -> dict[str, Any]:
    """Write the set under `out` (replacing an earlier one) and return its manifest."""
    spec.check()
    if out.exists():
        shutil.rmtree(out)
    for sub in ("images/train", "images/val", "labels/train", "labels/val"):
        (out / sub).mkdir(parents=True)
    counts = {"train": 0, "val": 0}
    boxes = {"train": 0, "val": 0}

    real_written: list[tuple[str, np.ndarray, list[str]]] = []  # for the small-dice copies

    def put(split: str, stem: str, image: np.ndarray, lines: list[str]) -> None:
        if spec.small_copies and stem.startswith("real_"):
            real_written.append((stem, image, lines))
        jpeg = [cv2.IMWRITE_JPEG_QUALITY, spec.quality]
        cv2.imwrite(str(out / "images" / split / f"{stem}.jpg"), image, jpeg)
        (out / "labels" / split / f"{stem}.txt").write_text("".join(f"{ln}\n" for ln in lines))
        counts[split] += 1
        boxes[split] += len(lines)

    photos: list[str] = []
    if spec.real_folder is not None:
        labels = load_labels(spec.real_folder)
        by_name = {it.image: it for it in labels.items}
        photos = real_training_photos(spec.real_folder, spec.real_first)
        for name in progress(photos, len(photos), "real photos", enabled=show_progress):
            item = by_name[name]
            image = cv2.imread(str(labels.path(item)), cv2.IMREAD_COLOR)
            if image is None:
                raise ValueError(f"{labels.path(item)}: cannot read this image")
            objs = [{"kind": o.kind, "value": o.value, "bbox": o.bbox} for o in item.objects]
            put("train", f"real_{Path(name).stem}", image,
                yolo_lines(objs, image.shape[1], image.shape[0], spec.scheme))
    by_set: dict[str, list[str]] = {Path(spec.real_folder).name: photos} if spec.real_folder else {}
    grown = {"image": 0, "fallback": 0}
    for folder in spec.real_sets:
        names = _put_real_set(Path(folder), spec, put, grown, show_progress)
        by_set.setdefault(Path(folder).name, []).extend(names)
    n_pasted = _put_small_copies(real_written, spec, put) if spec.small_copies else 0
    n_val = int(round(spec.renders * spec.val_fraction))
    if spec.renders:
        for k in progress(range(spec.renders), spec.renders, "renders", enabled=show_progress):
            image, objects = render(spec, k)
            split = "val" if k >= spec.renders - n_val else "train"
            put(split, f"render_{spec.seed}_{k:05d}", image,
                yolo_lines(objects, image.shape[1], image.shape[0], spec.scheme))
    names = ["die"] if spec.scheme == "die" else [str(v) for v in range(1, 7)]
    # an absolute path: Ultralytics resolves a relative one against its own datasets_dir
    (out / "data.yaml").write_text(
        f"path: {out.resolve()}\ntrain: images/train\nval: images/{'val' if n_val else 'train'}\n"
        f"names:\n" + "".join(f"  {i}: '{n}'\n" for i, n in enumerate(names)), encoding="utf-8")
    manifest = {"spec": {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(spec).items()},
                "real_photos": photos, "real_photos_by_set": by_set, "pip_boxes_grown": grown,
                "small_dice_pasted": n_pasted,
                "images": counts, "boxes": boxes, "names": names}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return manifest


def render(spec: DiceSetSpec, k: int) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """Render k of the set: a tray scene, or (for the first `surface_share` of every 20) dice on a bare
    table top. Deterministic from (seed, k)."""
    rng = np.random.default_rng([spec.seed, k])
    if k % 20 < round(20 * spec.surface_share):
        from datasets.dice.surfaces import surface_scene

        return surface_scene(rng, spec.render_size)
    from datasets.dice import random_scene  # the dice engineer's generator

    return random_scene(rng, spec.render_size)


def _put_real_set(folder: Path, spec: DiceSetSpec, put: Any, grown: dict[str, int],
                  show_progress: bool) -> list[str]:
    """Write the training blocks of one realdata folder; pip boxes are grown to whole dice."""
    from datasets.dice.photo_split import series_split
    from datasets.dice.pip_boxes import grow_pip_box

    labels = load_labels(folder)
    pips = labels.meta.get("box_convention", "whole_die") == "pips"
    chosen = set(series_split(labels))
    items = [it for it in sorted(labels.items, key=lambda i: i.image) if it.image in chosen]
    for item in progress(items, len(items), f"real photos {folder.name}", enabled=show_progress):
        image = cv2.imread(str(labels.path(item)), cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError(f"{labels.path(item)}: cannot read this image")
        objs = []
        for o in item.objects:
            box = o.bbox
            if pips and o.kind == "die":
                box, from_image = grow_pip_box(image, o.bbox)
                grown["image" if from_image else "fallback"] += 1
            objs.append({"kind": o.kind, "value": o.value, "bbox": box})
        put("train", f"real_{folder.name}_{Path(item.image).stem}", image,
            yolo_lines(objs, image.shape[1], image.shape[0], spec.scheme))
    return [it.image for it in items]


def _put_small_copies(written: list[tuple[str, np.ndarray, list[str]]], spec: DiceSetSpec, put: Any) -> int:
    """`spec.small_copies` copies of every real training photo with small dice pasted in, cut from the
    real training photos (never a held-out one: only photos already written to train are used)."""
    from datasets.yolo.small_dice import cut_dice, paste_small_dice

    def boxes(image: np.ndarray, lines: list[str]) -> np.ndarray:
        H, W = image.shape[:2]
        out = []
        for ln in lines:
            _c, cx, cy, w, h = (float(v) for v in ln.split())
            out.append([(cx - w / 2) * W, (cy - h / 2) * H, (cx + w / 2) * W, (cy + h / 2) * H])
        return np.array(out, np.float64).reshape(-1, 4)

    cuts = [c for _s, image, lines in written for c in cut_dice(image, boxes(image, lines))]
    rng = np.random.default_rng([spec.seed, 21])
    n = 0
    for stem, image, lines in written:
        for k in range(spec.small_copies):
            old = boxes(image, lines)
            pic, placed = paste_small_dice(image, old, cuts, rng)
            new = [{"kind": "die", "value": None, "bbox": list(b)} for b in placed[len(old):]]
            put("train", f"small{k}_{stem}", pic,
                lines + yolo_lines(new, pic.shape[1], pic.shape[0], "die"))
            n += len(new)
    return n
