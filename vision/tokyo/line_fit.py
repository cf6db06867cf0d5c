"""`cv2.fitLine(points, cv2.DIST_HUBER, 0, 0.01, 0.01)` for 2-D float32 points, compiled with numba
(optional: the `fast` extra), giving the same four floats bit for bit in about half the CPU.

The stick pass fits every run of rod core it keeps with OpenCV's robust line fit (sticks.py
`_fit_line`): about 12 % of the Tokyo referee loop's CPU on the bundled match. OpenCV's fit is
iteratively reweighted least squares, restarted 20 times from 10 points drawn by its own generator
seeded with a fixed value, each restart refined up to 30 times with Huber weights; the fit with the
least summed distance seen wins. `huber_fit` runs that very procedure with the same arithmetic:

- the generator: OpenCV's multiply-with-carry (`cv::RNG`, state all ones, `uniform(0, count)` is the
  next 32-bit value modulo `count`), drawing until 10 distinct points are picked;
- the weighted sums in float64, each term the float32 product OpenCV forms, added in point order (the
  order is what makes the sums exact copies; numba compiles without fast-math: nothing is reordered
  or fused into a multiply-add);
- the direction from `atan2` halved in float32, its cosine and sine rounded to float32; distances,
  Huber weights (1.345 / d beyond 1.345) and the convergence test (angle by `acos` of the float32 dot
  product under 0.01, shift under 0.01 px) in float32 as OpenCV's C code does them;
- weights normalised by their float64 sum.

The loops are the only difference: one pass for distances and weights, one for the refit, where
OpenCV makes five, and no call overhead. tests/test_tokyo_line_fit.py compares the two on every fit
of the bundled recording and on thousands of made-up point sets. Without numba, or with PURE_ENV set,
`huber_fit` calls OpenCV. The first use on a machine compiles for a few seconds; numba caches the
result beside this module, so later processes load it in well under a second (`load()` does it
before a timed loop).
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from vision.compiled import compiled_once

PURE_ENV = "HIGHWAY_REFEREE_PURE_TOKYO"  # set (not "0"): OpenCV's fit, no numba

_loaded: dict[str, Any] = {}
_refit: Any = None  # the compiled weighted fit, once _compile made it (fit calls it by this name)


def _compile() -> Any:
    try:  # numba is an optional speed-up, never a requirement
        import numba
    except ImportError:  # pragma: no cover - exercised where numba is absent
        return None
    import math

    f32 = np.float32
    jit = numba.njit(cache=True, nogil=True, boundscheck=False, error_model="numpy")

    @jit
    def refit(xs: Any, ys: Any, w: Any, line: Any) -> None:  # pragma: no cover - compiled
        """OpenCV's weighted least-squares line (fitLine2D_wods) into `line` (vx, vy, x0, y0)."""
        sx = 0.0
        sy = 0.0
        sxx = 0.0
        syy = 0.0
        sxy = 0.0
        sw = 0.0
        for i in range(xs.shape[0]):
            wi = w[i]
            px = xs[i]
            py = ys[i]
            a = f32(wi * px)
            b = f32(wi * py)
            sx += a
            sy += b
            sxx += f32(a * px)
            syy += f32(b * py)
            sxy += f32(a * py)
            sw += wi
        x = sx / sw
        y = sy / sw
        dx2 = sxx / sw - x * x
        dy2 = syy / sw - y * y
        dxy = sxy / sw - x * y
        t = f32(f32(math.atan2(2 * dxy, dx2 - dy2)) / f32(2))
        line[0] = f32(math.cos(t))
        line[1] = f32(math.sin(t))
        line[2] = f32(x)
        line[3] = f32(y)

    # `fit` finds the weighted fit as a module global, not a closure cell: numba's cache keys a
    # closure by its cells' pickled bytes, and a compiled function's differ in every process, so
    # `fit` was compiled again at each start (about 4 CPU seconds) and its cache grew by a copy
    global _refit
    _refit = refit

    @jit
    def fit(xs: Any, ys: Any) -> Any:  # pragma: no cover - compiled
        count = xs.shape[0]
        eps = count * 1.1920928955078125e-07  # count * FLT_EPSILON
        best = np.zeros(4, np.float32)
        cur = np.zeros(4, np.float32)
        prev = np.zeros(4, np.float32)
        w = np.zeros(count, np.float32)
        delta = f32(0.01)  # both the angle's and the shift's
        c = f32(1.345)  # Huber's constant (OpenCV's when the parameter is 0)
        least = 1.7976931348623157e308
        state = np.uint64(0xFFFFFFFFFFFFFFFF)
        low, coeff, shift = np.uint64(0xFFFFFFFF), np.uint64(4164903690), np.uint64(32)
        for _ in range(20):
            w[:] = f32(0.0)
            picked = 0
            while picked < min(count, 10):
                state = np.uint64(np.uint64(np.uint32(state & low)) * coeff) + (state >> shift)
                j = int(np.uint32(state & low) % np.uint32(count))
                if w[j] < f32(1.1920928955078125e-07):
                    w[j] = f32(1.0)
                    picked += 1
            _refit(xs, ys, w, cur)
            for it in range(30):
                if it > 0:
                    t = float(f32(f32(cur[0] * prev[0]) + f32(cur[1] * prev[1])))
                    t = min(max(t, -1.0), 1.0)
                    if abs(math.acos(t)) < delta:
                        ax = f32(abs(f32(cur[2] - prev[2])))
                        ay = f32(abs(f32(cur[3] - prev[3])))
                        if (ax if ax > ay else ay) < delta:
                            break
                px, py, nx, ny = cur[2], cur[3], cur[1], -cur[0]
                err = 0.0
                total = 0.0
                for j in range(count):
                    d = f32(abs(f32(f32(nx * f32(xs[j] - px)) + f32(ny * f32(ys[j] - py)))))
                    err += d
                    wj = f32(1.0) if d < c else f32(c / d)
                    w[j] = wj
                    total += wj
                if err < least:
                    least = err
                    best[:] = cur
                    if err < eps:
                        break
                if abs(total) > 1.1920928955078125e-07:
                    scale = 1.0 / total
                    for j in range(count):
                        w[j] = f32(w[j] * scale)
                else:
                    w[:] = f32(1.0)
                prev[:] = cur
                _refit(xs, ys, w, cur)
        return best

    return fit


def load() -> Any:
    """The compiled fit (compiled or loaded from numba's cache, once per process), or None without
    numba or with PURE_ENV set."""
    return compiled_once(_loaded, "fit", PURE_ENV, _compile,
                         lambda fit: fit(np.arange(3, dtype=np.float32), np.array([0, 1, 3], np.float32)))


def opencv_fit(points: np.ndarray) -> tuple[float, float, float, float]:
    """OpenCV's own robust fit, (vx, vy, x0, y0) as Python floats."""
    return tuple(float(v) for v in cv2.fitLine(points, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel())  # type: ignore[return-value]


def huber_fit(points: np.ndarray) -> tuple[float, float, float, float]:
    """`opencv_fit` of (N, 2) points: compiled where numba is (float32 points, at least two, all
    finite: OpenCV's own code takes the rest)."""
    fit = load()
    if fit is None or points.dtype != np.float32 or points.shape[1:] != (2,) or len(points) < 2:
        return opencv_fit(points)
    xs = np.ascontiguousarray(points[:, 0])
    ys = np.ascontiguousarray(points[:, 1])
    if not (np.isfinite(xs).all() and np.isfinite(ys).all()):
        return opencv_fit(points)
    return tuple(float(v) for v in fit(xs, ys))  # type: ignore[return-value]
