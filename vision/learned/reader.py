"""`LearnedDiceReader`: dice found by a shipped YOLO detector (ONNX, no torch), read three ways.

Modes (what the referee and `compare dice` choose between):
  "learned" - the detector's own classes: a six-class model ("1".."6") gives the value directly;
  "combo"   - learned boxes, re-scored by the classical verifier (`verify`), then the classical value
              networks (vision/dice, trained on real crops) read each die crop; the issue's
              measurements say this two-stage route is the lever;
  "crops"   - learned boxes proposed at a low confidence (high recall), then the learned crop reader
              (vision/learned/crops.py) keeps the ones that frame a die and reads their value: both
              stages learned, trained on real crops and renders; the default of `eval dice`; a die
              seen from low, framed as one face, gets its whole-die box and a top-face reading
              (vision/learned/body.py, `grow`);
  a tiling option splits a large frame (e.g. 1280x720) into overlapping squares so small dice keep
  their pixels at the detector's small input size; in "crops" mode without it, `any_scale=True` reads
  the frame again at the scale that brings its dice to the detector's trained size when the whole-frame
  read finds them far from it (vision/learned/scales.py; off by default: it costs extra reads).
Output is the same as vision.dice.read_dice: Detections of kind "die", values 1..6 (or -1), colours.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vision.learned import scales
from vision.learned.body import grow_boxes, top_face_box
from vision.learned.crops import verdict
from vision.learned.scales import tile_windows
from vision.learned.yolo import OnnxYolo, nms
from vision.types import Detections, VisionError, check_image

MODELS = Path(__file__).with_name("models")
DEFAULT_MODEL = MODELS / "dice_die_n320.onnx"
MODES = ("learned", "combo", "crops")
CROPS_CONF = 0.01
CROPS_TTA = 4
# after the crop network: proposals framing one die at IoU 0.3..0.5 (die plus shadow, half a die) are
# duplicates, while two touching dice overlap far less; chosen on the training photos
CROPS_NMS = 0.3
# `recheck` (an option, off by default): a kept die whose two likeliest values are this close
# (difference of their shares of the die mass) is read again on its own framed box filling the crop
# (context 1.0: no neighbour's pips, its own pips larger), the two readings' value shares averaged.
# Chosen on the training blocks (epanemu 181 -> 188 read right); held out it read 3 epanemu dice fewer
# right (240 -> 237) and 2 nell_byler, 1 matteop65 more: not the default (docs/vision/dice.md, dice21e)
RECHECK_MARGIN = 0.4
RECHECK_CONTEXT = 1.0


def model_names(path: Path) -> list[str]:
    """Class names from the model card's JSON sidecar (`<model>.json`), default one class "die"."""
    side = path.with_suffix(".json")
    if side.exists():
        try:
            return [str(n) for n in json.loads(side.read_text(encoding="utf-8"))["names"]]
        except (ValueError, KeyError, TypeError) as exc:
            raise VisionError(f"{side}: not a valid model sidecar ({exc})") from None
    return ["die"]


class LearnedDiceReader:
    def __init__(self, model: Path | str = DEFAULT_MODEL, mode: str = "combo", conf: float | None = None,
                 iou: float = 0.5, tile: int = 0, backend: str = "auto", tta: int | None = None,
                 verify: float = 0.3,
                 colors: Mapping[str, Sequence[int]] | Sequence[str] | None = None,
                 crop_model: Path | str | None = None, keep: float = 0.5, profile: Any = None,
                 any_scale: bool = False, grow: bool | None = None, recheck: bool = False) -> None:
        if mode not in MODES:
            raise VisionError(f"mode must be one of {MODES}, got {mode!r}")
        if tta is None:  # crops: 4 views keep 30 fps on one core (8 read 1 more of 413 held-out dice)
            tta = CROPS_TTA if mode == "crops" else 8
        if conf is None:  # crops: propose generously, the crop network rejects (chosen on training photos)
            conf = CROPS_CONF if mode == "crops" else 0.15
        if not 0.0 < conf < 1.0 or not 0.0 < iou < 1.0:
            raise VisionError(f"conf and iou must be in (0, 1), got {conf}, {iou}")
        if tile and tile < 64:
            raise VisionError(f"tile must be 0 (whole frame) or at least 64 px, got {tile}")
        self.net = OnnxYolo(model, backend)
        self.names = model_names(Path(model))
        if mode == "learned" and self.names == ["die"]:
            raise VisionError(f"{model}: a one-class detector cannot read values; use mode 'combo'")
        if not 0.0 <= verify < 1.0:
            raise VisionError(f"verify must be in [0, 1), got {verify}")
        self.mode, self.conf, self.iou, self.tile, self.tta, self.verify = mode, conf, iou, tile, tta, verify
        self._colors = colors
        self._values: Any = None
        self._palette: Any = None
        self.crops: Any = None
        if mode == "crops":
            from vision.learned.crops import DEFAULT_CROP_MODEL, CropReader

            self.crops = CropReader(crop_model or DEFAULT_CROP_MODEL, min(max(tta, 1), 8), backend)
        if not 0.0 < keep < 1.0:
            raise VisionError(f"keep must be in (0, 1), got {keep}")
        self.keep = keep
        # the second reading of close calls (`_recheck`); never with a profile, which corrects the crop
        # network's own reading
        if recheck and profile is not None:
            raise VisionError("recheck re-reads the crop network's values, which a dice profile corrects: "
                              "use one or the other")
        self.recheck = recheck
        # a taught dice profile (vision/learned/profile.py) adapts the crop reader's verdict
        self.profile = profile
        if profile is not None:
            if mode != "crops":
                raise VisionError("a dice profile adapts the crops reader: use mode 'crops'")
            profile.net(crop_model)
            if colors is None and profile.colours:
                self._colors = profile.colours
        self.any_scale = any_scale
        # whole-die boxes for obliquely seen dice (vision/learned/body.py); off with a profile, whose
        # taught embeddings and corrections belong to the crop network's own boxes and readings
        self.grow = (profile is None) if grow is None else grow

    def _classical(self) -> Any:
        """The classical reader with its finding stage replaced by given boxes, so the value and colour
        stages run exactly as in vision.dice (which keeps changing how it crops and reads)."""
        if self._values is None:
            from vision.dice.reader import DiceReader

            class OnGivenBoxes(DiceReader):
                given: tuple[np.ndarray, np.ndarray]

                def find(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
                    return self.given

            self._values = OnGivenBoxes(colors=self._colors, tta=self.tta)
        return self._values

    def boxes(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Detector boxes (image pixels), scores and classes, tiles merged."""
        if not self.tile:
            return self.net.detect(image, self.conf, self.iou)
        parts = []
        H, W = image.shape[:2]
        for x0, y0, x1, y1 in tile_windows(W, H, self.tile):
            b, s, c = self.net.detect(image[y0:y1, x0:x1], self.conf, self.iou)
            parts.append((b + np.array([x0, y0, x0, y0], np.float32), s, c))
        xyxy = np.concatenate([p[0] for p in parts])
        score = np.concatenate([p[1] for p in parts])
        cls = np.concatenate([p[2] for p in parts])
        keep = nms(xyxy, score, self.iou)
        return xyxy[keep], score[keep], cls[keep]

    def read(self, image: np.ndarray) -> Detections:
        check_image(image)
        xyxy, score, cls = self.boxes(image)
        n = len(xyxy)
        values = np.full(n, -1, np.int32)
        vconf = np.zeros(n, np.float32)
        colours: list[str | None] = [None] * n
        if self.mode == "learned":
            for i, c in enumerate(cls):
                name = self.names[int(c)] if int(c) < len(self.names) else ""
                values[i] = int(name) if name.isdigit() else -1
            vconf[:] = score
        if self.mode == "crops":
            if self.any_scale and not self.tile:
                return self._read_any_scale(image, xyxy, score, cls)
            return self._read_crops(image, xyxy, score, cls)
        if n and self.mode == "combo" and self.verify > 0:
            # the classical verifier re-scores each learned box: it was trained to reject tray prints and
            # lone pips (on the first 52 photos, conf 0.15 + verify 0.3 kept recall and lifted precision)
            from vision.dice.features import verifier_features

            classical = self._classical()
            p_die = classical.verifier.proba(np.array([verifier_features(image, b) for b in xyxy]))[:, 1]
            keep = p_die >= self.verify
            xyxy, score, cls = xyxy[keep], score[keep], cls[keep]
            n = len(xyxy)
            values, vconf, colours = values[:n], vconf[:n], colours[:n]  # still unset here (-1, 0, None)
        if n and self.mode == "combo":
            classical = self._classical()
            classical.given = (xyxy, score)
            det = classical.read(image)
            if len(det) == n:  # the same boxes in the same order, now with values and colours
                values, vconf, colours = det.values.astype(np.int32), det.value_confidence, det.colors
        elif n:
            colours = self._colours(image, xyxy)
        return Detections(xyxy=xyxy, confidence=score, values=values, value_confidence=vconf,
                          colors=colours, kind="die", data={"class": cls.astype(np.int32)})

    def _read_crops(self, image: np.ndarray, xyxy: np.ndarray, score: np.ndarray,
                    cls: np.ndarray) -> Detections:
        proba, xyxy = self.crops.forward(image, xyxy, dedupe=CROPS_NMS)
        p_die, values, vconf = verdict(proba)
        if self.profile is not None:
            keep, values, vconf = self.profile.adapt(image, xyxy, proba, self.keep)
        else:
            keep = p_die >= self.keep
        xyxy, p_die, values, vconf, cls = xyxy[keep], p_die[keep], values[keep], vconf[keep], cls[keep]
        proba = proba[keep]
        read = xyxy  # the box each die's value was read on
        if self.grow and len(xyxy):
            xyxy, proba, read = self._grow_bodies(image, xyxy, proba)
            _, values, vconf = verdict(proba)
        if self.recheck and len(xyxy):
            proba = self._recheck(image, read, proba)
            _, values, vconf = verdict(proba)
        # repeats of one die were already dropped by the crop reader (dedupe): only sort, surest first
        order = np.argsort(-p_die, kind="stable")
        xyxy, p_die, values, vconf, cls = xyxy[order], p_die[order], values[order], vconf[order], cls[order]
        # the crop network's class probabilities ride along: teaching a profile corrects exactly them
        # and the box each value was read on (a grown die's top face): a second reader reads the same
        return Detections(xyxy=xyxy.astype(np.float32), confidence=p_die, values=values,
                          value_confidence=vconf, colors=self._colours(image, xyxy), kind="die",
                          data={"class": cls.astype(np.int32), "proba": proba[order],
                                "read": read[order].astype(np.float32)})

    def _grow_bodies(self, image: np.ndarray, xyxy: np.ndarray,
                     proba: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Kept dice whose body shows beyond the framed face (a side face in view: the die is seen
        from low) get the whole-die box, and their value is read again on the top face: the face the
        crop network framed may be the big front face, whose pips are not the top's. With an upright
        camera, world "up" points up the picture, so the top face is the upper end of the whole die:
        a square as wide as the die, from its top edge (`top_face_box`). That read, in the reader's
        turned views, gives the value; the chance of a die stays the face's (the crop network judged
        that box). Returns the boxes, the probabilities and the box each value was read on."""
        grown = grow_boxes(image, xyxy)
        moved = np.flatnonzero(np.abs(grown - xyxy).max(axis=1) > 0.5)
        if not len(moved):
            return xyxy, proba, xyxy
        read = xyxy.copy()
        read[moved] = top_face_box(grown[moved])
        top = self._top_face_read(image, grown[moved], xyxy[moved])[:, 1:]
        proba = proba.copy()
        mass = 1.0 - proba[moved, 0:1]  # the face's chance of a die, kept
        proba[moved, 1:] = top * mass / np.maximum(top.sum(axis=1, keepdims=True), 1e-6)
        xyxy = xyxy.copy()
        xyxy[moved] = grown[moved]
        return xyxy, proba, read

    def _recheck(self, image: np.ndarray, read: np.ndarray, proba: np.ndarray) -> np.ndarray:
        """`proba` with the values of close calls read a second time: a die whose two likeliest values'
        shares of its die mass differ by less than RECHECK_MARGIN is read again on the box its value was
        read on (`read`), cut at RECHECK_CONTEXT, in the reader's turned views; its value shares become
        the mean of the two readings'. Its chance of a die stays the crop network's first verdict."""
        mass = np.maximum(1.0 - proba[:, 0:1], 1e-6)
        share = proba[:, 1:] / mass
        two = np.sort(share, axis=1)[:, -2:]
        close = np.flatnonzero(two[:, 1] - two[:, 0] < RECHECK_MARGIN)
        if not len(close):
            return proba
        again = self.crops.views(image, read[close], RECHECK_CONTEXT)[:, 1:]
        again = again / np.maximum(again.sum(axis=1, keepdims=True), 1e-6)
        proba = proba.copy()
        proba[close, 1:] = (share[close] + again) / 2 * mass[close]
        return proba

    def _top_face_read(self, image: np.ndarray, whole: np.ndarray, face: np.ndarray) -> np.ndarray:
        """(N, 7) class probabilities of grown dice read on their top faces."""
        return self.crops.views(image, top_face_box(whole))

    def _crop_read(self, image: np.ndarray, xyxy: np.ndarray, cls: np.ndarray,
                   seen_px: np.ndarray) -> scales.Read:
        """The proposals the crop network takes for dice, re-framed, with their size at the input."""
        proba, framed = self.crops.forward(image, xyxy, dedupe=CROPS_NMS)
        p_die, values, vconf = verdict(proba)
        if self.profile is not None:
            keep, values, vconf = self.profile.adapt(image, framed, proba, self.keep)
        else:
            keep = p_die >= self.keep
        return scales.Read(framed[keep].astype(np.float32), p_die[keep], values[keep], vconf[keep],
                           np.asarray(cls)[keep], np.asarray(seen_px, np.float64)[keep])

    def _read_any_scale(self, image: np.ndarray, xyxy: np.ndarray, score: np.ndarray,
                        cls: np.ndarray) -> Detections:
        """The whole-frame read, then (only when its dice are far from the trained size, or it found
        none) reads at the scales that bring dice to that size, merged."""
        H, W = image.shape[:2]
        long, size = max(H, W), self.net.size
        reads = [self._crop_read(image, xyxy, cls, scales.sides(xyxy) * size / long)]
        tried = [1.0]
        for _ in range(2):  # a second round only when the first had to explore (no die found whole)
            est = scales.die_size_at_input(scales.Read.join(reads).xyxy, long, size)
            zooms = scales.zooms_to_try(est, tried)
            for zoom in zooms:
                b, _s, c, seen = scales.proposals_at(image, zoom, self._detect, size)
                reads.append(self._crop_read(image, b, c, seen))
                tried.append(zoom)
            if est is not None or not zooms:
                break
        found = reads[0] if len(reads) == 1 else scales.merge(reads, CROPS_NMS)
        order = np.argsort(-found.p_die, kind="stable")
        found = found.take(order)
        return Detections(xyxy=found.xyxy.astype(np.float32), confidence=found.p_die, values=found.values,
                          value_confidence=found.vconf, colors=self._colours(image, found.xyxy), kind="die",
                          data={"class": found.cls.astype(np.int32)})

    def _detect(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.net.detect(image, max(self.conf, scales.EXTRA_CONF), self.iou)

    def _colours(self, image: np.ndarray, xyxy: np.ndarray) -> list[str | None]:
        """Palette class of each box, when the reader was given a palette."""
        if self._colors is None:
            return [None] * len(xyxy)
        from vision.dice.colour import classify_colour, palette_lab
        from vision.dice.features import crop, square_window

        if self._palette is None:
            self._palette = palette_lab(self._colors)
        names, lab = self._palette
        return [classify_colour(crop(image, square_window(b, 1.0), 48), names, lab)[0] for b in xyxy]

    __call__ = read
