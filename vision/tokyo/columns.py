"""Columns found from the stick ends they carry.

Every road end rests on a column top, so road ends that meet mark one column, and the sticks' image
axes cross right above its centre (the top point T). With a calibrated camera, each height h puts the
column's centre where the ray through T meets the plane of its top, which fixes where its base stands;
the h whose base best matches where the foreground ends (just inside: piece, just outside: table;
stick bands ignored) wins, ties to the lower column. A lone end gives T only up to the stick's overhang,
which is the same at both ends of a stick: it is copied from the other end when that end's top is known,
otherwise the overhangs a set allows are tried. The rings hug the base edge (the mask spreads about 1 mm
past it) so that samples beside a stick covering the column's middle still count. An end with no column
base under it rests on the table (a ramp end or a loose stick). The whole-silhouette overlap was tried
as well and measured worse: a taller column's extra side hides behind the sticks it carries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vision.tokyo.calibration import TokyoCalibration
from vision.tokyo.sticks import RawStick

_JITTER = np.array([[0, 0], [3, 0], [-3, 0], [0, 3], [0, -3]], np.float64)


@dataclass
class ColumnFit:
    ends: list[tuple[int, int]]  # (stick index, 0 for p0 / 1 for p1)
    top_px: np.ndarray
    height: int | None = None
    x_mm: float | None = None
    y_mm: float | None = None
    score: float = 0.0
    margin: float = 0.0
    # every height tried, lowest first: (score, height, x_mm, y_mm, top_px); the joint choice over all
    # columns (vision.tokyo.joint_heights) may pick another than the best
    options: list[tuple[float, int, float, float, np.ndarray]] = field(default_factory=list)


def group_ends(raw: list[RawStick], hw: float) -> list[list[tuple[int, int]]]:
    """Stick ends close enough to rest on one column, grouped (single linkage)."""
    ends = [(i, k) for i in range(len(raw)) for k in (0, 1)]
    pts = np.array([raw[i].p0 if k == 0 else raw[i].p1 for i, k in ends]).reshape(-1, 2)
    parent = list(range(len(ends)))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for a in range(len(ends)):
        for b in range(a + 1, len(ends)):
            if ends[a][0] != ends[b][0] and np.linalg.norm(pts[a] - pts[b]) < 4.0 * hw:
                parent[find(a)] = find(b)
    groups: dict[int, list[tuple[int, int]]] = {}
    for a, e in enumerate(ends):
        groups.setdefault(find(a), []).append(e)
    return list(groups.values())


def _axes_meet(raw: list[RawStick], ends: list[tuple[int, int]]) -> np.ndarray | None:
    """Least-squares meeting point of the sticks' axes, if at least two cross at a clear angle."""
    rows, rhs, dirs = [], [], []
    for i, _ in ends:
        s = raw[i]
        u = (s.p1 - s.p0) / max(s.length, 1e-6)
        n = np.array([-u[1], u[0]])
        rows.append(n)
        rhs.append(float(np.dot(n, s.p0)))
        dirs.append(u)
    if len(rows) < 2:
        return None
    best = max(abs(float(a[0] * b[1] - a[1] * b[0])) for a in dirs for b in dirs)
    if best < 0.35:
        return None
    sol, *_ = np.linalg.lstsq(np.array(rows), np.array(rhs), rcond=None)
    return sol


def _split_group(raw: list[RawStick], ends: list[tuple[int, int]], hw: float) -> list[list[tuple[int, int]]]:
    """Ends grouped by closeness can belong to two neighbouring columns: while the axes miss their
    common point by more than a rod's half-width, the end whose axis misses it most gets its own group."""
    ends = list(ends)
    out: list[list[tuple[int, int]]] = []
    while len(ends) >= 3:
        meet = _axes_meet(raw, ends)
        if meet is None:
            break
        miss = [_axis_distance(raw[i], meet) for i, _ in ends]
        worst = int(np.argmax(miss))
        if miss[worst] <= hw:
            break
        out.append([ends.pop(worst)])
    return [ends, *out]


def _axis_distance(s: RawStick, p: np.ndarray) -> float:
    u = (s.p1 - s.p0) / max(s.length, 1e-6)
    return abs(float(np.dot(p - s.p0, np.array([-u[1], u[0]]))))


def _base_scores(
    calib: TokyoCalibration, fg: np.ndarray, care: np.ndarray, xy: np.ndarray, look: np.ndarray | None = None
) -> np.ndarray:
    """For columns standing at each (x, y) (N,2): how well each explains where the foreground ends at
    the bottom. Just inside its base circle (the front half, which the camera sees) should be piece,
    just outside table. The base is never under a stick band and carries no stick ends, unlike the top."""
    r = calib.sizes.column_diameter_mm / 2
    eye = calib.camera.centre
    ang = np.linspace(0, 2 * np.pi, 96, endpoint=False)
    ring = np.stack([np.cos(ang), np.sin(ang)], 1)
    ring = ring[ring @ (eye[:2] - xy.mean(0)) > 0]  # candidates are close together: one front half
    H, W = fg.shape
    fracs = []
    # every pixel's two looks in one byte (bit 0: piece, bit 1: care), read by flat index: one gather
    # a ring instead of two two-dimensional ones
    look = (_looks(fg, care) if look is None else look).ravel()
    # the mask spreads about 1 mm past a column's base (blur), so "outside" starts 2.5 mm out; rings
    # close to the edge keep samples beside a stick that covers the column's middle
    for radii, z, want in (((0.8 * r, 0.95 * r), 2.0, True), ((r + 2.5, r + 4.0, r + 5.5), 0.0, False)):
        offs = np.vstack([ring * q for q in radii])  # (M,2)
        n, m = len(xy), len(offs)
        xyz = np.empty((n, m, 3))  # np.c_'s array, the sums written in place a coordinate at a time
        for j in range(2):
            np.add(xy[:, None, j], offs[None, :, j], out=xyz[..., j])
        xyz[..., 2] = z
        uv, _ = calib.camera.project(xyz.reshape(-1, 3))
        xi = np.clip(np.round(uv[:, 0]).astype(int), 0, W - 1)
        yi = np.clip(np.round(uv[:, 1]).astype(int), 0, H - 1)
        seen = look[yi * W + xi].reshape(n, m)
        ok = seen >= 2
        good = seen == (3 if want else 2)
        cnt = ok.sum(1)
        fracs.append(np.where(cnt > 0, good.sum(1) / np.maximum(cnt, 1), 0.5))
    return (fracs[0] + fracs[1]) / 2


def _looks(fg: np.ndarray, care: np.ndarray) -> np.ndarray:
    """Per pixel: 1 where `fg` is set, plus 2 where `care` is (uint8)."""
    look = (care if care.dtype == np.bool_ else care != 0).view(np.uint8) << 1
    look |= fg > 0
    return look


def _body_scores_all(
    calib: TokyoCalibration,
    fg: np.ndarray,
    care: np.ndarray,
    xy: np.ndarray,
    heights_mm: np.ndarray,
    look: np.ndarray | None = None,
) -> np.ndarray:
    """Share of piece along each column's axis and beside it (half its radius), from a quarter of its
    height to near its top, where visible (1 where none of it is), for every height at once: `xy`
    (H, N, 2) the columns' places at each of the heights `heights_mm` (H,) -> (H, N). One projection
    of every point (a projection of many rows multiplies each row alike: the values a height at a
    time gave)."""
    r = calib.sizes.column_diameter_mm / 2
    zs = np.stack([np.linspace(0.25, 0.85, 6) * h for h in heights_mm])  # (H, Z), as _body_scores
    offs = np.array([[0.0, 0.0], [0.5 * r, 0.0], [-0.5 * r, 0.0], [0.0, 0.5 * r], [0.0, -0.5 * r]])
    nh, n = xy.shape[:2]
    shape = (nh, n, zs.shape[1], len(offs))
    xyz = np.empty((*shape, 3))  # the points' coordinates written a coordinate at a time
    for j in range(2):
        np.add(xy[:, :, None, None, j], offs[None, None, None, :, j], out=xyz[..., j])
    xyz[..., 2] = zs[:, None, :, None]
    uv, _ = calib.camera.project(xyz.reshape(-1, 3))
    H, W = fg.shape
    xi = np.clip(np.round(uv[:, 0]).astype(int), 0, W - 1)
    yi = np.clip(np.round(uv[:, 1]).astype(int), 0, H - 1)
    seen = (_looks(fg, care) if look is None else look).ravel()[yi * W + xi].reshape(nh, n, -1)
    ok = seen >= 2
    piece = seen == 3
    cnt = ok.sum(2)
    return np.where(cnt > 0, piece.sum(2) / np.maximum(cnt, 1), 1.0)


def _lone_tops(
    calib: TokyoCalibration,
    raw: list[RawStick],
    end_id: tuple[int, int],
    meet_of: dict[tuple[int, int], np.ndarray | None],
    hw: float,
) -> list[np.ndarray]:
    """Candidate top points under a lone road end: the stick overhangs both its columns by the same
    length, so when its other end's column top is known (axes meeting there) the overhang is copied;
    otherwise the overhangs a set allows (4-16 mm, at this end's image scale) are tried."""
    i, k = end_id
    st = raw[i]
    u = (st.p1 - st.p0) / max(st.length, 1e-6) * (1 if k == 0 else -1)  # pointing inwards
    end = st.p0 if k == 0 else st.p1
    other_end = st.p1 if k == 0 else st.p0
    other = meet_of.get((i, 1 - k))
    if other is not None and st.shown_end[1 - k] is None:  # a hidden end's overhang was assumed
        o = float(np.dot(other_end - other, u))  # the other end's overhang, measured outwards
        if 0.2 * hw < o < 5 * hw:
            return [end + u * o * f for f in (1.0, 0.85, 1.15)]
    xyz = calib.camera.ray_to_plane(end[None], 20.0)
    _, depth = calib.camera.project(xyz)
    px_mm = float(calib.camera.K[0, 0] / max(float(depth[0]), 1.0))
    return [end + u * o * px_mm for o in np.linspace(4.0, 16.0, 7)]


def fit_columns(
    calib: TokyoCalibration,
    raw: list[RawStick],
    fg: np.ndarray,
    rods: np.ndarray,
    hw: float,
    max_height: int = 9,
) -> list[ColumnFit]:
    s = calib.sizes
    care = rods == 0
    look = _looks(fg, care)
    out = []
    groups = [g for ends in group_ends(raw, hw) for g in _split_group(raw, ends, hw)]
    meets = [_axes_meet(raw, ends) for ends in groups]
    meet_of = {e: m for ends, m in zip(groups, meets, strict=True) for e in ends}
    for ends, meet in zip(groups, meets, strict=True):
        if meet is not None:
            tops = [meet]
        else:
            tops = _lone_tops(calib, raw, ends[0], meet_of, hw)
        tops_a = np.array(tops, np.float64)
        # every height, top and jittered top in one pass; the evidence is averaged over tops 3 px
        # around: a unit moves the base by only a few pixels, so a pixel's error in the top must not
        # decide between two heights
        hs = np.arange(1, max_height + 1)
        shifted = (tops_a[None, :, :] + _JITTER[:, None, :]).reshape(-1, 2)  # (J*T, 2)
        zs = hs * s.unit_mm + s.stick_thickness_mm / 2
        xyz = np.stack([calib.camera.ray_to_plane(shifted, z) for z in zs])  # (H, J*T, 3)
        sc_all = _base_scores(calib, fg, care, xyz[..., :2].reshape(-1, 2), look)
        sc_all = sc_all.reshape(len(hs), len(_JITTER), len(tops_a)).mean(1)  # (H, T)
        # a column's body between top and base is piece wherever it shows; a tall "column" whose
        # base happens to land on other pieces lying on the table shows table in between
        body = _body_scores_all(calib, fg, care, xyz[:, : len(tops_a), :2], hs * s.unit_mm, look)
        sc_all = np.where(body < 0.7, sc_all - 0.5, sc_all)
        scores = []
        for k, h in enumerate(hs):
            j = int(np.argmax(sc_all[k]))  # first best: the likeliest top among equals
            x, y = xyz[k, j, :2]  # jitter 0 comes first, so index j is the top itself
            scores.append((float(sc_all[k, j]), int(h), float(x), float(y), tops_a[j]))
        options = list(scores)
        scores.sort(key=lambda r: -r[0])  # stable: equal scores keep the lower height first
        sc, h, x, y, t = scores[0]
        margin = sc - scores[1][0] if len(scores) > 1 else sc
        out.append(
            ColumnFit(
                ends, np.asarray(t, np.float64), h, float(x), float(y), float(sc), float(margin), options
            )
        )
    return out
