"""The piece masks' per-pixel test (`foreground._classify`) in one compiled pass (numba, optional: the
`fast` extra), giving the same masks bit for bit in about an eighth of the CPU of that step.

`_classify` compares the blurred frame's chromaticity and brightness with the table estimate's planes:
about twenty whole-frame float32 passes (channels converted, summed, divided, differences, their
maximum, the brightness ratio, one comparison per mask), some 7 ms of a 720p view's reading, twice a
referee frame (two cameras), plus the table estimate's own half-size masks. `masks` does the very
same float32 operations a pixel at a time, in the same order, with no temporaries:

- each channel plus 4 (whole numbers, exact), their sum as (b + g) + r;
- each channel over the sum, its absolute difference from the table's chromaticity plane, the
  largest of the three (`cv2.max` twice: (b, g) then r);
- the brightness ratio (sum over the table's sum), dark below 0.38;
- a mask pixel is set where the chromaticity difference exceeds the mask's threshold, or the ratio its
  gain, or the pixel is dark.

The thresholds are compared in float32, as NumPy compares a float32 array with a Python float (NEP
50: the Python float is cast to the array's type); `foreground._classify` uses this pass only when
they are Python floats. Without numba, or with PURE_ENV set, `_classify` runs its NumPy/OpenCV
passes. tests/test_tokyo_classify_jit.py compares the two on the recorded match's frames, on made-up
frames and at the tie values of every threshold.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vision.compiled import compiled_once
from vision.tokyo.line_fit import PURE_ENV

DARK = 0.38  # brightness ratio under which a pixel is a piece (a shadow only darkens the table so far)

_loaded: dict[str, Any] = {}


def _compile() -> Any:
    try:  # numba is an optional speed-up, never a requirement
        import numba
    except ImportError:  # pragma: no cover - exercised where numba is absent
        return None
    f32 = np.float32
    dark_at = f32(DARK)

    @numba.njit(cache=True, nogil=True, boundscheck=False, error_model="numpy")
    def masks(p0: Any, p1: Any, p2: Any, cb0: Any, cb1: Any, cb2: Any, sb: Any,  # pragma: no cover
              brights: Any, chromas: Any, out: Any, mrow: Any, rrow: Any) -> None:
        """Into `out[k]` (0 / 255): mask k of the blurred frame's planes p0-p2 (uint8) against the table's
        chromaticity planes cb0-cb2 and brightness sum sb (float32); `mrow`, `rrow`: a row's work."""
        h, w = sb.shape
        four = f32(4.0)
        for y in range(h):
            a0, a1, a2 = p0[y], p1[y], p2[y]
            b0, b1, b2, sby = cb0[y], cb1[y], cb2[y], sb[y]
            for x in range(w):  # no branch: the loop runs on vectors
                f0 = f32(a0[x]) + four
                f1 = f32(a1[x]) + four
                f2 = f32(a2[x]) + four
                s = (f0 + f1) + f2
                c0 = abs(f0 / s - b0[x])
                c1 = abs(f1 / s - b1[x])
                c2 = abs(f2 / s - b2[x])
                m = c0 if c0 > c1 else c1
                mrow[x] = m if m > c2 else c2
                rrow[x] = s / sby[x]
            for k in range(brights.shape[0]):
                chroma_min, bright, o = chromas[k], brights[k], out[k, y]
                for x in range(w):
                    r = rrow[x]
                    hit = (mrow[x] > chroma_min) | (r > bright) | (r < dark_at)
                    o[x] = np.uint8(255) * np.uint8(hit)

    return masks


def load() -> Any:
    """The compiled pass (compiled or loaded from numba's cache once per process), or None without
    numba or with PURE_ENV set."""
    def warm(masks: Any) -> None:
        u8, f = np.zeros((2, 2), np.uint8), np.ones((2, 2), np.float32)
        one = np.ones(1, np.float32)
        row = np.zeros(2, np.float32)
        masks(u8, u8, u8, f, f, f, f, one, one, np.zeros((1, 2, 2), np.uint8), row, row.copy())

    return compiled_once(_loaded, "masks", PURE_ENV, _compile, warm)
