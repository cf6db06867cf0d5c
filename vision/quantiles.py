"""`np.percentile` (its default linear method), bit for bit, without its generic machinery: on a
window or a piece of a few thousand pixels that machinery is most of the cost. Shared by the 4x4
pieces' ink maps (vision/tiles/patch.py) and the dice road's paper level (vision/zones_one.py)."""

from __future__ import annotations

import numpy as np
from numpy.typing import DTypeLike


def percentiles(values: np.ndarray, qs: list[int], dtype: DTypeLike | None = None) -> np.ndarray:
    """`np.percentile(values.astype(dtype), qs)` for a 1-d uint8 or float array: the order statistics
    from a histogram (uint8) or a partition, then numpy's own interpolation formula
    (`numpy.lib._function_base_impl._lerp`) in `dtype` (default numpy's: the values' float type,
    float64 for integers). tests/test_vision_tiles_split.py and tests/test_zones_paper_level.py hold
    it to np.percentile."""
    n = values.size
    virtual = (n - 1) * np.true_divide(np.asarray(qs), 100)
    prev = np.floor(virtual)
    nxt = prev + 1
    top = virtual >= n - 1  # numpy takes the last value there
    prev[top] = nxt[top] = n - 1
    gamma = virtual - prev
    k_prev, k_next = prev.astype(np.intp), nxt.astype(np.intp)
    if values.dtype == np.uint8:
        ends = np.cumsum(np.bincount(values, minlength=256))
        a = np.searchsorted(ends, k_prev, side="right")
        b = np.searchsorted(ends, k_next, side="right")
    else:
        part = np.partition(values, sorted({*k_prev.tolist(), *k_next.tolist()}))
        a, b = part[k_prev], part[k_next]
    work = np.dtype(dtype) if dtype is not None else (
        values.dtype if values.dtype.kind == "f" else np.dtype(np.float64))
    a, b, gamma = a.astype(work), b.astype(work), gamma.astype(work)
    diff = b - a
    out = a + diff * gamma
    np.subtract(b, diff * (1 - gamma), out=out, where=gamma >= 0.5)
    return out


def median_u8(values: np.ndarray) -> float:
    """`float(np.median(values))` of a uint8 array of any shape, bit for bit: its two middle order
    statistics from a histogram (the same one for an odd size), averaged as numpy does (their float64
    mean: exact for two integers). np.median's generic machinery cost ~40 us a call, and the dice
    road's pip counter asks three a die (tests/test_quantiles_median.py)."""
    n = values.size
    if values.dtype != np.uint8 or n == 0:  # numpy's own (its warning and NaN for no values)
        return float(np.median(values))
    ends = np.cumsum(np.bincount(values.ravel(), minlength=256))
    lo, hi = np.searchsorted(ends, [(n - 1) // 2, n // 2], side="right").tolist()
    return (lo + hi) / 2
