"""The piece masks' compiled per-pixel pass (issue #24, vision/tokyo/classify_jit.py): `_classify` with it
gives the masks its NumPy/OpenCV passes give (and the plain 3-channel computation from before both,
copied here), bit for bit: on the recorded match's frames, on noisy made-up frames against uneven
planes, and on pixels that sit exactly on a threshold (where comparing in float64 instead of float32
would set them)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee_app.demo import DEMO_ROOT
from vision.tokyo import classify_jit
from vision.tokyo.channels import channel_max
from vision.tokyo.faint_sticks import FAINT_CHROMA
from vision.tokyo.foreground import BRIGHT, CHROMA, _classify, estimate_table
from vision.tokyo.reader import STICK_BRIGHT

DEMO = DEMO_ROOT / "tokyo-highway"
FRAMES = ("000.jpg", "011.jpg", "021.jpg", "028.jpg", "camera2/014.jpg", "camera2/028.jpg")
GAINS = (BRIGHT, STICK_BRIGHT, STICK_BRIGHT)
CHROMAS = (CHROMA, CHROMA, FAINT_CHROMA)

pytestmark = pytest.mark.skipif(classify_jit.load() is None, reason="no numba (or PURE_ENV set)")


def _plain(image: np.ndarray, cbs: tuple[np.ndarray, ...], sb: np.ndarray, gains: tuple[float, ...],
           chromas: tuple[float, ...]) -> list[np.ndarray]:
    """The masks as the 3-channel computation made them (before the channel planes and this pass)."""
    f = cv2.add(cv2.GaussianBlur(image, (5, 5), 1.2), (4.0, 4.0, 4.0, 0.0), dtype=cv2.CV_32F)
    sf = cv2.transform(f, np.ones((1, 3), np.float32))
    np.divide(f, cv2.merge((sf, sf, sf)), out=f)
    chroma = channel_max(cv2.absdiff(f, cv2.merge(cbs), dst=f))
    ratio = sf / sb
    dark = ratio < 0.38
    out = []
    for bright, chroma_min in zip(gains, chromas, strict=True):
        fg = ((chroma > chroma_min) | (ratio > bright) | dark).astype(np.uint8) * 255
        fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        out.append(cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)))
    return out


def _both(monkeypatch: pytest.MonkeyPatch, image: np.ndarray, cbs: tuple[np.ndarray, ...], sb: np.ndarray,
          gains: tuple[float, ...] = GAINS, chromas: tuple[float, ...] = CHROMAS) -> tuple[list, list]:
    fast = [m.copy() for m in _classify(image, cbs, sb, gains, chromas)]
    with monkeypatch.context() as m:
        m.setitem(classify_jit._loaded, "masks", None)  # the NumPy/OpenCV passes
        slow = _classify(image, cbs, sb, gains, chromas)
    return fast, slow


def _same(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return len(a) == len(b) and all(x.dtype == y.dtype and np.array_equal(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("name", FRAMES)
def test_recorded_frames_give_the_same_masks(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    image = cv2.imread(str(DEMO / name), cv2.IMREAD_COLOR)
    if image is None:
        pytest.skip(f"{name} not bundled")
    est = estimate_table(image)
    for shape in (image.shape[:2], (image.shape[0] // 2, image.shape[1] // 2)):  # the estimate's masks too
        im = image if shape == image.shape[:2] else cv2.resize(image, shape[::-1], interpolation=cv2.INTER_AREA)
        cbs, sb = est.chroma_planes(shape)
        fast, slow = _both(monkeypatch, im, cbs, sb)
        assert _same(fast, slow)
        assert _same(fast, _plain(im, cbs, sb, GAINS, CHROMAS))
        if name != "000.jpg":  # (the empty table's first frame may show no piece)
            assert any(m.any() for m in fast) and not all(m.all() for m in fast)


def test_noisy_frames_against_uneven_planes(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(7)
    for h, w in ((64, 96), (37, 53), (1, 5)):
        image = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        raw = rng.uniform(0.2, 0.5, (h, w, 3)).astype(np.float32)
        cbs = tuple(np.ascontiguousarray(raw[..., k] / raw.sum(2)) for k in range(3))
        sb = rng.uniform(30, 800, (h, w)).astype(np.float32)
        for gains, chromas in ((GAINS, CHROMAS), ((1.05,), (0.05,)), ((2.0, 1.0), (0.001, 0.3))):
            fast, slow = _both(monkeypatch, image, cbs, sb, gains, chromas)
            assert _same(fast, slow)
            assert _same(fast, _plain(image, cbs, sb, gains, chromas))


def _ratio_tie(s: np.float32, t: float) -> np.float32:
    """A table brightness sum sb with s / sb == float32(t) exactly, in float32."""
    sb = np.float32(s / np.float32(t))
    for _ in range(200):
        q = np.float32(s / sb)
        if q == np.float32(t):
            return sb
        sb = np.nextafter(sb, np.float32(np.inf if q > np.float32(t) else -np.inf), dtype=np.float32)
    raise AssertionError("no tie found")


def _chroma_tie(c: np.float32, t: float) -> np.float32:
    """A table chromaticity cb with |c - cb| == float32(t) exactly, in float32 (cb under c)."""
    cb = np.float32(c - np.float32(t))
    for _ in range(200):
        d = np.float32(abs(np.float32(c - cb)))
        if d == np.float32(t):
            return cb
        cb = np.nextafter(cb, np.float32(np.inf if d > np.float32(t) else -np.inf), dtype=np.float32)
    raise AssertionError("no tie found")


def test_pixels_on_the_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of one colour (blurred, a block's middle rows stay themselves) against planes set so that
    their pixels sit exactly on a gain, a chromaticity threshold or the dark ratio. float32(1.2),
    float32(0.024) > the Python float and float32(0.38) < it: a pass comparing in float64 would make
    those blocks pieces; in float32, as NumPy compares, a tie is no piece (strict comparisons)."""
    ties = [(BRIGHT, "ratio", (100, 100, 100)), (STICK_BRIGHT, "ratio", (100, 100, 100)),
            (0.38, "ratio", (100, 100, 100)), (CHROMA, "chroma", (12, 200, 200)),
            (FAINT_CHROMA, "chroma", (4, 200, 200))]
    rows = 8
    h, w = rows * len(ties), 40
    image = np.zeros((h, w, 3), np.uint8)
    cbs = tuple(np.zeros((h, w), np.float32) for _ in range(3))
    sb = np.zeros((h, w), np.float32)
    middle = np.zeros((h, w), bool)  # the rows the blur leaves as they are
    for k, (t, kind, bgr) in enumerate(ties):
        ys = slice(rows * k, rows * k + rows)
        image[ys] = bgr
        f = [np.float32(v + 4) for v in bgr]
        s = np.float32(np.float32(f[0] + f[1]) + f[2])
        for c in range(3):
            cbs[c][ys] = np.float32(f[c] / s)
        sb[ys] = s
        if kind == "ratio":
            sb[ys] = _ratio_tie(s, t)
        else:
            cbs[0][ys] = _chroma_tie(np.float32(f[0] / s), t)
        middle[rows * k + 2: rows * k + rows - 2] = True
    f64_says = [float(np.float32(BRIGHT)) > BRIGHT, float(np.float32(CHROMA)) > CHROMA,
                float(np.float32(0.38)) < 0.38]
    assert all(f64_says)  # these ties would be pieces if compared in float64
    for gains, chromas in ((GAINS, CHROMAS), ((STICK_BRIGHT,), (FAINT_CHROMA,)), ((BRIGHT,), (CHROMA,))):
        fast, slow = _both(monkeypatch, image, cbs, sb, gains, chromas)
        assert _same(fast, slow)
        assert _same(fast, _plain(image, cbs, sb, gains, chromas))
    for k, (t, kind, _) in enumerate(ties):  # each tie alone against its own threshold: no piece
        gain = t if kind == "ratio" and t > 1 else 10.0
        chroma_min = t if kind == "chroma" else 1.0
        fast, slow = _both(monkeypatch, image, cbs, sb, (gain,), (chroma_min,))
        assert _same(fast, slow)
        block = middle.copy()
        block[: rows * k] = block[rows * k + rows:] = False
        assert not fast[0][block].any()


def test_other_thresholds_take_the_numpy_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A NumPy float64 threshold is compared in float64 by NumPy: the compiled pass is not used."""
    image = cv2.imread(str(DEMO / "021.jpg"), cv2.IMREAD_COLOR)
    est = estimate_table(image)
    cbs, sb = est.chroma_planes(image.shape[:2])
    calls = []
    real = classify_jit.load()
    monkeypatch.setitem(classify_jit._loaded, "masks", lambda *a: calls.append(1) or real(*a))
    _classify(image, cbs, sb, (np.float64(BRIGHT),), (CHROMA,))
    assert not calls
    _classify(image, cbs, sb, (BRIGHT,), (CHROMA,))
    assert calls == [1]
