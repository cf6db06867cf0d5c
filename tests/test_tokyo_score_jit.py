"""A build candidate's pixel sums in one compiled pass (issue 24, branch tokyospeed,
vision/tokyo/score_jit.py): `footprint_scores` with it gives the scores NumPy's own gathers, sums and
bincounts give, bit for bit - NumPy's pairwise float32 summation at every length (the block of eight
accumulators, the split halves above 128 values, the +0.0 the reduction starts from, -0.0 pixels),
and random footprints, maps, roads and known junction tops. Real candidates (tuning seed 116's knocked
frames, thousands of them) are compared in tests/test_tokyo_footprints.py."""

from __future__ import annotations

import numpy as np
import pytest

from vision.tokyo import score_jit

pytestmark = pytest.mark.skipif(score_jit.compiled_sums() is None, reason="no numba (or PURE_ENV set)")


def _bits(v: float) -> bytes:
    return np.float64(v).tobytes()


def test_the_compiled_sum_is_numpys_float32_sum_at_every_length() -> None:
    """One row, every pixel set: `out[ROAD]` is `values.sum()` for lengths 0-700 and a few thousand
    (values of three magnitudes, a third of them -0.0 in some)."""
    sums = score_jit.compiled_sums()
    rng = np.random.default_rng(1)
    for n in [*range(0, 700), *range(700, 6000, 97)]:
        scale = (1.0, 1e3, 1e-3)[n % 3]
        v = (rng.standard_normal(n) * scale).astype(np.float32)
        if n % 2:
            v[rng.random(n) < 0.3] = -0.0
        a = v.reshape(1, n)
        m = np.ones(a.shape, bool)
        out = np.zeros(5, np.float32)
        sums(a, a, a, m, m, m, m, m, m, np.zeros(a.shape, np.uint16), m, m, False, False, False,
             np.empty(max(n, 1), np.float32), out, np.zeros(2, np.int64), np.zeros((4, 1)))
        assert out[score_jit.ROAD].tobytes() == v.sum().tobytes(), n


def _scores(monkeypatch, compiled: bool, *args):
    import vision.tokyo.piece_evidence as pe

    if not compiled:
        monkeypatch.setattr(pe, "_compiled_sums", lambda: None)
    got = pe.footprint_scores(*args)
    monkeypatch.undo()
    return got


def test_footprint_scores_compiled_equal_numpys_on_random_footprints(monkeypatch) -> None:
    """Random windows of random maps (some pixels -0.0), random masks (a junction's masks not nested
    as a drawing nests them), roads with up to five labels or none, known junction tops or none: the
    compiled pass's road, column and total are NumPy's floats. Fails with any sum taken in another
    order (a plain sequential float32 sum, float64 accumulation) or a hidden pixel counted off its
    mask."""
    from vision.tokyo.piece_evidence import Footprint, PieceMaps
    from vision.tokyo.under_roads import RoadPixels

    rng = np.random.default_rng(3)
    hidden_scored = 0
    for trial in range(600):
        h, w = (int(v) for v in rng.integers(5, 90, 2))
        maps = PieceMaps(*[(rng.standard_normal((h + 10, w + 10)) * 2).astype(np.float32) for _ in range(3)])
        for m in (maps.grey, maps.road, maps.yellow):
            m[rng.random(m.shape) < 0.2] = -0.0
        y0, x0 = (int(v) for v in rng.integers(0, 10, 2))
        win = (slice(y0, y0 + h), slice(x0, x0 + w))

        def mask(p: float, h: int = h, w: int = w) -> np.ndarray:
            return rng.random((h, w)) < p

        junction = trial % 2 == 0
        fp = Footprint(win, mask(0.4), mask(0.3), mask(0.3) if junction else None,
                       mask(0.2) if junction else None, mask(0.5), mask(0.4) if junction else None,
                       mask(0.3) if junction and trial % 4 else None, mask(0.2) if junction else None)
        labels = int(rng.integers(1, 6))
        label = (rng.random((h + 10, w + 10)) * labels).astype(np.uint16)
        label[rng.random(label.shape) < 0.3] = 0
        count = np.bincount(label.ravel(), minlength=labels).astype(np.float64) * int(rng.integers(1, 5))
        roads = RoadPixels(label, count * rng.random(len(count)), count) if trial % 3 else None
        known_tops = (rng.random((h + 10, w + 10)) < 0.3) if trial % 5 else None
        junctions = (False, True) if junction else (False,)
        args = (maps, fp, junctions, roads, known_tops)
        with np.errstate(divide="ignore", invalid="ignore"):
            fast, plain = _scores(monkeypatch, True, *args), _scores(monkeypatch, False, *args)
        for f, p in zip(fast, plain, strict=True):
            assert [_bits(f.total), _bits(f.column), _bits(f.road)] == \
                [_bits(p.total), _bits(p.column), _bits(p.road)], trial
        hidden_scored += roads is not None
    assert hidden_scored > 300
