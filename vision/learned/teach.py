"""Teaching a dice profile from a few labelled photos (realdata format): the default crops reader finds
the dice with a low acceptance threshold, each found die is paired with its label as `eval dice`
pairs them, and the pairs' embeddings become the profile (vision/learned/profile.py).

Everything is checked before anything is learned: labelled values must be 1..6, every teaching photo
must be readable and show at least one labelled die, and some die must be found."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.learned.crops import DEFAULT_CROP_MODEL, box_crops
from vision.learned.profile import DiceProfile, EmbeddingNet, file_sha256, fit_profile
from vision.realdata import LabelledImage, LabelledSet
from vision.types import VisionError

LOW_KEEP = 0.05  # teaching looks at what the network doubts too: the set's own threshold is chosen from it
KEEP_FLOOR = 0.3


def check_labels(items: list[LabelledImage]) -> None:
    """VisionError naming the first teaching photo whose labels cannot be taught: no labelled die, a
    value outside 1..6, a symbol that is neither true nor a name (the page checks its corrections so)."""
    for item in items:
        dice = [o for o in item.objects if o.kind == "die"]
        if not dice:
            raise VisionError(f"{item.image}: a teaching photo must show labelled dice; this one has none")
        for k, o in enumerate(dice):
            if isinstance(o.value, bool) or o.value not in range(1, 7):
                raise VisionError(f"{item.image}: die {k} has value {o.value!r}; a die's value is 1..6")
            symbol = o.extra.get("symbol")
            if symbol is not None and not isinstance(symbol, (bool, str)):
                raise VisionError(f"{item.image}: die {k} has symbol {symbol!r}; give true or a name")


def check_teaching(labels: LabelledSet, items: list[LabelledImage]) -> list[np.ndarray]:
    """The teaching photos' images, after checking their labels; VisionError naming the first fault."""
    from vision.sources import read_image

    check_labels(items)
    return [read_image(labels.path(item)) for item in items]


def teach(labels: LabelledSet, items: list[LabelledImage],
          crop_model: Path | str = DEFAULT_CROP_MODEL) -> DiceProfile:
    from vision.dice.evaluate import box_convention

    convention = box_convention(labels.meta)
    images = check_teaching(labels, items)
    return teach_images(items, images, convention, labels.folder.resolve().name, crop_model)


def teach_images(items: list[LabelledImage], images: list[np.ndarray], convention: str = "whole_die",
                 folder: str = "", crop_model: Path | str = DEFAULT_CROP_MODEL) -> DiceProfile:
    """A profile from labelled photos already in memory (`teach` after reading its folder; the page's
    Teach my dice with its photos): the same profile `teach` makes from the same images and labels.
    `folder` is what the profile records it was taught on."""
    from vision.learned.reader import LearnedDiceReader

    check_labels(items)
    reader = LearnedDiceReader(mode="crops", crop_model=crop_model, keep=LOW_KEEP, grow=False)
    net = EmbeddingNet(crop_model)
    feats: list[np.ndarray] = []
    labels_: list[np.ndarray] = []
    bases: list[np.ndarray] = []
    symbols: dict[int, str] = {}
    colour_px: dict[str, list[np.ndarray]] = {}
    for item, image in zip(items, images, strict=True):
        dice = [o for o in item.objects if o.kind == "die"]
        det = reader.read(image)
        gt = np.array([o.bbox for o in dice], np.float64).reshape(-1, 4)
        pairs, touching = _pairs(gt, det.xyxy, convention)
        # a proposal on a labelled die is that value; one that only overlaps a die (half a die, a die
        # and its neighbour) is "not a die"; one where no die is labelled may be an unlabelled die: unused
        label = {j: int(dice[i].value) for i, j in pairs}
        for j in range(len(det)):
            if j not in label and len(gt) and touching[:, j].any():
                label[j] = 0
        used = sorted(label)
        if used:
            f, own = net.embed(image, det.xyxy[used])
            feats.append(f)
            # what the reader will correct at run time: its class probabilities for these proposals
            bases.append(np.asarray(det.data["proba"])[used] if "proba" in det.data else own)
            labels_.append(np.array([label[j] for j in used], np.int32))
        for i, j in pairs:
            o = dice[i]
            if o.extra.get("symbol"):
                symbols[int(o.value)] = o.extra["symbol"] if isinstance(o.extra["symbol"], str) else "symbol"
            if o.color:
                colour_px.setdefault(str(o.color), []).append(_face_rgb(image, det.xyxy[j]))
    y = np.concatenate(labels_) if labels_ else np.zeros(0, np.int32)
    if not (y > 0).any():
        raise VisionError("the reader found none of the labelled dice on the teaching photos, so there is "
                          "nothing to learn (are the boxes in this folder's box_convention?)")
    colours = {n: [int(c) for c in np.median(np.stack(v), axis=0)] for n, v in sorted(colour_px.items())}
    path = Path(crop_model)
    f, base = np.concatenate(feats), np.concatenate(bases)
    profile = fit_profile(net, f, y, base, symbols=symbols, colours=colours, crop_model=path.name,
                          crop_model_sha256=file_sha256(path), feature=net.feature,
                          taught_on={"folder": folder,
                                     "photos": [it.image for it in items], "box_convention": convention})
    p_die = profile.judge(f, base).p_die
    profile.keep = _choose_keep(list(p_die[y > 0]), list(p_die[y == 0]))
    return profile


def _pairs(gt: np.ndarray, found: np.ndarray,
           convention: str) -> tuple[list[tuple[int, int]], np.ndarray]:
    """(label, detection) pairs as `eval dice` makes them, and [i, j]: detection j overlaps label i."""
    from vision.dice.evaluate import centre_match
    from vision.realdata import greedy_match, iou_matrix

    ious = iou_matrix(gt, found)
    if convention == "whole_die":
        return greedy_match(ious, 0.5), ious > 0.05
    return centre_match(gt, found), ious > 0.0


def _choose_keep(true_p: list[float], false_p: list[float]) -> float:
    """The set's acceptance threshold: low enough to take the least sure taught die, never above the
    default 0.5, and above every false proposal the network was unsure of on the teaching photos."""
    keep = min(0.5, max(KEEP_FLOOR, min(true_p) - 0.01))
    doubtful = [p for p in false_p if keep <= p < 0.5]
    if doubtful:
        keep = min(0.5, max(doubtful) + 0.01)
    return round(float(keep), 3)


def _face_rgb(image: np.ndarray, box: np.ndarray) -> np.ndarray:
    """Median RGB of a die's crop (pips are a minority of its pixels; a lone pip sits in its middle)."""
    crop = box_crops(image, box[None], 24, 0.9)[0]
    return np.median(cv2.cvtColor(crop, cv2.COLOR_BGR2RGB).reshape(-1, 3), axis=0)
