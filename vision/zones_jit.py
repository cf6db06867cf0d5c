"""Two loops of the dice zone reader (vision/zones.py) compiled with numba (optional: the `fast` extra,
`pip install numba`), each the very same float32 operations per pixel in the same order as the
NumPy/OpenCV code it stands in for, so every result is the same bit for bit. numba compiles without
fast-math: nothing is fused (no multiply-add) or reordered.

- `tail()`: the last steps of the per-pixel normalisation (`_prep_exact`): from the blurred view `g`,
  the region mean `mean` and mean of squares `sq` (OpenCV's box filters, left as they are),
  `(g - mean) / sqrt(max(sq - mean * mean, 144))`: six OpenCV passes over the view, each reading and
  writing whole float32 views, become one (on the 1188 x 840 sheet view their memory traffic, not
  the arithmetic, was most of their cost). Each step is rounded to float32 as OpenCV rounds it; the
  square root and the quotient are IEEE's correctly rounded ones in both.
- `refresh()`: the empty sheet's refreshes (`ZoneDiceReader._apply_refreshes`): `ref += 0.25 * (obs
  - ref)` over each empty zone's window in turn, where no die is held: ~120 windows a frame, each
  five NumPy calls on a small strided slice (their per-call overhead was most of the cost). The
  windows overlap, so they are applied in the same order, one after another.

`tail()` and `refresh()` give the compiled functions, or None where numba is missing or PURE_ENV is
set (the NumPy/OpenCV code stays). The first use on a machine compiles for a few seconds; numba caches
the result beside this module (or in its user-wide cache), so later processes load it in well under
a second. tests/test_dice_prep_fast.py compares both ways on real frames.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from vision.compiled import compiled_once

PURE_ENV = "HIGHWAY_REFEREE_PURE_ZONES"  # set (not "0"): the NumPy/OpenCV code, no numba

_loaded: dict[str, Any] = {}


def _compile() -> dict[str, Any]:
    try:  # numba is an optional speed-up, never a requirement
        import numba
    except ImportError:  # pragma: no cover - exercised where numba is absent
        return {}
    f32 = np.float32
    jit = numba.njit(cache=True, nogil=True, boundscheck=False)

    @jit
    def normalise(g: Any, mean: Any, sq: Any, out: Any) -> None:  # pragma: no cover - compiled
        h, w = g.shape
        floor = f32(144.0)
        for y in range(h):
            for x in range(w):
                m = mean[y, x]
                v = f32(sq[y, x] - f32(m * m))
                out[y, x] = f32(g[y, x] - m) / np.sqrt(max(v, floor))

    @jit
    def blend(ref: Any, obs: Any, held: Any, windows: Any) -> None:  # pragma: no cover - compiled
        quarter = f32(0.25)
        for k in range(windows.shape[0]):
            x0, y0, x1, y1 = windows[k, 0], windows[k, 1], windows[k, 2], windows[k, 3]
            for y in range(y0, y1):
                for x in range(x0, x1):
                    if not held[y, x]:
                        r = ref[y, x]
                        ref[y, x] = f32(r + f32(f32(obs[y, x] - r) * quarter))

    return {"tail": normalise, "refresh": blend}


def _kernels() -> dict[str, Any]:
    """The compiled kernels, compiled (or loaded) and warmed once per process; empty without numba
    or with PURE_ENV set."""
    def warm(kernels: dict[str, Any]) -> None:
        one = np.ones((2, 2), np.float32)
        kernels["tail"](one, one, one, np.empty_like(one))
        kernels["refresh"](one.copy(), one, np.zeros((2, 2), bool), np.array([[0, 0, 2, 2]], np.intp))

    return compiled_once(_loaded, "kernels", PURE_ENV, _compile, warm, absent={})


def tail() -> Callable[..., None] | None:
    """`normalise(g, mean, sq, out)`: float32 views of one shape (`out` written)."""
    return _kernels().get("tail")


def refresh() -> Callable[..., None] | None:
    """`blend(ref, obs, held, windows)`: `ref` and `obs` float32 views of one shape, `held` a bool
    view of it (pixels left alone), `windows` an (n, 4) intp array of x0, y0, x1, y1, applied in order."""
    return _kernels().get("refresh")
