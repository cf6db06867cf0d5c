"""A player's dice profile: what the referee learned from a few labelled photos of one dice set, and
how the crop reader's verdict is adapted with it (no torch: onnxruntime plus the `onnx` package to
expose the crop network's penultimate layer).

What a profile holds (JSON, docs/formats/dice-profile.md):
  - a change to the crop network's last layer (7 x D, fit on the taught proposals' embeddings): it is
    added to the logits of the reader's own class probabilities, so where it is zero the reading is
    exactly the default one;
  - the guard: the taught proposals' embeddings (centred, unit length). A proposal is read with the
    profile only when it lies within a cosine similarity `near` of one of them, so a profile taught
    on other dice rarely applies at all, which keeps it from making a set it was not taught on worse;
  - the faces that carry a symbol instead of pips and what value they count as (from the labels'
    optional per-object "symbol");
  - the set's colours (median RGB per labelled colour name), used as the reader's palette;
  - the crop network's acceptance threshold for this set ("keep"): a proposal the network doubts
    (die probability below the default 0.5) is still taken when it is at least this sure after the
    correction and near a taught die (dark tables, unusual dice).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vision.jsonfile import read_json_object, write_json
from vision.learned.crops import DEFAULT_CROP_MODEL, SCREEN, box_crops, dihedral_stack, softmax, verdict
from vision.types import VisionError

FORMAT = "highway-referee dice profile"
# 2: `delta` corrects the reader's own class probabilities (their logits) instead of replacing the
# last layer for a second reading of another box. A version-1 file holds the same kind of change, fit
# the old way, and is read as a correction too (it moves the reading the way it was taught to)
VERSION = 2
READS = (1, 2)
VIEWS = 4  # turned copies whose embeddings are averaged (a die's value does not turn with its picture)
# the guard: a die is read with the profile only when its centred embedding has a cosine similarity of
# at least NEAR with some taught proposal. Set before measuring (docs/vision/dice.md); at 0.8 a profile
# of other dice already cost a point of value accuracy on some sets
NEAR = 0.9
# the last-layer fit: cross-entropy on the taught proposals plus RIDGE x the squared change, so a few
# dice move the layer a little, not to a new one; the bias stays (moving it would shift every die,
# untaught values included)
RIDGE = 0.3
STEPS = 300


def file_sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


class EmbeddingNet:
    """The crop network with the input of its last (Gemm/MatMul) layer as a second output."""

    def __init__(self, path: Path | str = DEFAULT_CROP_MODEL) -> None:
        try:
            import onnx
            import onnxruntime as ort
        except ImportError as exc:
            raise VisionError(f"dice profiles need the onnx and onnxruntime packages ({exc})") from None
        self.path = Path(path)
        try:
            model = onnx.load(str(self.path))
        except Exception as exc:  # a missing, truncated or foreign file
            raise VisionError(f"{self.path}: cannot read this crop model: {exc}") from None
        graph = model.graph
        out = graph.output[0].name
        last = next((n for n in graph.node if out in n.output), None)
        if last is None or last.op_type not in ("Gemm", "MatMul"):
            raise VisionError(f"{self.path}: its last layer is not a linear layer, so it has no embedding "
                              "to adapt")
        self.feature = str(last.input[0])
        self.weight, self.bias = _linear(model, last)
        graph.output.append(onnx.ValueInfoProto(name=self.feature))
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        self._sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
        self._input = self._sess.get_inputs()[0].name
        shape = self._sess.get_inputs()[0].shape
        self.size = int(shape[-1]) if isinstance(shape[-1], int) else 48

    def embed(self, image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N, D) embeddings (mean over VIEWS turned crops) and (N, 7) mean class probabilities."""
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        if not len(boxes):
            return np.zeros((0, self.weight.shape[1])), np.zeros((0, 7), np.float32)
        views = dihedral_stack(box_crops(image, boxes, self.size), VIEWS)
        k, n = views.shape[:2]
        blob = np.ascontiguousarray(views.reshape(k * n, self.size, self.size, 3).transpose(0, 3, 1, 2),
                                    np.float32)
        logits, feats = self._sess.run([self._sess.get_outputs()[0].name, self.feature], {self._input: blob})
        feats = np.asarray(feats, np.float64).reshape(k, n, -1).mean(axis=0)
        proba = softmax(np.asarray(logits)[:, :7]).reshape(k, n, 7).mean(axis=0)
        return feats, proba


def _linear(model: Any, node: Any) -> tuple[np.ndarray, np.ndarray]:
    """(7, D) weight and (7,) bias of the last layer's class rows (a Gemm with or without transB)."""
    from onnx import numpy_helper

    init = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    try:
        w = np.asarray(init[node.input[1]], np.float64)
        b = np.asarray(init[node.input[2]], np.float64) if len(node.input) > 2 else np.zeros(w.shape[0])
    except KeyError:
        raise VisionError("the crop model's last layer has no stored weights to adapt") from None
    trans_b = any(a.name == "transB" and a.i for a in node.attribute)
    if node.op_type == "MatMul" or not trans_b:
        w = w.T
    return w[:7].copy(), np.broadcast_to(b, (w.shape[0],))[:7].copy()


def unit(v: np.ndarray) -> np.ndarray:
    return v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-9)


@dataclass
class Reading:
    """What a profile says about some boxes: `applies` where its guard passed (the die is near dice it
    was taught); there `p_die` and, where `value_applies`, `values`/`confidence` replace the default."""

    applies: np.ndarray
    value_applies: np.ndarray
    p_die: np.ndarray
    values: np.ndarray
    confidence: np.ndarray
    similarity: np.ndarray


@dataclass
class DiceProfile:
    delta: np.ndarray  # (7, D) change to the crop network's last layer (rows: not a die, 1..6)
    centre: np.ndarray  # (D,) mean embedding of the taught proposals
    exemplars: np.ndarray  # (N, D) taught proposals' embeddings, centred and unit length
    exemplar_values: np.ndarray  # (N,) their labels: 0 not a die, 1..6
    near: float = NEAR
    keep: float = 0.5
    symbols: dict[int, str] = field(default_factory=dict)  # value -> what its face shows instead of pips
    colours: dict[str, list[int]] = field(default_factory=dict)
    crop_model: str = DEFAULT_CROP_MODEL.name
    crop_model_sha256: str = ""
    feature: str = ""
    taught_on: dict[str, Any] = field(default_factory=dict)
    _net: EmbeddingNet | None = field(default=None, repr=False, compare=False)

    @property
    def counts(self) -> dict[int, int]:
        vals, n = np.unique(self.exemplar_values[self.exemplar_values > 0], return_counts=True)
        return {int(v): int(c) for v, c in zip(vals, n, strict=True)}

    # -- reading -------------------------------------------------------------------------------
    def net(self, crop_model: Path | str | None = None) -> EmbeddingNet:
        if self._net is None:
            path = Path(crop_model) if crop_model else DEFAULT_CROP_MODEL
            if self.crop_model_sha256 and path.is_file() and file_sha256(path) != self.crop_model_sha256:
                raise VisionError(f"this dice profile was taught with another crop model than {path.name}: "
                                  "teach it again (`highway-referee teach dice`)")
            net = EmbeddingNet(path)
            if net.weight.shape != self.delta.shape:
                raise VisionError(f"this dice profile does not fit the crop model {path.name}: "
                                  "teach it again")
            self._net = net
        return self._net

    def read(self, image: np.ndarray, boxes: np.ndarray) -> Reading:
        """The profile's reading of boxes: the crop network's own (turned views) corrected."""
        feats, proba = self.net().embed(image, boxes)
        return self.judge(feats, proba)

    def judge(self, feats: np.ndarray, base: np.ndarray) -> Reading:
        """`base` (N, 7): the crop network's class probabilities for these dice; the profile's reading
        is them with the learned change added to their logits, so a change of zero reads as `base`."""
        n = len(feats)
        if not n:
            z = np.zeros(0, np.float32)
            return Reading(np.zeros(0, bool), np.zeros(0, bool), z, np.zeros(0, np.int32), z, z)
        proba = corrected(base, feats, self.delta)
        sim = (unit(feats - self.centre) @ self.exemplars.T).max(axis=1)
        applies = sim >= self.near
        values = proba[:, 1:].argmax(axis=1) + 1
        taught = np.isin(values, self.exemplar_values[self.exemplar_values > 0])
        p_die = 1.0 - proba[:, 0]
        conf = proba[np.arange(n), values] / np.maximum(p_die, 1e-6)
        return Reading(applies, applies & taught, p_die.astype(np.float32), values.astype(np.int32),
                       conf.astype(np.float32), sim.astype(np.float32))

    def adapt(self, image: np.ndarray, xyxy: np.ndarray, proba: np.ndarray,
              default_keep: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The crop reader's verdict on proposals (from its class probabilities `proba`: keep, value,
        confidence) adapted: near taught dice, the corrected probabilities decide whether it is a die
        (at the set's threshold) and, for a value that was taught, which value; elsewhere the default
        verdict stands."""
        p_die, values, vconf = verdict(proba)
        keep = p_die >= default_keep
        idx = np.flatnonzero(p_die >= min(SCREEN, default_keep))
        if len(idx):
            feats, _ = self.net().embed(image, xyxy[idx])
            r = self.judge(feats, proba[idx])
            on = idx[r.applies]
            keep[on] = r.p_die[r.applies] >= self.keep
            val = idx[r.value_applies]
            values[val] = r.values[r.value_applies]
            vconf[val] = r.confidence[r.value_applies]
        return keep, values, vconf

    def save(self, path: Path) -> None:
        save_profile(self, path)

def _arr(v: np.ndarray, digits: int = 5) -> list:
    return np.round(np.asarray(v, np.float64), digits).tolist()


def profile_json(p: DiceProfile) -> dict[str, Any]:
    return {
        "format": FORMAT, "version": VERSION,
        "crop_model": p.crop_model, "crop_model_sha256": p.crop_model_sha256, "feature": p.feature,
        "taught_on": p.taught_on, "dice_per_value": {str(k): v for k, v in p.counts.items()},
        "symbols": {str(k): v for k, v in sorted(p.symbols.items())}, "colours": p.colours,
        "keep": round(float(p.keep), 4), "near": float(p.near),
        "delta": _arr(p.delta, 6), "centre": _arr(p.centre),
        "exemplars": _arr(p.exemplars, 4), "exemplar_values": [int(v) for v in p.exemplar_values],
    }


def save_profile(p: DiceProfile, path: Path) -> None:
    # the same whole-or-nothing write as calibrations and poses: a crash leaves no half profile
    write_json(path, profile_json(p), indent=None)


def load_profile(path: Path | str) -> DiceProfile:
    """Read a profile file; VisionError naming the file on anything malformed."""
    path = Path(path)
    data = read_json_object(path, "dice profile")
    if data.get("format") != FORMAT:
        raise VisionError(f"{path}: not a dice profile (made by `highway-referee teach dice`)")
    if data.get("version") not in READS:
        raise VisionError(f"{path}: dice profile version {data.get('version')!r}; this referee reads "
                          f"versions {', '.join(map(str, READS))}: teach it again (`highway-referee "
                          "teach dice`)")
    try:
        delta = np.asarray(data["delta"], np.float64)
        centre = np.asarray(data["centre"], np.float64)
        ex = unit(np.asarray(data["exemplars"], np.float64))
        ev = np.asarray(data["exemplar_values"], np.int32)
        d = centre.shape[0] if centre.ndim == 1 else -1
        if delta.shape != (7, d) or ex.ndim != 2 or ex.shape[1] != d or ev.shape != (len(ex),):
            raise ValueError("its arrays do not fit together")
        if not len(ev) or ev.min() < 0 or ev.max() > 6:
            raise ValueError("exemplar values must be 0..6, at least one")
        keep, near = float(data.get("keep", 0.5)), float(data.get("near", NEAR))
        if not 0.0 < keep < 1.0 or not -1.0 <= near <= 1.0:
            raise ValueError(f"keep {keep} or near {near} out of range")
        return DiceProfile(
            delta=delta, centre=centre, exemplars=ex, exemplar_values=ev, near=near, keep=keep,
            symbols={int(k): str(v) for k, v in (data.get("symbols") or {}).items()},
            colours={str(k): [int(c) for c in v][:3] for k, v in (data.get("colours") or {}).items()},
            crop_model=str(data.get("crop_model", "")),
            crop_model_sha256=str(data.get("crop_model_sha256", "")),
            feature=str(data.get("feature", "")), taught_on=dict(data.get("taught_on") or {}))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise VisionError(f"{path}: malformed dice profile: {exc}") from None


def corrected(base: np.ndarray, feats: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """Class probabilities `base` with the last-layer change's logits `feats @ delta.T` added."""
    return softmax(np.log(np.maximum(np.asarray(base, np.float64), 1e-9)) + feats @ delta.T)


def fit_delta(feats: np.ndarray, labels: np.ndarray, base: np.ndarray, ridge: float = RIDGE,
              steps: int = STEPS) -> np.ndarray:
    """The last-layer change: gradient descent on the mean cross-entropy of the corrected `base`
    probabilities + ridge * |change|^2 (numpy). Taught dice the network already reads surely move it
    little: the change is what the set needs beyond the default reading."""
    y = np.eye(7)[labels]
    scale = max(float(np.mean(np.sum(feats ** 2, axis=1))), 1e-9)  # step size for the features' size
    delta = np.zeros((7, feats.shape[1]))
    for _ in range(steps):
        p = corrected(base, feats, delta)
        grad = (p - y).T @ feats / len(feats) + ridge * delta
        delta -= 0.5 * grad / scale
    return delta


def fit_profile(net: EmbeddingNet, feats: np.ndarray, labels: np.ndarray, base: np.ndarray,
                **meta: Any) -> DiceProfile:
    """A profile from taught proposals: their embeddings, labels (0 not a die, 1..6) and the crop
    network's class probabilities for them (what the profile corrects)."""
    labels = np.asarray(labels, np.int32)
    if not (labels > 0).any():
        raise VisionError("no die was found on the teaching photos, so there is nothing to learn")
    centre = feats.mean(axis=0)
    profile = DiceProfile(delta=fit_delta(feats, labels, base), centre=centre,
                          exemplars=unit(feats - centre), exemplar_values=labels, **meta)
    profile._net = net
    return profile
