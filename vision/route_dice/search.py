"""Find a die's top face by its known size when blur has wiped out the frame's contour.

In the rectified top view a flat die's top face is a square of known size (the face is parallel to
the tray, so the tray's homography only scales it by a few per cent). Motion blur across the 1 mm
frame kills the contour that local thresholding needs, but along the frame the dark ring inside the
white margin still stands out on average. So the face is searched for directly: every centre,
quarter-turn angle and scale around a die-sized blob is scored by how much brighter the margin ring
is than the frame ring, side by side (a blurred side keeps some contrast, a side on the tray or
the picture keeps none). The best square is refined, then checked: enough contrast on every side,
and no thinner rectangle fitting better (a leaning die shows a squashed face).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.route_dice.faces import FRAME_W, MARGIN

# rings as fractions of the face's side, from its centre: the frame's middle and the margin's middle
FRAME_R = 0.5 - MARGIN - FRAME_W / 2
MARGIN_R = 0.5 - MARGIN / 2
ALONG = np.linspace(-0.7, 0.7, 9)  # sample positions along each side (corners left out)


@dataclass
class Square:
    centre: np.ndarray  # view px
    angle: float  # radians, modulo a quarter turn
    side: float  # face side along the first axis, view px
    aspect: float  # second side / first side (1 = square)
    score: float  # mean margin-minus-frame contrast over the four sides / margin brightness
    weakest: float  # the same for the weakest side

    def quad(self) -> np.ndarray:
        """The frame's outer corners (as the contour reader reports them), view px."""
        u = np.array([np.cos(self.angle), np.sin(self.angle)])
        v = np.array([-u[1], u[0]])
        h1 = self.side * (0.5 - MARGIN)
        h2 = h1 * self.aspect
        signs = ((-1, -1), (1, -1), (1, 1), (-1, 1))
        return np.array([self.centre + a * h1 * u + b * h2 * v for a, b in signs])


def _ring_points(cx: np.ndarray, cy: np.ndarray, ang: np.ndarray, s1: np.ndarray, s2: np.ndarray, r: float
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) of shape (N, 4 sides, len(ALONG)) on the ring at r x side around each candidate."""
    ux, uy = np.cos(ang)[:, None], np.sin(ang)[:, None]
    vx, vy = -uy, ux
    h1, h2 = (r * s1)[:, None], (r * s2)[:, None]
    a1, a2 = (0.5 * s1)[:, None] * ALONG, (0.5 * s2)[:, None] * ALONG  # along the side
    xs, ys = [], []
    # sides: -v (top), +u (right), +v (bottom), -u (left)
    for (pu, pv, tu, tv, hh, aa) in ((0, -1, 1, 0, h2, a1), (1, 0, 0, 1, h1, a2),
                                     (0, 1, 1, 0, h2, a1), (-1, 0, 0, 1, h1, a2)):
        off = pu * hh, pv * hh
        xs.append(cx[:, None] + off[0] * ux + off[1] * vx + aa * (tu * ux + tv * vx))
        ys.append(cy[:, None] + off[0] * uy + off[1] * vy + aa * (tu * uy + tv * vy))
    return np.stack(xs, 1), np.stack(ys, 1)


def _sample(img: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    # remap wants maps under 32767 columns: lay the samples out as rows of 1024
    n = x.size
    rows = -(-n // 1024)
    mx = np.zeros(rows * 1024, np.float32)
    my = np.zeros(rows * 1024, np.float32)
    mx[:n], my[:n] = x.ravel(), y.ravel()
    out = cv2.remap(img, mx.reshape(rows, 1024), my.reshape(rows, 1024), cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE)
    return out.ravel()[:n].reshape(x.shape)


def score_squares(gray: np.ndarray, cx: np.ndarray, cy: np.ndarray, ang: np.ndarray, s1: np.ndarray,
                  s2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mean, weakest) per-side contrast of margin over frame, relative to the margin's brightness."""
    fx, fy = _ring_points(cx, cy, ang, s1, s2, FRAME_R)
    mx, my = _ring_points(cx, cy, ang, s1, s2, MARGIN_R)
    frame = _sample(gray, fx, fy).mean(2)
    margin = _sample(gray, mx, my).mean(2)
    contrast = (margin - frame) / (margin.mean(1, keepdims=True) + 10.0)
    return contrast.mean(1), contrast.min(1)


def find_square(gray: np.ndarray, box: tuple[int, int, int, int], side: float,
                scales: tuple[float, float] = (0.95, 1.07), avoid: list[np.ndarray] | None = None
                ) -> Square | None:
    """The best face square whose centre lies in box (x0, y0, x1, y1, view px) on a float32 grey view,
    at least 0.8 side away from every centre in `avoid` (faces already found there)."""
    x0, y0, x1, y1 = box
    if x1 <= x0 or y1 <= y0:
        return None
    step = max(1.5, side / 28)
    gx, gy = np.meshgrid(np.arange(x0, x1 + 1e-6, step), np.arange(y0, y1 + 1e-6, step))
    keep = np.ones(gx.shape, bool)
    for c in avoid or []:
        keep &= np.hypot(gx - c[0], gy - c[1]) >= 0.8 * side
    if not keep.any():
        return None
    gx, gy = gx[keep], gy[keep]
    angs = np.radians(np.arange(0, 90, 4.0))
    ss = side * np.linspace(scales[0], scales[1], 4)
    per_centre = len(angs) * len(ss)
    cx = np.repeat(gx.ravel(), per_centre)
    cy = np.repeat(gy.ravel(), per_centre)
    ang = np.tile(np.repeat(angs, len(ss)), gx.size)
    s = np.tile(ss, gx.size * len(angs))
    mean, _ = score_squares(gray, cx, cy, ang, s, s)
    k = int(np.argmax(mean))
    best = np.array([cx[k], cy[k], ang[k], s[k]])
    # refine: two rounds of a shrinking local grid (3 steps in each of x, y, angle, scale)
    o = np.array(np.meshgrid(*[[-1, 0, 1]] * 4, indexing="ij")).reshape(4, -1)
    for d_c, d_a, d_s in ((step / 2, 2.0, 0.015), (step / 4, 1.0, 0.008)):
        cand = best[:, None] + o * np.array([d_c, d_c, np.radians(d_a), d_s * side])[:, None]
        m, _ = score_squares(gray, cand[0], cand[1], cand[2], cand[3], cand[3])
        best = cand[:, int(np.argmax(m))]
    mean, weakest = score_squares(gray, best[:1], best[1:2], best[2:3], best[3:4], best[3:4])
    # would a squashed rectangle fit better? (a leaning die's face seen from above)
    asp = np.array([0.6, 0.7, 0.8, 0.88, 0.94, 1.0])
    m1, _ = score_squares(gray, np.full(6, best[0]), np.full(6, best[1]), np.full(6, best[2]),
                          np.full(6, best[3]), best[3] * asp)
    m2, _ = score_squares(gray, np.full(6, best[0]), np.full(6, best[1]), np.full(6, best[2] + np.pi / 2),
                          np.full(6, best[3]), best[3] * asp)
    j1, j2 = int(np.argmax(m1)), int(np.argmax(m2))
    aspect = float(asp[j1] if m1[j1] >= m2[j2] else asp[j2])
    return Square(best[:2].copy(), float(best[2]), float(best[3]), aspect, float(mean[0]), float(weakest[0]))
