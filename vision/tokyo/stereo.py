"""Column heights from two or more calibrated views of one table.

One view reads a column's height from where its base meets the table, which the sticks it carries,
shadows or a near-overhead camera often hide (0.85-0.87 exact on the renders). Two views need no
base: the column's top point T (where the road axes resting on it cross) is one 3D point, so the rays
through T from two cameras meet there, and its height over the table is the column's height. Each view
is read on its own (`read_tokyo`); columns are matched across views by calibrated 3D evidence (the
rays through their top points nearly meet, above the table and below the tallest column, close to
where each view's own reading put the column); a matched column's height is the triangulated top's
z in column units (under a lone road end, where the top point is only a guess along the stick, the
triangulated stick end's z instead), the views' own readings breaking ties near half a unit; when the
rays miss each other by more than a reading error allows, the one-view heights are kept (with three or
more rays, the worst is left out first, and one whose leaving out lets the others meet far closer is left
out even when all nearly meet). With three or more views a column one view alone reads is
checked against the others: where they triangulate a column in its place (or rest the same road ends
on one) it is that column misread, and it is left out when no other view reads any road it carries.
Vision knows nothing of how the views were made: any calibrated cameras sharing the world frame
(table z = 0) will do. See docs/vision/tokyo.md, "Two cameras" and "Three cameras", for the
measurements behind each rule.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from vision.tokyo.calibration import TokyoCalibration
from vision.tokyo.junctions import fuse_junctions
from vision.tokyo.lying_pieces import refute_lying
from vision.tokyo.observation import TokyoObservation
from vision.tokyo.parallax import parallax_mask
from vision.tokyo.rays import (
    closest_points,
    greedy_pairs,
    join_pairs,
    pixel_pairs,
    pixel_rays,
    same_camera,
    triangulate,
)
from vision.tokyo.reader import hand_in_view, read_tokyo
from vision.tokyo.stick_fusion import MASK_SCALE, StickLink, column_index, fuse_sticks, stick_tracks
from vision.tokyo.table_memory import TableMemory
from vision.types import VisionError

__all__ = ["TokyoViews", "ViewColumn", "closest_points", "fuse_views", "read_tokyo_views", "triangulate"]

MAX_HEIGHT = 9  # column units; the reader's tallest column
MATCH_GAP_MM = 12.0  # rays through one column's top miss each other by less than this
MATCH_XY_MM = 30.0  # the meeting point lies this close to where each view's own reading put it
TRUST_GAP_MM = 6.0  # rays missing each other by more: keep the one-view heights
# a column one view alone reads within this of a column other views triangulate is that column
FOLD_XY_MM, FOLD_RAY_MM = 20.0, 8.0
FOLD_MIN_VIEWS = 3  # ... with at least this many views
# a column one view alone reads, carrying only roads no other view reads, is left out with this many views
LONE_ROADS_MIN_VIEWS = 3
FOLD_REST_VOTES = 2  # ... or when this many other views' readings of the roads on it rest them on that column
# three or more top rays: they fix the top under a lone road end when they meet within LONE_TOP_GAP_MM
# (each view's guess along the stick would slide by its own error, and their rays would not meet), and
# the ends' rays take over elsewhere only when they meet END_MARGIN times better (the top's gap is the
# worst of three or more rays, the ends' the median of pairs)
LONE_TOP_GAP_MM = 4.0
END_MARGIN = 3.0
LOWEST_TOP_UNITS = 0.5  # a triangulated top under half a unit is no column's top: keep the one-view heights
# with this many cameras views[0]'s sticks also get plane-parallax evidence (`stick_fusion.PARALLAX_VOTES`
# other views must read a stick for it to count, so two cameras never use it)
PARALLAX_MIN_VIEWS = 3


@dataclass
class ViewColumn:
    """One column as all views see it."""

    supports: tuple[int | None, ...]  # index into each view's `supports`, None where not seen
    height: int | None
    height_confidence: float
    x_mm: float | None
    y_mm: float | None
    source: str  # "views" (triangulated top) | "one-view" (a single view's reading kept)
    # the triangulated top, world mm: x, y from the rays through the top points, z the road axis's
    # height over the column (from those rays, or from the stick ends resting there)
    top_mm: tuple[float, float, float] | None = None
    ray_gap_mm: float | None = None  # how far the rays the height came from miss each other
    junction: bool = False


@dataclass
class TokyoViews:
    """The reading of every view (heights of matched columns replaced by the fused ones) and the
    columns across views."""

    views: list[TokyoObservation]
    columns: list[ViewColumn] = field(default_factory=list)
    sticks: list[StickLink] = field(default_factory=list)  # views[0]'s sticks and the added ones
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "views": [obs.to_dict() for obs in self.views],
            "columns": [asdict(c) for c in self.columns],
            "sticks": [asdict(s) for s in self.sticks],
            "warnings": list(self.warnings),
        }


def read_tokyo_views(
    images: Sequence[np.ndarray],
    calibrations: Sequence[TokyoCalibration | dict[str, Any] | None],
    stop_at_hand: bool = False,
    tables: Sequence[TableMemory] | None = None,
    probes: Sequence[TableMemory] | None = None,
    read: list[TokyoObservation | None] | None = None,
) -> TokyoViews:
    """Read each view with `read_tokyo` and fuse the columns' heights across views. Every view needs
    its calibration (all in one world frame); one view alone gives its one-view reading. With
    `stop_at_hand`, the first view showing a hand or large object ends the reading (read_tokyo's
    `stop_at_hand`): `views` then holds the views read up to it, nothing fused. `tables`: each view's
    camera's kept table estimate (read_tokyo's); `probes`: each view's camera's hand probe
    (read_tokyo's `probe`). `read` (one entry a view): a view's reading as `read_tokyo` gives it
    (before fusion), where the caller has it for this very image, calibration and camera memories: it
    is used (a copy: fusion updates readings in place) in place of reading the view again; the views
    read are written into it (copies, before fusion)."""
    if len(images) == 0:
        raise VisionError("read_tokyo_views needs at least one image")
    if len(images) != len(calibrations):
        raise VisionError(f"{len(images)} images but {len(calibrations)} calibrations: one per view")
    calibs = []
    for v, c in enumerate(calibrations):
        if c is None:
            raise VisionError(f"view {v} has no calibration: heights from several views need every camera")
        calibs.append(TokyoCalibration.from_dict(c) if isinstance(c, dict) else c)
    observations = []
    if tables is not None and len(tables) != len(images):
        raise VisionError(f"{len(images)} images but {len(tables)} table memories: one per view")
    if probes is not None and len(probes) != len(images):
        raise VisionError(f"{len(images)} images but {len(probes)} hand probes: one per view")
    if read is not None and len(read) != len(images):
        raise VisionError(f"{len(images)} images but {len(read)} kept readings: one per view")
    for v, (im, c) in enumerate(zip(images, calibs, strict=True)):
        kept = None if read is None else read[v]
        if kept is not None:
            observations.append(copy.deepcopy(kept))
        else:
            observations.append(read_tokyo(im, c, stop_at_hand, None if tables is None else tables[v],
                                           None if probes is None else probes[v]))
            if read is not None:
                read[v] = copy.deepcopy(observations[-1])
        if stop_at_hand and hand_in_view(observations[-1]):
            return TokyoViews(observations)
    return fuse_views(observations, calibs, images)


def cameras(calibs: Sequence[TokyoCalibration]) -> int:
    """How many distinct cameras the calibrations are: a camera given twice (`rays.same_camera`) is
    one vote (its views agree with each other by construction)."""
    distinct: list[TokyoCalibration] = []
    for c in calibs:
        if not any(same_camera(c.camera, d.camera) for d in distinct):
            distinct.append(c)
    return len(distinct)


def _one_per_camera(seen: list[tuple[int, int]], calibs: Sequence[TokyoCalibration]) -> list[tuple[int, int]]:
    """The (view, support) readings of distinct cameras: the first view of a camera given twice."""
    out: list[tuple[int, int]] = []
    for v, k in seen:
        if cameras([calibs[u] for u, _ in out] + [calibs[v]]) > len(out):
            out.append((v, k))
    return out


def _ray(calib: TokyoCalibration, uv: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    return pixel_rays(calib.camera, [uv])[0]


def _match_pairs(
    obs_a: TokyoObservation,
    obs_b: TokyoObservation,
    cal_a: TokyoCalibration,
    cal_b: TokyoCalibration,
) -> list[tuple[int, int, float]]:
    """(support in a, support in b, ray gap) of columns taken to be one, closest rays first."""
    if same_camera(cal_a.camera, cal_b.camera):  # one camera given twice: the same tops, pixel for pixel
        return pixel_pairs([[sp.top_px] for sp in obs_a.supports], [[sp.top_px] for sp in obs_b.supports])
    s = cal_a.sizes
    top_z = (MAX_HEIGHT + 0.5) * s.unit_mm + s.stick_thickness_mm
    cands = []
    rays_b = [_ray(cal_b, sp.top_px) for sp in obs_b.supports]
    for i, sa in enumerate(obs_a.supports):
        ca, da = _ray(cal_a, sa.top_px)
        for j, sb in enumerate(obs_b.supports):
            cb, db = rays_b[j]
            p, gap, t_a, t_b = closest_points(ca, da, cb, db)
            if gap > MATCH_GAP_MM or t_a <= 0 or t_b <= 0 or not 0 < p[2] < top_z:
                continue
            if any(
                sp.x_mm is not None and np.hypot(p[0] - sp.x_mm, p[1] - sp.y_mm) > MATCH_XY_MM
                for sp in (sa, sb)
            ):
                continue
            cands.append((gap, i, j))
    return greedy_pairs(cands)


def fuse_views(
    observations: Sequence[TokyoObservation],
    calibs: Sequence[TokyoCalibration],
    images: Sequence[np.ndarray] | None = None,
) -> TokyoViews:
    """Match the views' columns and set matched columns' heights from their triangulated tops; the
    observations are updated in place (heights, table positions, bases, stick ends in mm). With the
    views' images, views[0]'s sticks are also fused with the other views' (vision.tokyo.stick_fusion):
    confirmed, added where only another view reads them, dropped where no other view shows them."""
    if images is not None and len(images) != len(observations):
        raise VisionError(f"{len(images)} images but {len(observations)} readings: one per view")
    n = len(observations)
    out = TokyoViews(list(observations))
    pairs = {
        (a, b): _match_pairs(observations[a], observations[b], calibs[a], calibs[b])
        for a in range(n)
        for b in range(a + 1, n)
    }
    cols = join_pairs(n, pairs)
    seen = {(v, k) for col in cols for v, k in enumerate(col) if k is not None}
    for v, obs in enumerate(observations):
        for k in range(len(obs.supports)):
            if (v, k) not in seen:
                cols.append([k if u == v else None for u in range(n)])
    for col in cols:
        seen = [(v, k) for v, k in enumerate(col) if k is not None]
        if n > 1 and len(seen) == 1 and _n_ends(observations[seen[0][0]], seen[0][1]) == 0:
            # one view's support that carries no road there and no other view confirms: on the tuning
            # renders 22 of 23 such were remnants or a column read twice, not a column
            v, k = seen[0]
            sp = observations[v].supports[k]
            out.warnings.append(
                f"view {v}: support near ({sp.top_px[0]:.0f}, {sp.top_px[1]:.0f}) px carries no road and "
                "no other view sees it: left out of the columns"
            )
            continue
        out.columns.append(_fuse_column(col, observations, calibs))
    made: list[list[list[int | None]]] = []

    def tracks() -> list[list[int | None]]:  # the sticks across views, matched when first needed
        if not made:
            made.append(stick_tracks(observations, calibs))
        return made[0]

    if cameras(calibs) >= FOLD_MIN_VIEWS:
        out.columns = _fold_misplaced(out.columns, observations, calibs, out.warnings, tracks)
    if images is not None and n > 1:
        for v, obs in enumerate(observations):  # a lying piece one view alone reads: a highlight?
            others = [(images[u], calibs[u]) for u in range(n)
                      if u != v and not same_camera(calibs[u].camera, calibs[v].camera)]
            out.warnings += [f"view {v}: {note}" for note in refute_lying(obs.warnings, calibs[v], others)]
        fuse_junctions(observations, calibs, out.columns, images)
        imgs: Sequence[np.ndarray] = images

        def par() -> np.ndarray:  # views[0]'s plane parallax, made only if a stick asks for it
            return parallax_mask(imgs, calibs, 0, MASK_SCALE)

        # the fold moves no stick in any image, so the sticks' tracks stay as matched
        many = cameras(calibs) >= PARALLAX_MIN_VIEWS
        out.sticks, warnings = fuse_sticks(
            observations, calibs, out.columns, images, tracks(), par if many else None
        )
        out.warnings += warnings
    return out


def _fold_misplaced(
    columns: list[ViewColumn],
    observations: Sequence[TokyoObservation],
    calibs: Sequence[TokyoCalibration],
    warnings: list[str],
    tracks: Callable[[], list[list[int | None]]],
) -> list[ViewColumn]:
    """A column one view alone reads that stands where a column other views triangulate stands (its
    table position within FOLD_XY_MM of that column's, or its top ray within FOLD_RAY_MM of that
    column's top) is that column misread in the one view (a misgrouped road end, a height units off):
    two columns cannot stand in one place. It joins that column (its support takes the fused height
    and place) or, when the column already holds a support of that view, is left out."""
    multi = [c for c in columns if c.source == "views" and c.x_mm is not None and c.y_mm is not None]
    if not multi:
        return columns
    kept: list[ViewColumn] = []
    for col in columns:
        seen = [(v, k) for v, k in enumerate(col.supports) if k is not None]
        if len(seen) != 1:
            kept.append(col)
            continue
        v, k = seen[0]
        sp = observations[v].supports[k]
        s = calibs[v].sizes
        ray = _ray(calibs[v], sp.top_px)
        best, dist = None, np.inf
        for m in multi:
            top = np.array([m.x_mm, m.y_mm, (m.height or 0) * s.unit_mm + s.stick_thickness_mm / 2])
            ray_miss = _miss(ray, top)
            xy = np.inf if sp.x_mm is None else float(np.hypot(sp.x_mm - m.x_mm, sp.y_mm - m.y_mm))
            if (ray_miss < FOLD_RAY_MM or xy < FOLD_XY_MM) and min(ray_miss, xy) < dist:
                best, dist = m, min(ray_miss, xy)
        if best is None:
            best = _column_by_rests(v, k, columns, observations, calibs, tracks())
        if (
            best is None
            and cameras(calibs) >= LONE_ROADS_MIN_VIEWS
            and _roads_alone(v, k, observations, tracks())
        ):
            warnings.append(
                f"view {v}: support near ({sp.top_px[0]:.0f}, {sp.top_px[1]:.0f}) px carries only roads no "
                "other view reads: left out of the columns"
            )
            continue
        if best is None:
            kept.append(col)
            continue
        if best.supports[v] is None:
            best.supports = tuple(k if u == v else j for u, j in enumerate(best.supports))
            h, conf = best.height, best.height_confidence
            _set_height(observations[v], calibs[v], k, h, conf, best.x_mm, best.y_mm)  # type: ignore[arg-type]
        else:
            warnings.append(
                f"view {v}: support near ({sp.top_px[0]:.0f}, {sp.top_px[1]:.0f}) px stands where another "
                "column stands: left out of the columns"
            )
    return kept


def _roads_alone(
    v: int, k: int, observations: Sequence[TokyoObservation], tracks: list[list[int | None]]
) -> bool:
    """Whether every road resting on view v's support k is a stick no other view reads."""
    of_view = _track_of(tracks)
    on = [i for i, st in enumerate(observations[v].sticks) if k in st.rests]
    return all(sum(j is not None for j in of_view[(v, i)]) == 1 for i in on)


def _track_of(tracks: list[list[int | None]]) -> dict[tuple[int, int], list[int | None]]:
    """(view, stick index) -> the track holding that stick."""
    return {(u, j): t for t in tracks for u, j in enumerate(t) if j is not None}


def _column_by_rests(
    v: int,
    k: int,
    columns: list[ViewColumn],
    observations: Sequence[TokyoObservation],
    calibs: Sequence[TokyoCalibration],
    tracks: list[list[int | None]],
) -> ViewColumn | None:
    """The column other views triangulate under the road ends view v rests on its support k: each
    such end's stick as the other views read it (matched by its ends' rays) rests that end on one of
    their supports; when at least FOLD_REST_VOTES of them do, all on one column seen by two or more
    views, view v's support is that column misplaced (a road end grouped with the wrong column, whose
    top point is then off along the stick)."""
    of_view = _track_of(tracks)
    col_of = column_index(columns)
    votes: list[int | None] = []
    for i, st in enumerate(observations[v].sticks):
        for e, r in enumerate(st.rests):
            if r != k:
                continue
            ray = _ray(calibs[v], st.endpoints[e])
            for u, j in enumerate(of_view[(v, i)]):
                if u == v or j is None:
                    continue
                other = observations[u].sticks[j]
                gaps = [closest_points(*ray, *_ray(calibs[u], other.endpoints[f]))[1] for f in (0, 1)]
                rest = other.rests[int(np.argmin(gaps))]
                votes.append(None if rest is None else col_of.get((u, rest)))
    found = {c for c in votes if c is not None}
    if len(votes) < FOLD_REST_VOTES or len(found) != 1 or None in votes:
        return None
    best = columns[found.pop()]
    return best if sum(j is not None for j in best.supports) >= 2 else None


def _fuse_column(
    col: list[int | None], observations: Sequence[TokyoObservation], calibs: Sequence[TokyoCalibration]
) -> ViewColumn:
    seen = [(v, k) for v, k in enumerate(col) if k is not None]
    readings = [observations[v].supports[k] for v, k in seen]
    # the one-view answer: the surest view's
    one = max(readings, key=lambda r: r.height_confidence)
    fused = ViewColumn(tuple(col), one.height, one.height_confidence, one.x_mm, one.y_mm, "one-view")
    fused.junction = any(r.junction for r in readings)
    tri = _one_per_camera(seen, calibs)  # a camera given twice is one ray, not two
    if len(tri) < 2:
        return fused
    s = calibs[seen[0][0]].sizes
    rays = [_ray(calibs[v], observations[v].supports[k].top_px) for v, k in tri]
    p, gap = triangulate(np.array([c for c, _ in rays]), np.array([d for _, d in rays]))
    odd = _odd_ray(rays, gap)
    if odd is not None:
        fused_rest = _without_view(col, tri[odd], observations, calibs)
        if fused_rest is not None:
            return fused_rest
    lone = min(_n_ends(observations[v], k) for v, k in tri) <= 1
    ends = _end_points(tri, observations, calibs, p)
    z = float(p[2])
    end_gap = float(np.median([g for g, _ in ends])) if ends else np.inf
    # three or more top rays meeting closely are no guess along a stick: each view's guess would slide
    # along the stick by its own error, and their rays would then not meet
    many = len(tri) >= 3
    guessed = lone and (not many or gap > LONE_TOP_GAP_MM)
    if guessed and ends or end_gap * (END_MARGIN if many else 1.0) < gap:
        # under a lone road end the top point is a guess along the stick (its overhang), but the
        # stick's end is one 3D point in every view: its height is the column's (the road's slope
        # over an overhang is a millimetre or so). Where roads meet, their axes fix the top, unless
        # the ends' rays meet better (a misgrouped end pulls the axes' meeting point off). What a
        # camera sees of an end is the end of the rod's top face, half a stick above its axis.
        z = float(np.median([q[2] for _, q in ends])) - s.stick_thickness_mm / 2
        gap = end_gap
    if gap > TRUST_GAP_MM and many:
        # one misread top among three or more: the others may still meet; the view whose ray misses
        # their point most is left out of the triangulation and takes the others' answer
        worst = max(range(len(tri)), key=lambda i: _miss(rays[i], p))
        fused_rest = _without_view(col, tri[worst], observations, calibs)
        if fused_rest is not None:
            return fused_rest
    fused.top_mm = (round(float(p[0]), 1), round(float(p[1]), 1), round(z, 1))
    fused.ray_gap_mm = round(gap, 2)
    if gap > TRUST_GAP_MM:
        return fused  # the tops are not one point (a misread top in one view): keep the one-view height
    h_real = (z - s.stick_thickness_mm / 2) / s.unit_mm
    if h_real < LOWEST_TOP_UNITS:
        # the rays meet at the table, under any column's top: the views' top points are something on
        # the table, not this column's top (tuning seeds: 2 wrong heights kept right, none broken)
        return fused
    h, conf = _choose_height(h_real, gap, [observations[v].supports[k] for v, k in tri])
    fused.height, fused.height_confidence, fused.source = h, round(conf, 3), "views"
    fused.x_mm, fused.y_mm = round(float(p[0]), 1), round(float(p[1]), 1)
    for v, k in seen:
        _set_height(observations[v], calibs[v], k, h, conf, float(p[0]), float(p[1]))
    return fused


def _without_view(
    col: list[int | None],
    left_out: tuple[int, int],
    observations: Sequence[TokyoObservation],
    calibs: Sequence[TokyoCalibration],
) -> ViewColumn | None:
    """The column fused without one view's reading, that view's support taking the others' answer;
    None when the others do not triangulate it."""
    v, k = left_out
    rest = [j if u != v else None for u, j in enumerate(col)]
    fused_rest = _fuse_column(rest, observations, calibs)
    if fused_rest.source != "views":
        return None
    fused_rest.supports = tuple(col)
    h, conf = fused_rest.height, fused_rest.height_confidence
    _set_height(observations[v], calibs[v], k, h, conf, fused_rest.x_mm, fused_rest.y_mm)  # type: ignore[arg-type]
    return fused_rest


# three or more top rays: one view's top point on the wrong thing (a road end resting on the column, a
# stacked road, a neighbouring column) can leave all the rays within TRUST_GAP_MM of one point, a unit off.
# When they miss by ODD_MIN_GAP_MM or more and the others, without one of them, meet ODD_MARGIN times
# closer while it misses their point by over ODD_MISS_MM, that one is left out. The others meeting, not
# the ray missing most, picks it: the least-squares point is pulled towards the odd ray, so the ray
# missing it most can be a right one (docs/vision/tokyo.md, "Three cameras: heights").
ODD_MIN_GAP_MM = 5.0
ODD_MARGIN = 3.0
ODD_MISS_MM = 3.0


def _odd_ray(rays: list[tuple[np.ndarray, np.ndarray]], gap: float) -> int | None:
    """The ray of three or more whose leaving out makes the others meet much closer, if any."""
    if len(rays) < 3 or gap < ODD_MIN_GAP_MM:
        return None
    best, best_gap = None, np.inf
    for i in range(len(rays)):
        others = [r for j, r in enumerate(rays) if j != i]
        q, g = triangulate(np.array([c for c, _ in others]), np.array([d for _, d in others]))
        if g < best_gap and _miss(rays[i], q) > ODD_MISS_MM:
            best, best_gap = i, g
    return best if best is not None and best_gap * ODD_MARGIN < gap else None


def _miss(ray: tuple[np.ndarray, np.ndarray], p: np.ndarray) -> float:
    """How far (mm) a ray passes from a point."""
    c, d = ray
    return float(np.linalg.norm(np.cross(p - c, d)))


SIGMA_UNITS = 0.25  # spread of the triangulated height (column units) when the rays meet exactly
SIGMA_PER_MM_GAP = 0.05  # more spread per mm the rays miss each other by
ONE_VIEW_WEIGHT = 1.0  # log-odds a view's own height reading adds to that height


def _choose_height(h_real: float, gap: float, readings: list) -> tuple[int, float]:
    """The height that best explains the triangulated top (Gaussian in units) and the views' own
    readings (each a vote weighted by its confidence): the rays decide unless the top lies near half
    a unit, where the base evidence of the views breaks the tie. Returns (height, confidence)."""
    hs = np.arange(1, MAX_HEIGHT + 1)
    sigma = np.hypot(SIGMA_UNITS, SIGMA_PER_MM_GAP * gap)
    score = -0.5 * ((h_real - hs) / sigma) ** 2
    for r in readings:
        if r.height is not None:
            score[hs == r.height] += ONE_VIEW_WEIGHT * (0.5 + 0.5 * r.height_confidence)
    prob = np.exp(score - score.max())
    prob /= prob.sum()
    k = int(np.argmax(prob))
    return int(hs[k]), float(prob[k])


END_GAP_MM = 4.0


def _ends_on(obs: TokyoObservation, k: int) -> list[tuple[int, int]]:
    """(stick, end) of a view's road ends resting on its support k."""
    return [(i, e) for i, st in enumerate(obs.sticks) for e, r in enumerate(st.rests) if r == k]


def _n_ends(obs: TokyoObservation, k: int) -> int:
    return len(_ends_on(obs, k))


def _end_points(
    seen: list[tuple[int, int]],
    observations: Sequence[TokyoObservation],
    calibs: Sequence[TokyoCalibration],
    top: np.ndarray,
) -> list[tuple[float, np.ndarray]]:
    """(ray gap, point) of the triangulated stick ends resting on this column, ends paired across views
    closest rays first: an end is one 3D point, well found in every view, while the top point under a
    lone end is only known up to the stick's overhang."""
    out = []
    va, ka = seen[0]
    ea = _ends_on(observations[va], ka)
    for vb, kb in seen[1:]:
        eb = _ends_on(observations[vb], kb)
        cands = []
        points: dict[tuple[tuple[int, int], tuple[int, int]], np.ndarray] = {}
        for a in ea:
            ca, da = _ray(calibs[va], observations[va].sticks[a[0]].endpoints[a[1]])
            for b in eb:
                cb, db = _ray(calibs[vb], observations[vb].sticks[b[0]].endpoints[b[1]])
                q, gap, ta, tb = closest_points(ca, da, cb, db)
                if gap < END_GAP_MM and ta > 0 and tb > 0 and np.hypot(*(q[:2] - top[:2])) < 30:
                    cands.append((gap, a, b))
                    points[(a, b)] = q
        out += [(gap, points[(a, b)]) for a, b, gap in greedy_pairs(cands)]
    return out


def _set_height(
    obs: TokyoObservation, calib: TokyoCalibration, k: int, h: int, conf: float, x: float, y: float
) -> None:
    """A view's support k gets the fused height and position; its base and the ends of the sticks
    resting on it follow."""
    sp = obs.supports[k]
    sp.height, sp.height_confidence = h, round(conf, 3)
    sp.x_mm, sp.y_mm = round(x, 1), round(y, 1)
    uv, _ = calib.camera.project(np.array([[x, y, 0.0]]))
    sp.base_px = (float(uv[0, 0]), float(uv[0, 1]))
    z = h * calib.sizes.unit_mm + calib.sizes.stick_thickness_mm / 2
    for st in obs.sticks:
        if st.endpoints_mm is None or k not in st.rests:
            continue
        ends = list(st.endpoints_mm)
        for e, r in enumerate(st.rests):
            if r == k:
                xyz = calib.camera.ray_to_plane(np.array([st.endpoints[e]], np.float64), z)[0]
                ends[e] = (round(float(xyz[0]), 1), round(float(xyz[1]), 1), round(z, 1))
        st.endpoints_mm = (ends[0], ends[1])
