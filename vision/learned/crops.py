"""The learned die crop reader at run time (onnxruntime, else OpenCV DNN, on a shipped ONNX file; no
torch).

Given boxes proposed by a detector, it says for each whether it frames a die, which value is on top
and where the die really lies (a re-framed box). Each box is cut at 1.25 box sides (the model card's
input size, 32 or 48 px), in `tta` turned/mirrored copies (a die's value does not change when its
picture turns) whose class probabilities are averaged. Class 0 is "not a die" (tray prints, lone
pips, two dice in one box, half a die); 1..6 are the values.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from pathlib import Path

import cv2
import numpy as np

from vision.learned.onnx_model import OnnxModel
from vision.types import VisionError

MODELS = Path(__file__).with_name("models")
DEFAULT_CROP_MODEL = MODELS / "dice_crops.onnx"
INPUT = 32
KEEP = 1.25
SCREEN = 0.2  # a proposal the first view gives less than this chance of being a die gets no more views
SURE_VIEW = 0.9  # a quick read (CropReader's `quick`) stops when each view so far gives its value this much
REFINE = True  # likely dice are re-framed twice (forward)


def box_crops(image: np.ndarray, boxes: np.ndarray, size: int = INPUT, context: float = KEEP) -> np.ndarray:
    """(N, size, size, 3) square crops centred on each box, side `context` x the box's longer side."""
    out = np.empty((len(boxes), size, size, 3), np.uint8)
    for i, (x0, y0, x1, y1) in enumerate(np.asarray(boxes, np.float64)):
        half = max(x1 - x0, y1 - y0, 2.0) * context / 2
        s = size / (2 * half)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        M = np.array([[s, 0, size / 2 - cx * s], [0, s, size / 2 - cy * s]], np.float32)
        out[i] = cv2.warpAffine(image, M, (size, size), flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
    return out


def dihedral_stack(crops: np.ndarray, k: int) -> np.ndarray:
    """The first k of the 8 turns/mirrors of every crop, as (k, N, H, W, 3)."""
    return np.stack([dihedral_view(crops, i) for i in range(k)])


def dihedral_view(crops: np.ndarray, i: int) -> np.ndarray:
    """The i-th (0..7) of the 8 turns/mirrors of every crop (N, H, W, 3), as a view of `crops`."""
    if i == 0:
        return crops
    if i == 1:
        return crops[:, ::-1, ::-1]
    if i == 2:
        return np.rot90(crops, 1, (1, 2))
    if i == 3:
        return np.rot90(crops, 3, (1, 2))
    if i == 4:
        return crops[:, :, ::-1]
    if i == 5:
        return crops[:, ::-1]
    return np.rot90(crops[:, :, ::-1], 1 if i == 6 else 3, (1, 2))


def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


class CropReader:
    def __init__(self, path: Path | str = DEFAULT_CROP_MODEL, tta: int = 4, backend: str = "auto",
                 memo: int = 0, quick: int = 0) -> None:
        """`quick` (2..tta-1, 0: off): `read_best` and `read_best_above` first run the best box's first
        `quick` views only, and when each of them gives one value at least SURE_VIEW of its mass, the
        reading is the mean of those views, its rivals read on as many views (see `_sure`); otherwise
        all `tta` views as without it. `memo`: how many of the last crops' outputs to keep, keyed by
        the crop's exact bytes. A crop byte for byte one of them gets the kept output (the network is a
        pure, deterministic function of its input on one thread), not a second run: a camera reader
        asks again about the same pixels when they did not change (dice road's recording: about half
        of all crops)."""
        if not 1 <= tta <= 8:
            raise VisionError(f"tta must be 1..8 views, got {tta}")
        self.model = OnnxModel(path, backend, what="crop model")
        self.path, self.backend = self.model.path, self.model.backend
        side = self.path.with_suffix(".json")
        try:
            card = json.loads(side.read_text(encoding="utf-8")) if side.exists() else {}
            self.size = int(card.get("input", INPUT))
        except (ValueError, TypeError, AttributeError) as exc:
            raise VisionError(f"{side}: not a valid model card ({exc})") from None
        shape = self.model.input_shape  # a fixed input side in the model itself wins over the card
        if shape and len(shape) == 4 and isinstance(shape[-1], int) and shape[-1] > 0:
            self.size = int(shape[-1])
        if quick and not 2 <= quick < tta:
            raise VisionError(f"quick must be 2..tta-1 views, got {quick}")
        self.tta = tta
        self.quick = quick
        self.memo = memo
        self._kept: OrderedDict[bytes, np.ndarray] = OrderedDict()

    def forward(self, image: np.ndarray, boxes: np.ndarray,
                dedupe: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(N, 7) mean class probabilities over the views (column 0 "not a die", 1..6 the values) and
        (N, 4) the boxes re-framed by the network (the boxes as given if the model has no box output).

        With `dedupe` (an IoU), a likely die whose re-framed box overlaps a likelier one that much is
        the same die seen twice: it gets probability 1 of "not a die" and no more views."""
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        if len(boxes) == 0:
            return np.zeros((0, 7), np.float32), boxes
        crops = box_crops(image, boxes, self.size)
        # every proposal is judged once; only the likely dice, each die once, get the turned views
        # (most proposals are not dice or repeat one, and this keeps a frame at camera rate)
        first = self._run(crops)
        proba = softmax(first[:, :7])
        framed = reframe(boxes, first[:, 7:10]) if first.shape[-1] >= 10 else boxes
        maybe = np.flatnonzero(1.0 - proba[:, 0] >= SCREEN)
        if REFINE and len(maybe) and first.shape[-1] >= 10:
            # one re-framing step only partly corrects a proposal far off its die (one spilling half
            # onto a touching neighbour); a second from the corrected box lands on it (the verdict
            # stays the proposal's own: judged on the centred crop, nell_byler's values read worse)
            again = self._run(box_crops(image, framed[maybe], self.size))
            framed[maybe] = reframe(framed[maybe], again[:, 7:10])
        if dedupe is not None and len(maybe):
            from vision.learned.yolo import nms

            kept = maybe[nms(framed[maybe], 1.0 - proba[maybe, 0], dedupe)]
            repeats = np.setdiff1d(maybe, kept)
            proba[repeats] = np.eye(7, dtype=proba.dtype)[0]
            maybe = kept
        if self.tta > 1 and len(maybe):
            views = dihedral_stack(crops[maybe], self.tta)[1:]
            k, m = views.shape[:2]
            more = softmax(self._run(views.reshape(k * m, self.size, self.size, 3))[:, :7]).reshape(k, m, 7)
            proba[maybe] = (proba[maybe] + more.sum(axis=0)) / self.tta
        return proba, framed  # the unturned view's box: no turn to undo

    def views(self, image: np.ndarray, boxes: np.ndarray, context: float = KEEP) -> np.ndarray:
        """(N, 7) class probabilities of each box's crop as given (no re-framing), mean over the
        reader's turned views; `context`: the crop's side in box sides."""
        return self.crop_views(box_crops(image, np.asarray(boxes, np.float32).reshape(-1, 4), self.size,
                                         context))

    def crop_views(self, crops: np.ndarray) -> np.ndarray:
        """`views` of crops already cut ((N, size, size, 3), as `box_crops` cuts them)."""
        if not len(crops):
            return np.zeros((0, 7), np.float32)
        stack = dihedral_stack(crops, self.tta)
        k, m = stack.shape[:2]
        logits = self._run(stack.reshape(k * m, self.size, self.size, 3))[:, :7]
        return softmax(logits).reshape(k, m, 7).mean(axis=0)

    def _run(self, crops: np.ndarray) -> np.ndarray:
        if not self.memo:
            return self.model.run(np.ascontiguousarray(crops.transpose(0, 3, 1, 2), np.float32))
        # each crop's output is its own: the same crop gives the same output bit for bit whatever else
        # shares its batch (tests/test_crop_memo.py), so only the crops not seen lately are run
        keys = [c.tobytes() for c in np.ascontiguousarray(crops)]  # the bytes themselves: no collision
        kept = self._kept
        missing = [i for i, k in enumerate(keys) if k not in kept]
        if missing:
            ran = self.model.run(np.ascontiguousarray(crops[missing].transpose(0, 3, 1, 2), np.float32))
            ran.flags.writeable = False  # its rows are kept: nobody may write into them
            for i, row in zip(missing, ran, strict=True):
                kept[keys[i]] = row
            if len(missing) == len(keys):  # every crop new (most calls): the network's rows as they came
                while len(kept) > self.memo:
                    kept.popitem(last=False)
                return ran
        rows = []
        for k in keys:
            kept.move_to_end(k)
            rows.append(kept[k])
        while len(kept) > self.memo:
            kept.popitem(last=False)
        return np.stack(rows)

    def read_best_above(self, image: np.ndarray, boxes: np.ndarray, beat: float,
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
        """`read_best(image, boxes, frame_above=beat)` for a caller that uses the reading only when
        its chance of a die is above `beat`; None when it is not. The best box's turned views are run
        one at a time and stop as soon as even the views still to come could not lift its chance above
        `beat` (the bound `_rivals` uses): most re-framed dice read a little less surely than the box
        they came from, and a few views show it. Whenever it returns a reading, that reading is
        `read_best`'s bit for bit (the same crops, the same sequential sum of the views)."""
        return self._best(image, boxes, True, beat, True, beat)

    def read_best(self, image: np.ndarray, boxes: np.ndarray, framed: bool = True,
                  frame_above: float | None = None, views: bool = True,
                  sure_stop: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """`read(image, boxes)` of the one box `read` gives the highest chance of being a die (the
        first of equals), as (1,) arrays: the same numbers, with fewer crops run. The other boxes are
        not re-framed (their boxes are not returned), and each stops getting turned views as soon as
        even its views still to come could not lift it to the best one's chance: a view's chance of
        "not a die" is at least 0, so after some views a box's final chance is at most 1 - (its
        chances of "not a die" so far) / tta, in float32 as rounded by `forward` (rounding is
        monotonic). Each crop's output does not depend on what shares its batch, and the views' sum
        is the same sequential sum, so every number kept is `read`'s bit for bit
        (tests/test_crop_memo.py). `framed=False`, or a chance not above `frame_above`: the box
        returned is the one given (the caller has no use for the re-framed one; no re-framing run).
        `sure_stop` (an index): when box `sure_stop`'s first view gives one value at least SURE_VIEW of
        its mass, the boxes after it are not read at all (the reading is `read_best` of the boxes up to
        it); otherwise their first views are run then, and the reading is the whole read's bit for bit."""
        best = self._best(image, boxes, framed, frame_above, views, None, sure_stop)
        assert best is not None  # (only a bar to beat gives None)
        return best

    def _best(self, image: np.ndarray, boxes: np.ndarray, framed: bool, frame_above: float | None,
              views: bool, beat: float | None, sure_stop: int | None = None,
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
        """`read_best`; with `beat` (`read_best_above`), None once the best box cannot read above it."""
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        if len(boxes) == 0:
            raise VisionError("read_best needs at least one box")
        head = len(boxes) if sure_stop is None else sure_stop + 1
        crops = box_crops(image, boxes[:head], self.size)
        first = self._run(crops)
        proba = softmax(first[:, :7])
        if head < len(boxes):
            if proba[sure_stop, 1:].max() >= SURE_VIEW:  # sure on its first view: the rest not read
                boxes = boxes[:head]
            else:  # each crop's output is its own (whatever shares its batch): the whole read's rows
                rest = box_crops(image, boxes[head:], self.size)
                more = self._run(rest)
                crops, first = np.concatenate([crops, rest]), np.concatenate([first, more])
                proba = np.concatenate([proba, softmax(more[:, :7])])
        maybe = np.flatnonzero(1.0 - proba[:, 0] >= SCREEN)
        chance = 1.0 - proba[:, 0]
        if views and self.tta > 1 and len(maybe):
            # the likeliest by its first view gets every view, then its rivals one view at a time
            lead = maybe[int(np.argmax(chance[maybe]))]
            n = self._sure(crops, proba, lead)
            if n < self.tta:  # sure on its first n views: the reading is their mean
                if beat is not None and not np.float32(1.0 - proba[lead, 0]) > beat:
                    return None
            elif beat is None:
                self._views(crops, proba, np.array([lead]))
            elif not len(self._rivals(crops, proba, np.array([lead]), np.float32(beat), above=True)):
                return None  # its chance cannot come out above `beat`
            rivals = maybe[maybe != lead]
            kept = self._rivals(crops, proba, rivals, (1.0 - proba[lead, 0]).astype(np.float32), n=n)
            chance = 1.0 - proba[:, 0]
            chance[np.setdiff1d(rivals, kept)] = -1.0  # below the lead: never the best
        b = int(np.argmax(chance.astype(np.float32)))
        if beat is not None and not np.float32(chance[b]) > beat:
            return None
        box = boxes[b:b + 1]
        if frame_above is not None and not chance[b] > frame_above:
            framed = False
        if framed and first.shape[-1] >= 10:
            box = reframe(box, first[b:b + 1, 7:10])
            if REFINE and b in maybe:
                box = reframe(box, self._run(box_crops(image, box, self.size))[:, 7:10])
        p = proba[b:b + 1]
        p_die = 1.0 - p[:, 0]
        values = p[:, 1:].argmax(axis=1) + 1
        vconf = p[np.arange(1), values] / np.maximum(p_die, 1e-6)
        return p_die.astype(np.float32), values.astype(np.int32), vconf.astype(np.float32), box

    def _views(self, crops: np.ndarray, proba: np.ndarray, which: np.ndarray) -> None:
        """Average the turned views of crops `which` into their rows of `proba` (as `forward`)."""
        mine = crops[which]
        views = np.stack([dihedral_view(mine, i) for i in range(1, self.tta)])  # (the turned ones only)
        k, m = views.shape[:2]
        more = softmax(self._run(views.reshape(k * m, self.size, self.size, 3))[:, :7]).reshape(k, m, 7)
        proba[which] = (proba[which] + more.sum(axis=0)) / self.tta

    def _sure(self, crops: np.ndarray, proba: np.ndarray, lead: int) -> int:
        """How many views the reading of crop `lead` takes: `quick` when each of its first `quick`
        views gives one value at least SURE_VIEW of its mass (its row of `proba` is then their mean),
        else `tta` (the row left as it is). The bound: the `tta` views' mean could still name another
        value only if the views not run gave that value, on average, more than (quick / (tta - quick))
        * (2 SURE_VIEW - 1) of their mass, against every view seen (0.8 each for 4 of 8 views): a die
        its first views see the same way from four sides is not another value from the other four."""
        q = self.quick
        if not q or self.tta <= q:
            return self.tta
        turned = np.concatenate([dihedral_view(crops[lead:lead + 1], i) for i in range(1, q)])
        more = softmax(self._run(turned)[:, :7])
        value = int(proba[lead, 1:].argmax()) + 1
        if not (proba[lead, value] >= SURE_VIEW and (more[:, value] >= SURE_VIEW).all()):
            return self.tta  # (the views run are kept: the full read gets them from the memo)
        proba[lead] = (proba[lead] + more.sum(axis=0)) / q  # as `forward` sums them
        return q

    def _rivals(self, crops: np.ndarray, proba: np.ndarray, rivals: np.ndarray,
                best: np.float32, above: bool = False, n: int = 0) -> np.ndarray:
        """The turned views of crops `rivals`, one view at a time, for those that can still reach
        `best` (see read_best; `above`: still rise above it): their rows of `proba` averaged as
        `_views` does (the same sequential sum); returns them. The others' rows are left unfinished.
        `n`: each read on its first n views only (the lead's, `_sure`); all `tta` by default."""
        if not len(rivals):
            return rivals
        n = n or self.tta
        mine = crops[rivals]
        more = np.zeros((len(rivals), 7), np.float32)  # each rival's views so far, summed in order
        alive = np.arange(len(rivals))
        for i in range(1, n):  # each view made only for the rivals still in the running
            ceiling = 1.0 - (proba[rivals[alive], 0] + more[alive, 0]) / n
            alive = alive[ceiling > best] if above else alive[ceiling >= best]
            if not len(alive):
                return alive
            more[alive] += softmax(self._run(dihedral_view(mine[alive], i))[:, :7])
        proba[rivals[alive]] = (proba[rivals[alive]] + more[alive]) / n
        return rivals[alive]

    def read(self, image: np.ndarray, boxes: np.ndarray,
             dedupe: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per box: probability it is a die, its value 1..6, that value's share of the die mass, and the
        box re-framed on the die (`dedupe`: see `forward`)."""
        p, framed = self.forward(image, boxes, dedupe)
        return (*verdict(p), framed)


def verdict(p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(N, 7) class probabilities -> chance of a die, value 1..6 and that value's share of the die mass."""
    p_die = 1.0 - p[:, 0]
    values = p[:, 1:].argmax(axis=1) + 1 if len(p) else np.zeros(0, np.int64)
    vconf = p[np.arange(len(p)), values] / np.maximum(p_die, 1e-6) if len(p) else np.zeros(0)
    return p_die.astype(np.float32), values.astype(np.int32), vconf.astype(np.float32)


def reframe(boxes: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """Boxes moved to the predicted die centre and scaled to its predicted side (crop coordinates: -1..1
    across the crop), keeping each proposal's aspect ratio."""
    w = boxes[:, 2] - boxes[:, 0]
    h = boxes[:, 3] - boxes[:, 1]
    unit = np.maximum(np.maximum(w, h), 2.0) * KEEP / 2  # pixels per crop unit
    cx = (boxes[:, 0] + boxes[:, 2]) / 2 + pred[:, 0] * unit
    cy = (boxes[:, 1] + boxes[:, 3]) / 2 + pred[:, 1] * unit
    side = np.clip(pred[:, 2], 0.2, 3.0) * unit
    aspect = np.sqrt(np.maximum(w, 1.0) / np.maximum(h, 1.0))
    hw, hh = side * aspect / 2, side / aspect / 2
    return np.stack([cx - hw, cy - hh, cx + hw, cy + hh], axis=1).astype(np.float32)
