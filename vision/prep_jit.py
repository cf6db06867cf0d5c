"""The last steps of the dice reader's per-pixel normalisation (`vision.zones._prep_exact`) in one
compiled pass (optional: numba, the `fast` extra).

From the region mean `mean` and the region mean of squares `sq` (OpenCV's box filters, left as they
are) `_prep_exact` makes `(g - mean) / sqrt(max(sq - mean * mean, 144))` in six OpenCV passes over
the view, each reading and writing whole float32 views: on the dice road's 1188 x 840 sheet view that
memory traffic, not the arithmetic, is most of their cost. Here each pixel goes through the very same
float32 operations in the same order (a product, a difference, a maximum, a correctly rounded square
root, a difference and a correctly rounded quotient, each rounded to float32 as OpenCV rounds it), so
the result is the same bit for bit; numba compiles without fast-math, so nothing is fused or
reordered. tests/test_dice_prep_fast.py compares the two on real frames.

`tail()` gives the compiled function, or None where numba is missing or PURE_ENV is set (OpenCV's
passes stay). The first use on a machine compiles for a few seconds; numba caches the result beside
this module (or in its user-wide cache), so later processes load it in well under a second.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

PURE_ENV = "HIGHWAY_REFEREE_PURE_PREP"  # set (not "0"): OpenCV's passes, no numba

_loaded: dict[str, Any] = {}


def _compile() -> Callable[..., None] | None:
    try:  # numba is an optional speed-up, never a requirement
        import numba
    except ImportError:  # pragma: no cover - exercised where numba is absent
        return None
    f32 = np.float32

    @numba.njit(cache=True, nogil=True, boundscheck=False)
    def normalise(g: Any, mean: Any, sq: Any, out: Any) -> None:  # pragma: no cover - compiled
        h, w = g.shape
        floor = f32(144.0)
        for y in range(h):
            for x in range(w):
                m = mean[y, x]
                v = f32(sq[y, x] - f32(m * m))
                out[y, x] = f32(g[y, x] - m) / np.sqrt(max(v, floor))

    return normalise


def tail() -> Callable[..., None] | None:
    """`normalise(g, mean, sq, out)` (float32 views of one shape, C-contiguous: `out` written), compiled
    and warmed once per process; None without numba or with PURE_ENV set."""
    if "fn" not in _loaded:
        fn = None
        if os.environ.get(PURE_ENV, "") in ("", "0"):
            fn = _compile()
            if fn is not None:
                one = np.ones((2, 2), np.float32)
                fn(one, one, one, np.empty_like(one))
        _loaded["fn"] = fn
    return _loaded["fn"]
