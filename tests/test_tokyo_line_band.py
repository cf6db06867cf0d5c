"""The stick pass's compiled band counts (vision/tokyo/line_band.py) never count fewer core pixels than
the run search's own band holds, so the lines they give up on are lines the search gives up on; the
sticks found are the same with them and without."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from vision.tokyo import line_band  # noqa: E402
from vision.tokyo import sticks as sticks_mod  # noqa: E402


def _exact(pts: np.ndarray, claimed: np.ndarray, n: np.ndarray, c: float, width: float) -> tuple[int, int]:
    band = np.abs(pts @ n - c) <= width  # the run search's own band (sticks._run_on_line)
    return int(np.count_nonzero(band)), int(np.count_nonzero(band & ~claimed))


@pytest.mark.parametrize("seed", range(3))
def test_counts_cover_the_exact_band(seed: int) -> None:
    rng = np.random.default_rng(seed)
    pts = rng.integers(0, 1280, (20000, 2)).astype(np.float32)
    pts[:, 1] %= 720
    cols = line_band.columns(pts)
    assert cols is not None
    tight = 0
    for _ in range(300):
        theta = float(rng.uniform(0, np.pi))
        n = np.array([np.cos(theta), np.sin(theta)], np.float32)
        claimed = rng.random(len(pts)) < rng.uniform(0, 1)
        width = float(rng.choice([1.5, 2.4, 4.2, 7.9]))
        c = float(pts[rng.integers(len(pts))] @ n) + float(rng.choice([0.0, width, -width]))  # edges on pixels
        whole, free = _exact(pts, claimed, n, c, width)
        most_whole, most_free = line_band.band_counts(cols, claimed, n, c, width)
        assert most_whole >= whole and most_free >= free
        tight += most_whole - whole <= max(2, whole // 10)  # a bound, but a close one
    assert tight > 250


def test_same_sticks_with_and_without_the_counts() -> None:
    """A recorded scene's stick pass (counts asked for every Hough line) finds the same sticks with the
    compiled counts as without them."""
    from referee_app.demo import bundled_demos
    from vision.tokyo.foreground import pieces_masks
    from vision.tokyo.reader import STICK_BRIGHT

    demo = next((d for d in bundled_demos() if d.game == "tokyo-highway"), None)
    if demo is None:
        pytest.skip("no bundled Tokyo Highway match")
    frames = list(demo.frames(realtime=False))
    image = frames[min(38, len(frames) - 1)].image
    (fg,), _ = pieces_masks(image, (STICK_BRIGHT,))
    counted: list[tuple[int, int]] = []
    real = line_band.band_counts

    def spy(*args: object) -> tuple[int, int]:
        got = real(*args)  # type: ignore[arg-type]
        counted.append(got)
        return got

    line_band.band_counts = spy  # type: ignore[assignment]
    try:
        fast, hw = sticks_mod.detect_sticks(image, fg)
    finally:
        line_band.band_counts = real  # type: ignore[assignment]
    assert len(counted) > 50
    kept = line_band._loaded["counts"]
    line_band._loaded["counts"] = None  # as without numba: every line's band built
    try:
        plain, hw2 = sticks_mod.detect_sticks(image, fg)
    finally:
        line_band._loaded["counts"] = kept
    assert hw == hw2 and len(fast) == len(plain) > 3
    for a, b in zip(fast, plain, strict=True):
        assert a.p0.tobytes() == b.p0.tobytes() and a.p1.tobytes() == b.p1.tobytes()
