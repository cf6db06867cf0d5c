"""How many of the stick pass's core pixels lie in a Hough line's band, counted in one compiled pass
(numba, optional: the `fast` extra), as an upper bound that lets the run search skip a line early.

`sticks._run_on_line` takes every core pixel within a band of the line (`|p . n - c| <= width`, the
projections by NumPy's float32 matrix product), and gives up at once when the band holds fewer pixels
than a stick's worth, or fewer unclaimed ones than a new stick needs: nine lines in ten on a busy
table. Those five whole-core array passes (tens of thousands of pixels, thousands of lines a scene)
were about a tenth of the referee loop's CPU. `band_counts` counts the same band widened by `SLACK`
pixels in one pass over the points' x and y columns (float32, so the loop runs on vectors): its
rounding and that of NumPy's product differ by far less than the slack (thousandths of a pixel on a
frame's coordinates), so every pixel of the exact band is counted, and a count under what the run
search needs means the exact band's is too. A line not skipped so is searched exactly as before:
the counts only ever skip lines the search would have given up on.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vision.compiled import compiled_once
from vision.tokyo.line_fit import PURE_ENV

SLACK = 0.05  # px added to the band's half-width: float32 rounding on the frame's coordinates is < 0.002

_loaded: dict[str, Any] = {}


def _compile() -> Any:
    try:  # numba is an optional speed-up, never a requirement
        import numba
    except ImportError:  # pragma: no cover - exercised where numba is absent
        return None

    @numba.njit(cache=True, nogil=True, boundscheck=False, error_model="numpy")
    def counts(xs: Any, ys: Any, claimed: Any, nx: Any, ny: Any, c: Any,  # pragma: no cover - compiled
               reach: Any) -> Any:
        whole = 0
        free = 0
        for i in range(xs.shape[0]):  # no branch: the loop runs on vectors
            inside = 1 if abs(xs[i] * nx + ys[i] * ny - c) <= reach else 0
            whole += inside
            free += inside * (1 - claimed[i])
        return whole, free

    return counts


def load() -> Any:
    """The compiled counter (compiled or loaded from numba's cache once per process), or None without
    numba or with PURE_ENV set."""
    def warm(counts: Any) -> None:
        one = np.zeros(2, np.float32)
        counts(one, one, np.zeros(2, np.uint8), *(np.float32(v) for v in (1, 0, 0, 1)))

    return compiled_once(_loaded, "counts", PURE_ENV, _compile, warm)


def columns(pts: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The x and y columns of (N, 2) float32 points, each contiguous (what `band_counts` reads); None
    without the compiled counter or for other points."""
    if load() is None or pts.dtype != np.float32 or pts.ndim != 2 or pts.shape[1] != 2:
        return None
    return np.ascontiguousarray(pts[:, 0]), np.ascontiguousarray(pts[:, 1])


def band_counts(cols: tuple[np.ndarray, np.ndarray], claimed: np.ndarray, n: np.ndarray, c: float,
                width: float) -> tuple[int, int]:
    """At least how many of the points (`columns(pts)`) lie within `width` of the line `p . n = c`
    (`n` float32), and how many of those `claimed` (bool, one per point) leaves: counts of the band
    widened by SLACK, so never fewer than the exact band holds."""
    f32 = np.float32
    return _loaded["counts"](cols[0], cols[1], claimed.view(np.uint8), f32(n[0]), f32(n[1]), f32(c),
                             f32(width + SLACK))
