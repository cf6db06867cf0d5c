"""Road sticks across calibrated views of one table: every view votes.

A road stick is one 3D segment between two rest points, so every view that reads it reads the same two
ends. Sticks are matched across every pair of views by those ends (the rays through them meet,
whatever height the views read for the columns under them) and the pairs joined into tracks, one per
physical stick. The first view (`views[0]`) carries the fused table:
* a stick views[0] and at least one other view read is confirmed;
* a stick views[0] alone reads is looked for along its reprojection in every other view's piece mask:
  a view that shows (nearly) bare table there, or little of it while its 3D length is no whole
  stick's, contradicts it, and one such view drops it (kept otherwise: hidden or missed there);
* a stick other views read and views[0] does not is added once, from a reading a whole stick long,
  where views[0] shows pieces along it (less is asked when two or more views read it; for those, plane
  parallax in views[0] counts too) and, when one view alone reads it, the remaining views do not show
  bare table along it;
* two fused sticks lying end on end within a few widths, along each other, are one read twice: the one
  fewer views read goes, and when only it is a whole stick long the one that stays takes its ends;
* a stick views[0] alone reads that runs along one two or more views read is a part of it read again,
  and goes;
* a reading confirmed by another view takes that view's whole reading's ends where it is no whole stick
  long, or stops short in the image, and the two lie along each other.
Crossings with an added stick, or with one whose ends were replaced by a whole stick's, are those a
view reading both sticks reports, with that view's over/under. See docs/vision/tokyo.md, "Two
cameras" and "Three cameras".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from vision.tokyo.calibration import TokyoCalibration
from vision.tokyo.crossing_votes import segment_params, vote_tops
from vision.tokyo.foreground import BRIGHT, pieces_masks
from vision.tokyo.observation import CrossingReading, StickReading, TokyoObservation
from vision.tokyo.parallax import _small
from vision.tokyo.rays import (
    closest_points,
    ends_apart,
    greedy_pairs,
    join_pairs,
    pixel_pairs,
    pixel_rays,
    same_camera,
)
from vision.tokyo.sticks import _sample

STICK_MATCH_MM = 8.0  # rays through one stick's ends in two views miss each other by less than this
ONE_END_MM, LOOSE_END_MM = 2.0, 20.0  # an end meeting within ONE_END_MM lets the other miss by LOOSE_END_MM
END_Z_SLACK_MM = 5.0  # an end may triangulate this far below the table (reading error)
MAX_HEIGHT = 9  # column units; the reader's tallest column
# a stick one view reads and no other view matches is dropped when the other view shows less than
# KEEP_EVIDENCE of pieces along it and its 3D length is not the set's within KEEP_LENGTH_TOL (a part
# of a stick, two read as one, a column); the tuning seeds' one-view-only true sticks lie at
# 0.68-1.44 of the length but nearly all show pieces in the other view
KEEP_EVIDENCE = 0.8
BARE_TABLE = 0.1  # ... and whatever its length when the other view shows (nearly) no pieces along it
KEEP_LENGTH_TOL = 0.17
ADD_EVIDENCE = 0.6  # ... for it to be added to a view that did not read it
ADD_EVIDENCE_VOTED = 0.4  # ... when two or more other views read it
# a stick views[0] alone reads is dropped when this many other views (or all that see it) contradict it
DROP_VOTES = 1
# a stick one other view alone reads is not added when this many of the views not reading it contradict it
ADD_AGAINST_VOTES = 1
WHOLE_TOL = 0.12  # an added stick's 3D length is the set's within this share
DUP_WIDTHS = 2.5  # two fused sticks whose ends all lie within this many widths are one read twice
# a stick views[0] alone reads ("kept") that runs along a stick two or more views read, over this share
# of its length within a stick's width of it, is a part of that stick read again (or a reading that
# slid off it onto a neighbour): seeds 3/6/7/8 and 301-304 had 19 such false sticks at 0.57-1.0 and
# true kept sticks at 0.19-0.43 (two at 0.76, beside a skewed confirmed reading)
FRAGMENT_COVER = 0.55
# views[0]'s part of a stick takes a whole reading's ends from another view only when the shorter of the
# two lies along the longer for this share of it in views[0]: ends matched across views can pair two
# different sticks (seed 301 table 19: a right reading replaced by a crossing stick's ends)
REFINE_COVER = 0.6
# a confirmed reading whose 3D ends are a whole stick apart but whose image ends span less than this
# share of another view's whole reading stopped short in the image (seed 7 table 29: 118 of 158 px)
SHORT_SHARE = 0.78
FRAME_MARGIN_PX = 4.0
# a stick two or more other views read and views[0]'s colour mask misses is added where as much of it
# shows plane parallax in views[0] as a one-reader stick needs pieces (vision.tokyo.parallax); with one
# reader, or the smaller share asked of two, the parallax mask's own noise added a false stick (s8)
PARALLAX_VOTES = 2
PARALLAX_EVIDENCE = ADD_EVIDENCE
MASK_SCALE = 0.5  # the piece masks for the evidence are made at half size


@dataclass
class StickLink:
    """One stick across views: its index in each view's `sticks` (None where that view did not read
    it) and what the fusion made of it."""

    # index into each view's sticks (None where that view does not read it); views[0]'s after the
    # fusion (None for a dropped stick)
    sticks: tuple[int | None, ...]
    # "views" (read by views[0] and another) | "kept" (views[0] only, no view that can see it shows
    # table there) | "dropped" (from views[0]: contradicted, or read twice) | "added" (to views[0]) |
    # "refined" (views[0]'s part of a stick given the whole stick's ends another view reads)
    status: str
    evidence: float | None = None  # share of pieces along the reprojection in the other views (the most)


def column_index(columns: Sequence) -> dict[tuple[int, int], int]:
    """(view, support index) -> index of the fused column it belongs to."""
    return {(v, k): c for c, col in enumerate(columns) for v, k in enumerate(col.supports) if k is not None}


def _end_cost(
    rays_a: list[tuple[np.ndarray, np.ndarray]], rays_b: list[tuple[np.ndarray, np.ndarray]], top_z: float
) -> float:
    """How far (mm) the rays through two readings' ends miss each other, the worse end of the better
    order; ends must meet in front of both cameras, between the table and the tallest column. An end
    is one 3D point whatever its column's height, so no height reading enters here."""
    best = float("inf")
    for order in ((0, 1), (1, 0)):
        gaps = []
        for ea, eb in zip((0, 1), order, strict=True):
            p, gap, s, t = closest_points(*rays_a[ea], *rays_b[eb])
            if s <= 0 or t <= 0 or not -END_Z_SLACK_MM < p[2] < top_z:
                gap = float("inf")
            gaps.append(gap)
        lo, hi = sorted(gaps)
        # one end may be read off (an end hidden under another road, a cut end): a pair whose other
        # end meets closely tolerates more there
        best = min(best, hi if lo > ONE_END_MM else hi * STICK_MATCH_MM / LOOSE_END_MM)
    return best


def match_sticks(
    obs_a: TokyoObservation,
    obs_b: TokyoObservation,
    calib_a: TokyoCalibration,
    calib_b: TokyoCalibration,
) -> list[tuple[int, int]]:
    """(stick in a, stick in b) read as one, closest ends first, each once."""
    if same_camera(calib_a.camera, calib_b.camera):  # one camera given twice: the same ends, pixel for pixel
        pairs = pixel_pairs([sa.endpoints for sa in obs_a.sticks], [sb.endpoints for sb in obs_b.sticks])
        return [(i, j) for i, j, _ in pairs]
    s = calib_a.sizes
    top_z = (MAX_HEIGHT + 1) * s.unit_mm + s.stick_thickness_mm
    rays_b = [pixel_rays(calib_b.camera, sb.endpoints) for sb in obs_b.sticks]
    cands = []
    for i, sa in enumerate(obs_a.sticks):
        rays_a = pixel_rays(calib_a.camera, sa.endpoints)
        for j in range(len(obs_b.sticks)):
            cost = _end_cost(rays_a, rays_b[j], top_z)
            if cost < STICK_MATCH_MM:
                cands.append((cost, i, j))
    return [(i, j) for i, j, _ in greedy_pairs(cands)]


def reproject(st: StickReading, calib: TokyoCalibration, shape: tuple[int, ...]) -> np.ndarray | None:
    """A stick's 3D ends in another camera's image (2,2), None when either end falls outside it."""
    if st.endpoints_mm is None:
        return None
    uv, depth = calib.camera.project(np.array(st.endpoints_mm, np.float64))
    h, w = shape[:2]
    m = FRAME_MARGIN_PX
    if (depth <= 0).any() or (uv[:, 0] < m).any() or (uv[:, 0] > w - 1 - m).any():
        return None
    if (uv[:, 1] < m).any() or (uv[:, 1] > h - 1 - m).any():
        return None
    return uv


def evidence(fg: np.ndarray, uv: np.ndarray, scale: float = 1.0) -> float:
    """Share of the middle 80 % of a segment's axis (image pixels) that is piece in a view's piece
    mask (made at `scale` of the image's size)."""
    t = np.linspace(0.1, 0.9, 33)[:, None]
    pts = (uv[0][None] + t * (uv[1] - uv[0])[None]) * scale
    return float(np.mean(_sample(fg, pts) > 0))


def pieces(image: np.ndarray) -> np.ndarray:
    """The reader's ordinary piece mask of a view (anything over the table: sticks, columns, cars), at
    MASK_SCALE of its size: a stick is still a few pixels wide there, at a quarter of the cost."""
    (fg,), _ = pieces_masks(_small(image, MASK_SCALE), (BRIGHT,))
    return fg


def fuse_sticks(
    observations: Sequence[TokyoObservation],
    calibs: Sequence[TokyoCalibration],
    columns: Sequence,
    images: Sequence[np.ndarray],
    tracks: list[list[int | None]] | None = None,
    parallax: np.ndarray | Callable[[], np.ndarray] | None = None,
) -> tuple[list[StickLink], list[str]]:
    """Confirm, add and drop views[0]'s sticks by the votes of every other view (see the module's doc);
    views[0] is updated in place. `tracks`: the views' sticks matched already (`stick_tracks`), if
    the caller has them; `parallax`: views[0]'s plane-parallax mask at MASK_SCALE
    (`parallax.parallax_mask`), or a function making it when first needed, if wanted. Returns the
    links and warnings."""
    n = len(observations)
    cols = column_index(columns)
    a = observations[0]
    fgs: dict[int, np.ndarray] = {}

    def fg(v: int) -> np.ndarray:  # a view's piece mask, made when first asked (it costs a reading's tenth)
        if v not in fgs:
            fgs[v] = pieces(images[v])
        return fgs[v]

    def share_in(st: StickReading, v: int) -> float | None:
        uv = reproject(st, calibs[v], images[v].shape)
        return None if uv is None else evidence(fg(v), uv, MASK_SCALE)

    made: list[np.ndarray] = []

    def par0() -> np.ndarray:  # made only when a stick needs it (it costs about twice the fusion)
        if not made:
            made.append(parallax() if callable(parallax) else parallax)  # type: ignore[arg-type]
        return made[0]

    if tracks is None:
        tracks = stick_tracks(observations, calibs)
    links: list[StickLink] = []
    warnings: list[str] = []
    partner: list[dict[int, int]] = [{} for _ in range(n)]  # view -> {stick in a: stick in that view}
    first = {t[0]: t for t in tracks if t[0] is not None}
    drop: set[int] = set()
    for i, st in enumerate(a.sticks):
        idx = tuple(first[i])
        for v in range(1, n):
            if idx[v] is not None:
                partner[v][i] = idx[v]
        if any(k is not None for k in idx[1:]):
            st.confidence = round(min(1.0, 1 - (1 - st.confidence) * 0.5), 3)
            links.append(StickLink(idx, "views"))
            _refine_from_readers(
                st, idx, observations, calibs, images[0].shape, cols, links[-1], _whole(st, calibs[0])
            )
            continue
        # read by views[0] alone: every other view that can see it votes on it
        shares = [sh for v in range(1, n) if (sh := share_in(st, v)) is not None]
        whole = _whole(st, calibs[0], KEEP_LENGTH_TOL)
        against = sum(sh < BARE_TABLE or sh < KEEP_EVIDENCE and not whole for sh in shares)
        share = max(shares) if shares else None
        if shares and against >= min(len(shares), DROP_VOTES):
            drop.add(i)
            links.append(StickLink(idx, "dropped", None if share is None else round(share, 3)))
        else:
            links.append(StickLink(idx, "kept", None if share is None else round(share, 3)))
    # sticks other views read and views[0] does not: those read by more views first
    added: list[tuple[int, list[int | None]]] = []  # (the view whose reading is taken, track)
    added_uv: list[np.ndarray] = []
    others = [t for t in tracks if t[0] is None]
    others.sort(key=lambda t: -sum(k is not None for k in t))
    for t in others:
        readers = [v for v in range(1, n) if t[v] is not None]
        whole = [v for v in readers if _whole(observations[v].sticks[t[v]], calibs[v])]
        if not whole:
            continue
        vb = whole[0]
        st = observations[vb].sticks[t[vb]]
        uv = reproject(st, calibs[0], images[0].shape)
        if uv is None:
            continue
        share = evidence(fg(0), uv, MASK_SCALE)
        need = ADD_EVIDENCE if len(readers) == 1 else ADD_EVIDENCE_VOTED
        if share < need and parallax is not None and len(readers) >= PARALLAX_VOTES:
            # a stick nearly the table's colour is missing from views[0]'s colour mask, not from its
            # plane-parallax one (it stands above the table)
            plx = evidence(par0(), uv, MASK_SCALE)
            share = plx if plx >= PARALLAX_EVIDENCE else share
        if share < need:
            continue
        if len(readers) == 1:
            # one reader: the views that do not read it must not contradict it either
            shares = [sh for v in range(1, n) if v != vb and (sh := share_in(st, v)) is not None]
            if sum(sh < ADD_EVIDENCE for sh in shares) >= ADD_AGAINST_VOTES:
                continue
        if any(_overlaps(uv, q, a.sticks[0].width_px if a.sticks else 6.0) for q in added_uv):
            continue  # the same stick already added through another view's reading
        k = _along(a, uv, drop)
        if k is not None:
            if links[k].status in ("kept", "views") and not _whole(a.sticks[k], calibs[0]):
                # views[0] reads part of this stick (or runs it on past an end), alone or alike with
                # another view (both stopping at one occluder): the whole stick a view reads takes its place
                _take_ends(a.sticks[k], st, uv, _rests_in_first(st, vb, cols))
                for v in readers:
                    partner[v][k] = t[v]  # type: ignore[assignment]
                links[k].status, links[k].evidence = "refined", round(share, 3)
            continue
        added.append((vb, t))
        added_uv.append(uv)
        links.append(StickLink(tuple(t), "added", round(share, 3)))
    same: dict[int, int] = {}  # a views[0] stick dropped as a duplicate -> the one of views[0] kept
    if DUP_WIDTHS > 0:
        added = _drop_duplicates(a, observations, calibs, cols, links, drop, added, added_uv, partner, same)
    if FRAGMENT_COVER < 1:
        _drop_fragments(a, links, drop, added_uv)
    if drop:
        warnings.append(f"view 0: {len(drop)} stick(s) dropped (no other view shows them, or read twice)")
    refined = {i for i, ln in enumerate(links[: len(a.sticks)]) if ln.status == "refined"}
    new_of = _rebuild(a, observations, calibs, cols, drop, added, partner, same, refined)
    n_kept = len(new_of)
    for ln in links:  # views[0]'s indices after the fusion
        if ln.status == "added":
            ln.sticks = (n_kept, *ln.sticks[1:])
            n_kept += 1
        elif ln.sticks[0] is not None:
            ln.sticks = (new_of.get(ln.sticks[0]), *ln.sticks[1:])
    return links, warnings


def _refine_from_readers(
    st: StickReading,
    idx: tuple[int | None, ...],
    observations: Sequence[TokyoObservation],
    calibs: Sequence[TokyoCalibration],
    shape: tuple[int, ...],
    cols: dict[tuple[int, int], int],
    link: StickLink,
    whole: bool = False,
) -> None:
    """views[0]'s reading of a stick other views read too, no whole stick long (an end run on past
    its end, or stopped short): a reading of another view that is a whole stick long gives its ends,
    when the two lie along each other in views[0] (ends matched across views can pair two sticks).
    A reading whose 3D ends are a whole stick apart (`whole`: they rest on the right columns) is
    refined only where its ends in the image span under SHORT_SHARE of the whole reading's."""
    seg = np.array(st.endpoints, np.float64)
    for v in range(1, len(observations)):
        j = idx[v]
        if j is None or not _whole(observations[v].sticks[j], calibs[v]):
            continue
        other = observations[v].sticks[j]
        uv = reproject(other, calibs[0], shape)
        if uv is None or not _along_each_other(seg, uv, st.width_px):
            continue
        if whole and np.linalg.norm(seg[1] - seg[0]) >= SHORT_SHARE * np.linalg.norm(uv[1] - uv[0]):
            continue
        _take_ends(st, other, uv, _rests_in_first(other, v, cols))
        link.status = "refined"
        return


def _votes(link: StickLink) -> int:
    """How many views read a stick: a refined one counts the view whose whole stick it took."""
    n = sum(k is not None for k in link.sticks)
    return max(n, 2) if link.status == "refined" else n


def _drop_duplicates(
    a: TokyoObservation,
    observations: Sequence[TokyoObservation],
    calibs: Sequence[TokyoCalibration],
    cols: dict[tuple[int, int], int],
    links: list[StickLink],
    drop: set[int],
    added: list[tuple[int, list[int | None]]],
    added_uv: list[np.ndarray],
    partner: list[dict[int, int]],
    same: dict[int, int],
) -> list[tuple[int, list[int | None]]]:
    """Two sticks of the fused views[0] whose ends both lie within DUP_WIDTHS stick widths of each
    other, lying along each other (`_along_each_other`: not two neighbours side by side, nor two
    roads leaving one column at a small angle), are one stick read twice (the reader's duplicate, or
    an added reading of a stick views[0] reads a little off): the one fewer views read goes (a tie
    keeps both). When the one that stays is no whole stick long and the one that goes is, it takes the
    whole one's ends: the reading more views confirm can be the one stopping short of a crossing stick.
    Updates `drop`, `links`, `partner`, `same` (views[0]'s dropped duplicate -> its kept twin) and
    `added_uv` in place; returns the added sticks that stay."""
    n0 = len(a.sticks)

    def whole(x: int) -> bool:  # an added reading is a whole stick by construction
        return x >= n0 or _whole(a.sticks[x], calibs[0])

    def take_whole(win: int, lose: int) -> None:  # views[0]'s `win` takes the ends of `lose`
        if lose >= n0:
            vb, track = added[lose - n0]
            other = observations[vb].sticks[track[vb]]  # type: ignore[index]
            _take_ends(a.sticks[win], other, added_uv[lose - n0], _rests_in_first(other, vb, cols))
            readers = dict(enumerate(track))
        else:
            st, other = a.sticks[win], a.sticks[lose]
            st.endpoints, st.endpoints_mm, st.rests, st.role = (
                other.endpoints,
                other.endpoints_mm,
                other.rests,
                other.role,
            )
            readers = {v: p.get(lose) for v, p in enumerate(partner)}
        for v in range(1, len(partner)):
            j = readers.get(v)
            if j is not None and win not in partner[v]:
                partner[v][win] = j  # where the whole stick is read, to find its crossings there
        links[win].status = "refined"

    width = float(np.median([s.width_px for s in a.sticks])) if a.sticks else 6.0
    items = [(i, np.array(st.endpoints, np.float64)) for i, st in enumerate(a.sticks) if i not in drop]
    items += [(n0 + m, uv) for m, uv in enumerate(added_uv)]
    gone: set[int] = set()
    for x, (p, ends_p) in enumerate(items):
        for q, ends_q in items[x + 1 :]:
            if p in gone or q in gone:
                continue
            gap = ends_apart(ends_p, ends_q)
            vp, vq = _votes(links[p]), _votes(links[q])
            if gap < DUP_WIDTHS * width and vp != vq and _along_each_other(ends_p, ends_q, width):
                lose, win = (p, q) if vp < vq else (q, p)
                gone.add(lose)
                if not whole(win) and whole(lose):
                    take_whole(win, lose)
                if lose < n0 and win < n0:
                    same[lose] = win
    for i in gone:
        if i < n0:
            drop.add(i)
            links[i].status = "dropped"
    kept_added = [m for m in range(len(added)) if n0 + m not in gone]
    links[n0:] = [links[n0 + m] for m in kept_added]
    added_uv[:] = [added_uv[m] for m in kept_added]
    return [added[m] for m in kept_added]


def _drop_fragments(
    a: TokyoObservation, links: list[StickLink], drop: set[int], added_uv: list[np.ndarray]
) -> None:
    """Drop (in `drop` and `links`) each stick views[0] alone reads that runs along a stick two or more
    views read for FRAGMENT_COVER of its length (see FRAGMENT_COVER)."""
    n0 = len(a.sticks)
    width = float(np.median([s.width_px for s in a.sticks])) if a.sticks else 6.0
    confirmed = [
        np.array(a.sticks[i].endpoints, np.float64)
        for i in range(n0)
        if i not in drop and _votes(links[i]) >= 2
    ]
    confirmed += [uv for m, uv in enumerate(added_uv) if _votes(links[n0 + m]) >= 2]
    for i, st in enumerate(a.sticks):
        if i in drop or links[i].status != "kept":
            continue
        seg = np.array(st.endpoints, np.float64)
        if any(_covered(seg, q, width) >= FRAGMENT_COVER for q in confirmed):
            drop.add(i)
            links[i].status = "dropped"


def _along_each_other(p: np.ndarray, q: np.ndarray, width: float) -> bool:
    """Whether the shorter of two segments of one image lies along the longer for REFINE_COVER of it."""
    short, long_ = (p, q) if np.linalg.norm(p[1] - p[0]) <= np.linalg.norm(q[1] - q[0]) else (q, p)
    return _covered(short, long_, width) >= REFINE_COVER


def _covered(seg: np.ndarray, other: np.ndarray, width: float, samples: int = 21) -> float:
    """The share of a segment's points (of `samples` evenly spaced) within `width` of another segment."""
    pts = seg[0] + np.linspace(0.0, 1.0, samples)[:, None] * (seg[1] - seg[0])
    d = other[1] - other[0]
    t = np.clip((pts - other[0]) @ d / max(float(d @ d), 1e-9), 0.0, 1.0)
    return float(np.mean(np.linalg.norm(pts - (other[0] + t[:, None] * d), axis=1) <= width))


def stick_tracks(
    observations: Sequence[TokyoObservation], calibs: Sequence[TokyoCalibration]
) -> list[list[int | None]]:
    """Every stick of every view in one track per physical stick: the views' sticks matched pair by
    pair (`match_sticks`) and joined; a stick no other view matches is a track of its own."""
    n = len(observations)
    pairs = {}
    for va in range(n):
        for vb in range(va + 1, n):
            matches = match_sticks(observations[va], observations[vb], calibs[va], calibs[vb])
            pairs[(va, vb)] = [(i, j, 0.0) for i, j in matches]
    tracks = join_pairs(n, pairs)
    seen = {(v, k) for t in tracks for v, k in enumerate(t) if k is not None}
    for v, obs in enumerate(observations):
        alone = [k for k in range(len(obs.sticks)) if (v, k) not in seen]
        tracks += [[k if u == v else None for u in range(n)] for k in alone]
    return tracks


def _overlaps(uv: np.ndarray, other: np.ndarray, width: float) -> bool:
    """Whether two segments of one image lie along each other (within 6 degrees and a stick's width,
    overlapping half of the first)."""
    d = uv[1] - uv[0]
    length = float(np.linalg.norm(d))
    if length < 1:
        return False
    u = d / length
    e = other[1] - other[0]
    if abs(float(e @ u)) / max(float(np.linalg.norm(e)), 1e-6) < np.cos(np.radians(6)):
        return False
    nrm = np.array([-u[1], u[0]])
    if max(abs(float((q - uv[0]) @ nrm)) for q in other) > max(width, 4.0):
        return False
    s = sorted(float((q - uv[0]) @ u) for q in other)
    return min(s[1], length) - max(s[0], 0.0) > 0.5 * length


def _whole(st: StickReading, calib: TokyoCalibration, tol: float = WHOLE_TOL) -> bool:
    """Whether a reading's 3D ends are a whole stick apart: a part of a stick, two read as one, or a
    column read as a stick is not added to another view."""
    if st.endpoints_mm is None:
        return False
    length = float(np.linalg.norm(np.subtract(st.endpoints_mm[1], st.endpoints_mm[0])))
    return abs(length / calib.sizes.stick_length_mm - 1) < tol


def _rests_in_first(
    st: StickReading, view: int, cols: dict[tuple[int, int], int]
) -> tuple[int | None, int | None]:
    """The supports of views[0] under another view's stick's ends (None: table, or a column views[0]
    does not read)."""
    support_of = {c: k for (v, k), c in cols.items() if v == 0}
    r = [support_of.get(cols.get((view, e), -1)) if e is not None else None for e in st.rests]
    return r[0], r[1]


def _take_ends(
    st: StickReading, other: StickReading, uv: np.ndarray, rests: tuple[int | None, int | None]
) -> None:
    """views[0]'s reading `st` takes the ends another view reads (`uv`: reprojected into views[0])."""
    st.endpoints = ((float(uv[0, 0]), float(uv[0, 1])), (float(uv[1, 0]), float(uv[1, 1])))
    st.endpoints_mm = other.endpoints_mm
    st.rests = rests
    st.role = other.role


def _along(a: TokyoObservation, uv: np.ndarray, drop: set[int]) -> int | None:
    """One of a view's sticks that already lies along a segment (within 6 degrees and a stick's
    width, overlapping half of it), if any: adding the segment would read that stick twice."""
    for k, st in enumerate(a.sticks):
        if k not in drop and _overlaps(uv, np.array(st.endpoints, np.float64), st.width_px):
            return k
    return None


def _rebuild(
    a: TokyoObservation,
    observations: Sequence[TokyoObservation],
    calibs: Sequence[TokyoCalibration],
    cols: dict[tuple[int, int], int],
    drop: set[int],
    added: list[tuple[int, list[int | None]]],
    partner: list[dict[int, int]],
    same: dict[int, int] | None = None,
    refined: set[int] | None = None,
) -> dict[int, int]:
    """views[0] without its dropped sticks and with the added ones (after the kept ones, in order);
    crossings and cars re-indexed (those of a dropped duplicate go to its kept twin, `same`), the added
    and `refined` sticks' crossings found in views[0]'s image (a refined stick's own reading may have
    stopped short of them). Returns the kept sticks' new indices by their old ones."""
    same = same or {}
    keep = [i for i in range(len(a.sticks)) if i not in drop]
    new_of = {i: k for k, i in enumerate(keep)}
    width = float(np.median([s.width_px for s in a.sticks])) if a.sticks else 6.0
    sticks = [a.sticks[i] for i in keep]
    # where each of views[0]'s sticks is in every other view, after re-indexing
    in_view: list[dict[int, int]] = [{new_of[i]: j for i, j in p.items() if i in new_of} for p in partner]
    origin: set[int] = set()
    for vb, track in added:
        sb = observations[vb].sticks[track[vb]]  # type: ignore[index]
        uv, _ = calibs[0].camera.project(np.array(sb.endpoints_mm, np.float64))
        rests = _rests_in_first(sb, vb, cols)
        origin.add(len(sticks))
        for v, j in enumerate(track):
            if j is not None:
                in_view[v][len(sticks)] = j
        sticks.append(
            StickReading(
                ((float(uv[0, 0]), float(uv[0, 1])), (float(uv[1, 0]), float(uv[1, 1]))),
                width,
                sb.color,
                sb.rgb,
                round(sb.confidence * 0.8, 3),
                sb.role,
                rests,
                sb.endpoints_mm,
            )
        )
    crossings = []
    pairs: set[frozenset[int]] = set()
    for c in a.crossings:
        ca, cb, top = (same.get(x, x) for x in (c.a, c.b, c.top))
        if ca in new_of and cb in new_of and ca != cb and frozenset((new_of[ca], new_of[cb])) not in pairs:
            c.a, c.b, c.top = new_of[ca], new_of[cb], new_of[top]
            pairs.add(frozenset((c.a, c.b)))
            crossings.append(c)
    for car in a.cars:
        car.stick = new_of.get(same.get(car.stick, car.stick)) if car.stick is not None else None
    a.sticks = sticks
    a.crossings = crossings
    own = set(range(len(crossings)))  # views[0]'s own readings; those added below are another view's
    origin |= {new_of[i] for i in refined or () if i in new_of}
    for k in sorted(origin):
        for m in range(len(sticks)):
            if m == k or (m in origin and m < k) or frozenset((k, m)) in pairs:
                continue  # each pair once, and not a crossing views[0] reads already
            cr = _added_crossing(a, observations, in_view, k, m, width)
            if cr is not None:
                pairs.add(frozenset((k, m)))
                a.crossings.append(cr)
    vote_tops(a, observations, in_view, own)
    return new_of


def _added_crossing(
    a: TokyoObservation,
    observations: Sequence[TokyoObservation],
    in_view: list[dict[int, int]],
    k: int,
    m: int,
    width: float,
) -> CrossingReading | None:
    """The crossing of views[0]'s sticks k (added) and m in its image, if they cross away from a
    shared column and a view that reads both sticks reads their crossing (its top is taken)."""
    p = np.array(a.sticks[k].endpoints, np.float64)
    q = np.array(a.sticks[m].endpoints, np.float64)
    st = segment_params(p, q)
    if st is None:
        return None
    (s, t), da, db = st, p[1] - p[0], q[1] - q[0]
    hw = width / 2
    near_k = min(s, 1 - s) * float(np.linalg.norm(da)) < 4.5 * hw
    near_m = min(t, 1 - t) * float(np.linalg.norm(db)) < 4.5 * hw
    if near_k and near_m:
        return None  # two roads meeting on a column
    point = p[0] + s * da
    for vb in range(1, len(observations)):
        jk, jm = in_view[vb].get(k), in_view[vb].get(m)
        if jk is None or jm is None:
            continue
        for c in observations[vb].crossings:
            if {c.a, c.b} == {jk, jm}:
                top = k if c.top == jk else m
                return CrossingReading(
                    k, m, (float(point[0]), float(point[1])), top, round(c.confidence * 0.9, 3), c.cue
                )
    # no view reads this crossing: its over/under is not guessed (on the tuning seeds the 3D heights
    # at the crossing chose right for 2 of 4 labelled crossings and reported 8 that were none)
    return None
