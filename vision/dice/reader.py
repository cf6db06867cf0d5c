"""The dice reader: `read_dice(image, roi=None, colors=None) -> Detections` (kind "die").

Two stages, because finding dice and reading them are different problems:
1. find: a linear window detector proposes dice over an image pyramid (detector.py), then a small
   verifier network keeps the real ones (removing prints on the tray walls, pips taken alone...);
2. read: the die crop is turned upright (features.die_crop); value networks score it in all eight
   rotations/flips (a die's value does not change when its picture is turned) and their mean
   decides; the colour is matched to a palette.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from vision.dice.colour import classify_colour, palette_lab
from vision.dice.detector import MODELS, DieDetector, nms
from vision.dice.features import die_crop, dihedral, square_window, value_features, verifier_features
from vision.dice.mlp import SoftmaxNet
from vision.types import Detections, VisionError, check_image

Roi = tuple[float, float, float, float]


class DiceReader:
    def __init__(self, models: Path = MODELS, die_px: tuple[float, float] = (20.0, 72.0),
                 detect_threshold: float = 0.0, verify_threshold: float = 0.5,
                 colors: Mapping[str, Sequence[int]] | Sequence[str] | None = None, tta: int = 8,
                 need_values: bool = True, tta_scales: Sequence[float] = (0.92, 1.0, 1.08)) -> None:
        if not 4 <= die_px[0] <= die_px[1]:
            raise VisionError(f"die_px must be (min, max) with 4 <= min <= max, got {die_px}")
        self.detector = DieDetector(SoftmaxNet.load(models / "detector.json"), detect_threshold, die_px)
        self.verifier = SoftmaxNet.load(models / "verifier.json")
        value_files = sorted(models.glob("values*.json"))
        if not value_files and need_values:
            raise VisionError(f"{models}: no values*.json dice model; run python -m datasets.dice.train")
        self.values = [SoftmaxNet.load(p) for p in value_files]
        meta = json.loads(value_files[0].read_text(encoding="utf-8")) if value_files else {}
        self.top_shift = float(meta.get("top_shift", 0.0))  # how the value net's crops were taken
        self.top_scale = float(meta.get("top_scale", 1.0))
        self.verify_threshold = verify_threshold
        self.tta = tta
        # crops a little tighter and looser than the box as well: chosen on a validation block of
        # the training photos (91.3 % -> 93.8 % on 80 dice), not on the held-out photos
        self.tta_scales = tuple(tta_scales)
        self.names, self.lab = palette_lab(colors)

    def find(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Stage 1 only: die boxes (N, 4) and their probability of being a die, best first."""
        found = self.detector.detect(image)
        if len(found) == 0:
            return np.zeros((0, 4), np.float32), np.zeros(0, np.float32)
        feats = np.array([verifier_features(image, b) for b in found.xyxy])
        p_die = self.verifier.proba(feats)[:, 1]
        keep = p_die >= self.verify_threshold
        boxes, p_die = found.xyxy[keep], p_die[keep]
        order = nms(boxes, p_die, 0.3, contain=0.6)
        return boxes[order], p_die[order]

    def read(self, image: np.ndarray, roi: Roi | None = None,
             colors: Mapping[str, Sequence[int]] | Sequence[str] | None = None) -> Detections:
        check_image(image)
        x0 = y0 = 0
        if roi is not None:
            x0, y0, x1, y1 = _check_roi(roi, image.shape)
            image = image[y0:y1, x0:x1]
            if min(image.shape[:2]) < 8:
                return Detections.empty("die")
        names, lab = (self.names, self.lab) if colors is None else palette_lab(colors)
        boxes, p_die = self.find(image)
        if len(boxes) == 0:
            return Detections.empty("die")
        n = len(boxes)
        values = np.zeros(n, np.int32)
        vconf = np.zeros(n, np.float32)
        colours: list[str | None] = []
        for i, b in enumerate(boxes):
            feats = []
            for s in self.tta_scales:
                c = die_crop(image, square_window(b, s), top_shift=self.top_shift, scale=self.top_scale)
                feats += [value_features(dihedral(c, k)) for k in range(self.tta)]
            feats = np.array(feats)
            p = np.mean([net.proba(feats).mean(axis=0) for net in self.values], axis=0)
            values[i] = int(p.argmax()) + 1
            vconf[i] = float(p.max())
            colours.append(classify_colour(c, names, lab)[0])
        boxes = boxes + np.array([x0, y0, x0, y0], np.float32)
        return Detections(xyxy=boxes, confidence=p_die.astype(np.float32), values=values,
                          value_confidence=vconf, colors=colours, kind="die")


def _check_roi(roi: Roi, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    try:
        x0, y0, x1, y1 = (int(round(float(v))) for v in roi)
    except (TypeError, ValueError):
        raise VisionError(f"roi must be (x0, y0, x1, y1) pixels, got {roi!r}") from None
    H, W = shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if x1 <= x0 or y1 <= y0:
        raise VisionError(f"roi {tuple(roi)} lies outside the {W}x{H} image or is empty")
    return x0, y0, x1, y1


_DEFAULT: DiceReader | None = None


def read_dice(image: np.ndarray, roi: Roi | None = None,
              colors: Mapping[str, Sequence[int]] | Sequence[str] | None = None) -> Detections:
    """Every die in `image` (BGR uint8) or in `roi` (x0, y0, x1, y1 pixels): box, value 1..6 with
    value_confidence, colour class from `colors` (default palette: white, blue, green, yellow, black,
    red, orange, purple) and overall confidence."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = DiceReader()
    return _DEFAULT.read(image, roi, colors)
