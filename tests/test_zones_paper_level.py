"""`vision.zones_one.paper_level` (a uint8 window's 70th percentile from its histogram) against the numpy
computation it replaces, `float(np.percentile(window.astype(np.float32), 70))`, bit for bit: every window
size up to 3000 pixels (the interpolation fraction depends on the size alone), narrow and wide spreads
of levels, and 2-d windows as count_pips and one_pip_face take them."""

from __future__ import annotations

import numpy as np

from vision.zones_one import paper_level


def _numpy(window: np.ndarray) -> float:
    return float(np.percentile(window.astype(np.float32), 70))


def test_every_size_bit_for_bit() -> None:
    rng = np.random.default_rng(24)
    for n in range(1, 3001):
        lo = int(rng.integers(0, 250))
        for window in (rng.integers(0, 256, n), rng.integers(lo, lo + 6, n)):
            w = window.astype(np.uint8)
            assert np.float64(paper_level(w)).tobytes() == np.float64(_numpy(w)).tobytes(), n


def test_two_dimensional_windows() -> None:
    rng = np.random.default_rng(7)
    for h, w in ((2, 2), (3, 200), (47, 53), (144, 144), (150, 97)):
        window = np.clip(rng.normal(200, 30, (h, w)), 0, 255).astype(np.uint8)
        assert paper_level(window) == _numpy(window)
        assert paper_level(window[::2, 1:]) == _numpy(window[::2, 1:])  # a strided view


def test_other_types_fall_back_to_numpy() -> None:
    window = np.linspace(0.0, 255.0, 101, dtype=np.float32).reshape(1, -1)
    assert paper_level(window) == _numpy(window)
