"""The compiled robust line fit (vision/tokyo/line_fit.py) gives OpenCV's `cv2.fitLine(points,
DIST_HUBER, 0, 0.01, 0.01)` bit for bit, and the stick pass uses it."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from vision.tokyo import line_fit  # noqa: E402
from vision.tokyo import sticks as sticks_mod  # noqa: E402


def _bits(line: tuple[float, ...]) -> bytes:
    return np.asarray(line, np.float32).tobytes()


def _band(rng: np.random.Generator, count: int, width: float) -> np.ndarray:
    """`count` points along a random segment, spread `width` px across it (a rod's core)."""
    ang, length = rng.uniform(0, np.pi), rng.uniform(5, 400)
    t, off = rng.uniform(0, length, count), rng.normal(0, width, count)
    cx, cy = rng.uniform(0, 1000, 2)
    return np.stack([cx + t * np.cos(ang) - off * np.sin(ang), cy + t * np.sin(ang) + off * np.cos(ang)], 1)


@pytest.mark.parametrize("seed", range(4))
def test_same_floats_as_opencv_on_made_up_points(seed: int) -> None:
    assert line_fit.load() is not None
    rng = np.random.default_rng(seed)
    for trial in range(150):
        count = int(rng.choice([2, 3, 7, 10, 11, 40, 300, 2500]))
        pts = _band(rng, count, rng.uniform(0, 6))
        kind = trial % 6
        if kind == 1:
            pts = np.round(pts)  # the pixel grid, as a stick's core comes
        elif kind == 2:
            k = max(1, count // 5)
            pts[:k] = rng.uniform(0, 1000, (k, 2))  # a column or a crossing beside the rod
        elif kind == 3:
            pts = np.round(pts)
            pts[:, 1] = pts[0, 1]  # exactly on a row: every distance 0, the fit stops early
        elif kind == 4:
            pts = np.round(pts)
            pts[:, 0] = pts[0, 0]  # on a column
        elif kind == 5:
            pts = np.repeat(np.round(pts[: max(1, count // 3)]), 3, 0)  # repeated points
        q = pts.astype(np.float32)
        assert _bits(line_fit.huber_fit(q)) == _bits(line_fit.opencv_fit(q)), (seed, trial, count)


def test_same_floats_on_a_recorded_view() -> None:
    """Every run the stick pass fits on a recorded view of the bundled match (the compiled fit and
    OpenCV's, the sticks read the same)."""
    from referee_app.demo import bundled_demos
    from vision.tokyo.foreground import pieces_masks
    from vision.tokyo.reader import STICK_BRIGHT

    demo = next((d for d in bundled_demos() if d.game == "tokyo-highway"), None)
    if demo is None:
        pytest.skip("no bundled Tokyo Highway match")
    frames = list(demo.frames(realtime=False))
    image = frames[min(38, len(frames) - 1)].image  # a late scene: many sticks
    (fg_rods,), _ = pieces_masks(image, (STICK_BRIGHT,))
    fitted: list[np.ndarray] = []
    real = line_fit.huber_fit

    def spy(q: np.ndarray) -> tuple[float, float, float, float]:
        fitted.append(q.copy())
        return real(q)

    line_fit.huber_fit = spy  # type: ignore[assignment]
    try:
        compiled, hw = sticks_mod.detect_sticks(image, fg_rods)
    finally:
        line_fit.huber_fit = real  # type: ignore[assignment]
    assert len(fitted) >= 4
    for q in fitted:
        assert _bits(line_fit.huber_fit(q)) == _bits(line_fit.opencv_fit(q))
    line_fit.huber_fit = line_fit.opencv_fit  # type: ignore[assignment]
    try:
        plain, hw2 = sticks_mod.detect_sticks(image, fg_rods)
    finally:
        line_fit.huber_fit = real  # type: ignore[assignment]
    assert hw == hw2 and len(plain) == len(compiled)
    for a, b in zip(plain, compiled, strict=True):
        assert a.p0.tobytes() == b.p0.tobytes() and a.p1.tobytes() == b.p1.tobytes()


def test_stick_pass_fits_without_opencv(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stick pass's fits go through the compiled fit, not `cv2.fitLine` (which main called)."""

    def refuse(*_: object) -> None:
        raise AssertionError("cv2.fitLine called")

    monkeypatch.setattr(sticks_mod.cv2, "fitLine", refuse)
    monkeypatch.setattr(line_fit.cv2, "fitLine", refuse)
    q = np.round(_band(np.random.default_rng(7), 800, 2.0)).astype(np.float32)
    with sticks_mod.fit_memo(sticks_mod.FitMemo()):
        vx, vy, x0, y0 = sticks_mod._fit_line(q)
    assert abs(np.hypot(vx, vy) - 1) < 1e-5


def test_pure_setting_uses_opencv(monkeypatch: pytest.MonkeyPatch) -> None:
    """PURE_ENV set: no compiled fit, OpenCV's answer."""
    monkeypatch.setenv(line_fit.PURE_ENV, "1")
    monkeypatch.setattr(line_fit, "_loaded", {})
    assert line_fit.load() is None
    q = np.round(_band(np.random.default_rng(3), 300, 2.0)).astype(np.float32)
    assert _bits(line_fit.huber_fit(q)) == _bits(line_fit.opencv_fit(q))
