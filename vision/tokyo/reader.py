"""`read_tokyo(image, calibration or None) -> TokyoObservation`: the whole Tokyo Highway reading."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

from vision.tokyo.calibration import TokyoCalibration
from vision.tokyo.cars import cars_on_sticks
from vision.tokyo.colours import colour_name
from vision.tokyo.column_ends import trim_column_runs
from vision.tokyo.columns import fit_columns, group_ends
from vision.tokyo.crossing_votes import plan_crossing
from vision.tokyo.crossings import decide_top, intersect
from vision.tokyo.faint_sticks import FAINT_CHROMA, faint_sticks
from vision.tokyo.foreground import (
    BRIGHT,
    CHROMA,
    TableEstimate,
    estimate_table,
    glare_masks,
    pieces_masks,
    thumbnail,
)
from vision.tokyo.hidden_ends import extend_hidden_ends
from vision.tokyo.joint_heights import choose_heights
from vision.tokyo.large_objects import (
    HAND_WARNING,
    LargeObject,
    drop_fingers,
    large_objects,
    rod_half_width_floor,
)
from vision.tokyo.lying_pieces import LYING_WARNING, lit_mat
from vision.tokyo.masked_joins import cut_ends, join_across_mask
from vision.tokyo.observation import (
    CrossingReading,
    StickReading,
    SupportReading,
    TokyoObservation,
)
from vision.tokyo.pixels import distance_l2, nonzero_yx
from vision.tokyo.sticks import Gradients, RawStick, detect_sticks, image_gradients
from vision.tokyo.supports import Blob, find_blobs, fit_height
from vision.tokyo.table_memory import TableMemory
from vision.types import VisionError, check_image

STICK_BRIGHT = 1.3


def read_tokyo(
    image: np.ndarray,
    calibration: TokyoCalibration | dict[str, Any] | None = None,
    stop_at_hand: bool = False,
    tables: TableMemory | None = None,
    probe: TableMemory | None = None,
) -> TokyoObservation:
    """With `stop_at_hand`, a view where a hand or large object is found is read no further: the
    observation then holds the warnings up to that one and no pieces (a referee ignores the rest of a
    covered view; `hand_in_view` says whether it stopped). `tables`: this camera's kept table estimate
    (a referee's camera on one table; see table_memory.py), used while the light holds, and given
    this view's estimate when it shows no large object. `probe` (with `stop_at_hand`): this camera's
    last estimate of a view without a large object; while the light holds, the hand test runs first
    against it (`_probe_hand`), and a hand found so ends the reading before the view's own estimate
    is made. A view in which the probe finds none is read exactly as without it."""
    check_image(image)
    if isinstance(calibration, dict):
        calibration = TokyoCalibration.from_dict(calibration)
    if calibration is not None and not isinstance(calibration, TokyoCalibration):
        raise VisionError(f"calibration must be a TokyoCalibration, a dict or None, got {type(calibration)}")
    obs = TokyoObservation(calibrated=calibration is not None)
    # the thumbnail the light tests and the view's own estimate read, made once
    thumb = None if probe is None and tables is None else thumbnail(image)
    if stop_at_hand and probe is not None:
        kept = probe.fitting(image, thumb)
        covered = None if kept is None else _probe_hand(image, calibration, kept)
        if covered is not None:
            return covered
    # the sticks are found on a mask that needs more brightness to call a pixel a piece: where shadows
    # pull the table estimate down, the lit table between them reads as piece and joins a rod to its
    # shadow in a blob too wide for a rod; columns and cars keep the ordinary mask (a column's base
    # against the table is what the heights stand on)
    # a third mask, with a lower chromaticity threshold, finds sticks coloured like the table
    estimate = None if tables is None else tables.estimate(image, thumb)
    if estimate is None and probe is not None:
        estimate = estimate_table(image, thumb)  # what pieces_masks makes without one, kept for the probe
    (fg, fg_rods, faint), table = pieces_masks(
        image, (BRIGHT, STICK_BRIGHT, STICK_BRIGHT), (CHROMA, CHROMA, FAINT_CHROMA), estimate
    )
    # stopping at a hand, an object found ends the reading: its withheld region is not outlined
    withheld, dist, objects = _glare_and_objects(obs, image, calibration, fg, table, outline=not stop_at_hand)
    if stop_at_hand and objects:
        return obs
    if estimate is not None and not objects:
        for memory in (tables, probe):
            if memory is not None:
                memory.keep(estimate)
    if withheld.any():  # (most views withhold nothing)
        fg_rods[withheld > 0] = 0
        faint[withheld > 0] = 0
    upright = None if calibration is None else _upright_test(calibration)
    longest = None if calibration is None else _longest_stick(calibration)
    floor = 0.0 if calibration is None else rod_half_width_floor(calibration, fg_rods)
    # the image's gradients, worked out once for both stick passes and the crossings
    grads = image_gradients(image)
    raw, hw = detect_sticks(image, fg_rods, upright=upright, longest=longest, min_half_width=floor,
                            gradients=grads)
    more, bands = faint_sticks(image, fg_rods, faint, raw, hw, upright=upright, longest=longest,
                               gradients=grads)
    raw += more
    fg_rods |= bands  # the faint sticks' own pixels, so the stacked-ends pass sees them as pieces
    if calibration is not None:
        # a grey road's end can run on down the grey column it rests on: put it back on the top
        # (a found object was cut out of fg: its transform is taken again)
        trim_column_runs(raw, distance_l2(fg) if objects else dist, calibration)
    if withheld.any():
        # a stick whose middle lies under the mask shows both its ends: one stick, kept
        raw = join_across_mask(withheld, raw, hw)
        raw = [s for s in raw if _complete_cut_stick(withheld, s, hw, calibration)]
        raw = drop_fingers(obs, raw, objects)
    # roads stacked on a shared column hide the ends of the lower ones
    extend_hidden_ends(raw, fg_rods, hw)
    rods = np.zeros(fg.shape, np.uint8)
    for s in raw:  # the bands as seen: a hidden end lies under another stick's band
        p0, p1 = (tuple(int(round(v)) for v in p) for p in s.shown)
        cv2.line(rods, p0, p1, 255, max(3, int(2 * hw)))
    blobs = [b for b in find_blobs(image, fg, hw, rods) if b.column_fraction >= 0.4]
    used: set[int] = set()
    if calibration is not None:
        _columns_calibrated(obs, calibration, image, raw, fg, rods, hw, blobs, used)
    for k, b in enumerate(blobs):
        if k in used:
            continue
        ys, xs = nonzero_yx(b.mask[b.bbox[1] : b.bbox[3], b.bbox[0] : b.bbox[2]])
        top = (float(xs.mean() + b.bbox[0]), float(ys.min() + b.bbox[1] + hw))
        sr = SupportReading(top, tuple(float(v) for v in b.bbox), b.yellow_fraction >= 0.15, 0.6)
        if calibration is not None:
            # a column carrying no road: its whole silhouette, top included, is visible
            height, conf, x, y, iou = fit_height(calibration, fg, b.bbox, rods, hw=hw)
            sr.height, sr.height_confidence, sr.x_mm, sr.y_mm = height, conf, round(x, 1), round(y, 1)
            top_uv, _ = calibration.camera.project(
                np.array([[x, y, height * calibration.sizes.unit_mm], [x, y, 0.0]])
            )
            sr.top_px = (float(top_uv[0, 0]), float(top_uv[0, 1]))
            sr.base_px = (float(top_uv[1, 0]), float(top_uv[1, 1]))
            if iou < 0.45:
                # no upright column explains this grey blob: a knocked-over column, or a remnant of
                # pieces already read; only a blob the size of a column or more is worth a warning
                if b.area >= 3 * np.pi * hw * hw and not lit_mat(image, table, b.mask, b.bbox):
                    obs.warnings.append(LYING_WARNING.format(u=top[0], v=top[1]))
                continue
        obs.supports.append(sr)
    # a stick resting on no column whose band is mostly lit mat is a lamp's halo, not a stick lying
    # there (left out before the sticks are numbered: the crossings name them by their place)
    raw = [s for s in raw if not (_rests_on_none(obs, s, hw) and _lit_band(image, table, s, hw))]
    _sticks(obs, raw, calibration, hw)
    carried = {r for st in obs.sticks for r in st.rests if r is not None}
    for k, sp in enumerate(obs.supports):
        if k not in carried:
            # every column is built with the road that rests on it: a bare one is new, or fallen
            sp.confidence *= 0.6
            obs.warnings.append(
                f"column near ({sp.top_px[0]:.0f}, {sp.top_px[1]:.0f}) px carries no road "
                "(just placed, or a knocked-over piece?)"
            )
    _crossings(obs, image, raw, hw, calibration, grads)
    obs.cars = cars_on_sticks(image, fg, raw, hw)
    return obs


def _glare_and_objects(
    obs: TokyoObservation,
    image: np.ndarray,
    calibration: TokyoCalibration | None,
    fg: np.ndarray,
    table: np.ndarray,
    outline: bool,
) -> tuple[np.ndarray, np.ndarray, list[LargeObject]]:
    """Glare and large objects in the pieces mask `fg` (cleared under glare, and under the objects when
    `outline`): (the withheld mask, `fg`'s distance transform taken before the objects were cut out,
    the objects). Without `outline` (a reader stopping at a hand) the objects' regions are not drawn."""
    h, w = fg.shape
    glare, every_bright = glare_masks(image, table)
    withheld = np.zeros(fg.shape, np.uint8)
    # whether there is glare at all counts every bright pixel around a spot, pieces included
    if np.count_nonzero(every_bright) > 0.0008 * h * w:
        obs.warnings.append("glare: blown-out highlights; readings under them are withheld")
        fg[glare > 0] = 0
        withheld |= glare
    objects: list[LargeObject] = []
    dist = distance_l2(fg)  # the large-object test's and the column ends'
    withheld |= large_objects(obs, fg, image, table, calibration, objects, dist, outline=outline)
    return withheld, dist, objects


def _probe_hand(
    image: np.ndarray, calibration: TokyoCalibration | None, kept: TableEstimate
) -> TokyoObservation | None:
    """The covered view's reading (its glare and hand warnings, no pieces) when the hand test finds a
    large object in `image` against `kept` (the camera's estimate of a view without one, in the same
    light); None when it finds none. A hand covers a tenth of a view in the light of the scene before
    it, so the kept estimate saves the view's own (a third of the masks) and the two stick masks,
    which a covered view never reads; under the hand it shows the very table, where a view's own
    estimate interpolates one from round the hand."""
    obs = TokyoObservation(calibrated=calibration is not None)
    (fg,), table = pieces_masks(image, (BRIGHT,), (CHROMA,), kept)
    _, _, objects = _glare_and_objects(obs, image, calibration, fg, table, outline=False)
    return obs if objects else None


def hand_in_view(obs: TokyoObservation) -> bool:
    """Whether the reading warns of a hand or large object over the table."""
    return any(w.startswith(HAND_WARNING) for w in obs.warnings)


def _upright_test(calib: TokyoCalibration) -> Callable[[np.ndarray, np.ndarray, float, float], bool]:
    """A stick candidate that is an upright column seen from the side: it runs along the image of the
    vertical, is no longer than the tallest column, and is as wide as a column, not a rod."""
    s = calib.sizes
    cam = calib.camera

    def upright(p0: np.ndarray, p1: np.ndarray, half_width: float, rod_half: float) -> bool:
        mid = cam.ray_to_plane(((p0 + p1) / 2)[None], 2 * s.unit_mm)[0]
        up, col_hw, rod_hw = calib.local_scale(mid)
        d = p1 - p0
        length = float(np.linalg.norm(d))
        cos = abs(float(np.dot(d, up))) / max(length * float(np.linalg.norm(up)), 1e-9)
        return (
            # within 16 degrees of the vertical's image (taken at the candidate's middle, two units
            # up: a run that takes in the road end on the column's top leans off the column's axis)
            cos > np.cos(np.radians(16))
            and length < 10 * float(np.linalg.norm(up)) + 2 * col_hw
            # wider than the commonest rod by half a column's extra width (the mask's blur cancels)
            and half_width - rod_half > (col_hw - rod_hw) / 2
        )

    return upright


def _longest_stick(calib: TokyoCalibration) -> Callable[[np.ndarray, np.ndarray], float]:
    """The most pixels a whole stick can span along a segment: its length in mm measured on the table
    and on the plane of the tallest column, the larger image scale of the two, with a margin for a
    sloping road and the mask's blur."""
    full = calib.sizes.stick_length_mm
    top = 9 * calib.sizes.unit_mm

    def longest(p0: np.ndarray, p1: np.ndarray) -> float:
        px = float(np.linalg.norm(p1 - p0))
        scale = 0.0
        for z in (0.0, top):
            a, b = calib.camera.ray_to_plane(np.array([p0, p1], np.float64), z)
            scale = max(scale, px / max(float(np.linalg.norm(b - a)), 1e-6))
        return LONGEST_MARGIN * full * scale

    return longest


LONGEST_MARGIN = 1.3


def _columns_calibrated(
    obs: TokyoObservation,
    calib: TokyoCalibration,
    image: np.ndarray,
    raw: list[RawStick],
    fg: np.ndarray,
    rods: np.ndarray,
    hw: float,
    blobs: list[Blob],
    used: set[int],
) -> None:
    """Columns under the road ends (see vision.tokyo.columns); blobs they explain are used up."""
    unit = calib.sizes.unit_mm
    fits = [c for c in fit_columns(calib, raw, fg, rods, hw) if c.score >= 0.7]  # else: table ends
    near_of, junction = [], []
    for c in fits:
        uv, _ = calib.camera.project(np.array([[c.x_mm, c.y_mm, c.height * unit], [c.x_mm, c.y_mm, 0.0]]))
        top, base = uv
        near = [
            k
            for k, b in enumerate(blobs)
            if _dist_to_box(base, b.bbox) < 2 * hw or _dist_to_box(top, b.bbox) < hw
        ]
        near_of.append(near)
        yellow = _top_unit_yellow(calib, image, rods == 0, c.x_mm, c.y_mm, c.height)
        if yellow is None:  # the top unit's side is hidden: the blobs' colour is all there is
            yellow = 1.0 if any(blobs[k].yellow_fraction >= 0.15 for k in near) else 0.0
        junction.append(yellow >= JUNCTION_SHARE)
    for c, near, yellow, pick in zip(fits, near_of, junction, choose_heights(fits, junction), strict=True):
        sc, height, x_mm, y_mm, _ = c.options[pick]
        margin = c.margin if height == c.height else 0.0  # the structure overruled the column's own best
        uv, _ = calib.camera.project(np.array([[x_mm, y_mm, height * unit], [x_mm, y_mm, 0.0]]))
        top, base = uv
        used.update(near)
        x0, y0 = np.minimum(top, base) - 2 * hw
        x1, y1 = np.maximum(top, base) + 2 * hw
        obs.supports.append(
            SupportReading(
                (float(top[0]), float(top[1])),
                (float(x0), float(y0), float(x1), float(y1)),
                yellow,
                float(np.clip(c.score, 0.2, 1.0)),
                height,
                float(np.clip(margin * 5, 0, 1)),
                round(x_mm, 1),
                round(y_mm, 1),
                (float(base[0]), float(base[1])),
            )
        )


JUNCTION_SHARE = 0.35  # share of the visible top unit's side that is yellow


def _top_unit_yellow(
    calib: TokyoCalibration, image: np.ndarray, care: np.ndarray, x: float, y: float, height: int
) -> float | None:
    """Share of junction yellow on the side of a column's top unit, where the camera sees it and no
    stick lies over it; None when too little of it shows. The side, not the top face: the road ends
    resting on a junction cover most of its top, and a yellow road over a grey column would look the
    same from straight above. Only the sampled pixels are converted to HSV (a pixel's HSV is its own:
    the same bytes as in the whole frame's conversion)."""
    s = calib.sizes
    r = 0.85 * s.column_diameter_mm / 2
    eye = calib.camera.centre
    ang = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    ring = np.stack([np.cos(ang), np.sin(ang)], 1)
    ring = ring[ring @ (eye[:2] - np.array([x, y])) > 0.3 * np.linalg.norm(eye[:2] - np.array([x, y]))]
    zs = (height - 1) * s.unit_mm + np.array([0.25, 0.5, 0.75]) * s.unit_mm
    pts = np.array([[x + r * cx, y + r * cy, z] for z in zs for cx, cy in ring])
    uv, _ = calib.camera.project(pts)
    H, W = care.shape
    xi, yi = np.round(uv[:, 0]).astype(int), np.round(uv[:, 1]).astype(int)
    inside = (xi >= 0) & (xi < W) & (yi >= 0) & (yi < H)
    xi, yi = xi[inside], yi[inside]
    keep = care[yi, xi]
    if np.count_nonzero(keep) < 6 or len(np.unique(np.c_[xi, yi][keep], axis=0)) < 4:
        return None
    px = cv2.cvtColor(image[yi[keep], xi[keep]].reshape(-1, 1, 3), cv2.COLOR_BGR2HSV).reshape(-1, 3)
    px = px.astype(int)
    yellow = (px[:, 0] >= 18) & (px[:, 0] <= 34) & (px[:, 1] >= 90)
    return float(yellow.mean())


def _dist_to_box(p: np.ndarray, box: tuple[int, int, int, int]) -> float:
    dx = max(box[0] - p[0], 0, p[0] - box[2])
    dy = max(box[1] - p[1], 0, p[1] - box[3])
    return float(np.hypot(dx, dy))


def _complete_cut_stick(mask: np.ndarray, s: RawStick, hw: float, calib: TokyoCalibration | None) -> bool:
    """A stick running into glare or under a hand has an unknown end. Without a camera it is withheld
    (False). With one, a stick that already shows most of the set's stick length on the table keeps
    the end it shows and has the other put at the full length along its axis; a shorter piece, or one
    cut at both ends, is withheld."""
    cut = cut_ends(mask, s, hw)
    if not cut:
        return True
    if calib is None or len(cut) == 2:
        return False
    z = 1.5 * calib.sizes.unit_mm  # heights are not known yet; a low road is close enough here
    a, b = calib.camera.ray_to_plane(np.array([s.p0, s.p1], np.float64), z)
    length = float(np.linalg.norm(b - a))
    full = calib.sizes.stick_length_mm
    if length < 0.8 * full:
        return False
    if cut[0] == 0:
        a = b + (a - b) * full / max(length, 1e-6)
    else:
        b = a + (b - a) * full / max(length, 1e-6)
    uv, _ = calib.camera.project(np.array([a, b]))
    s.p0, s.p1 = uv[0].astype(np.float32), uv[1].astype(np.float32)
    s.completed = True
    return True


def _rest_at(obs: TokyoObservation, p: np.ndarray, hw: float) -> int | None:
    """The support whose column top is read nearest a stick's end `p`, within four half widths."""
    near = [k for k, sp in enumerate(obs.supports) if np.linalg.norm(np.array(sp.top_px) - p) < 4 * hw]
    return min(near, key=lambda k: np.linalg.norm(np.array(obs.supports[k].top_px) - p)) if near else None


def _rests_on_none(obs: TokyoObservation, s: RawStick, hw: float) -> bool:
    """No column top read near either end of the stick (a loose stick, as `_sticks` takes it)."""
    return all(_rest_at(obs, p, hw) is None for p in (s.p0, s.p1))


def _lit_band(image: np.ndarray, table: np.ndarray, s: RawStick, hw: float) -> bool:
    """A stick's band (its detected axis, `hw` either side) that is mostly lit mat (lying_pieces.lit_mat)."""
    h, w = image.shape[:2]
    band = np.zeros((h, w), np.uint8)
    p0, p1 = (tuple(int(round(v)) for v in p) for p in (s.p0, s.p1))
    cv2.line(band, p0, p1, 1, max(3, int(2 * hw)))
    ys, xs = nonzero_yx(band)
    if len(ys) == 0:
        return False
    return lit_mat(image, table, band, (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1))


def _sticks(obs: TokyoObservation, raw: list[RawStick], calib: TokyoCalibration | None, hw: float) -> None:
    for s in raw:
        rests = [_rest_at(obs, p, hw) for p in (s.p0, s.p1)]
        role = "road" if any(r is not None for r in rests) else "loose"
        conf = float(np.clip(s.support / max(s.length * hw, 1), 0.3, 1.0))
        if s.completed:
            conf *= 0.5
            obs.warnings.append(
                f"stick at ({(s.p0[0] + s.p1[0]) / 2:.0f}, {(s.p0[1] + s.p1[1]) / 2:.0f}) px runs into "
                "glare or a hand: its hidden end is placed at the set's stick length"
            )
        reading = StickReading(
            ((float(s.p0[0]), float(s.p0[1])), (float(s.p1[0]), float(s.p1[1]))),
            2 * hw,
            colour_name(s.bgr),
            tuple(int(v) for v in s.bgr[::-1]),
            conf,
            role,
            (rests[0], rests[1]),
        )
        if calib is not None:
            ends = []
            for p, r in zip((s.p0, s.p1), rests, strict=True):
                hgt = obs.supports[r].height if r is not None else 0
                z = (hgt or 0) * calib.sizes.unit_mm + calib.sizes.stick_thickness_mm / 2
                xyz = calib.camera.ray_to_plane(p[None], z)[0]
                ends.append((round(float(xyz[0]), 1), round(float(xyz[1]), 1), round(z, 1)))
            reading.endpoints_mm = (ends[0], ends[1])
        if role == "loose":
            obs.warnings.append(
                f"stick at ({(s.p0[0] + s.p1[0]) / 2:.0f}, {(s.p0[1] + s.p1[1]) / 2:.0f}) px rests "
                "on no support: loose on the table, not a road"
            )
        obs.sticks.append(reading)


def _crossings(
    obs: TokyoObservation, image: np.ndarray, raw: list[RawStick], hw: float, calib: TokyoCalibration | None,
    grads: Gradients | None = None,
) -> None:
    grads = grads or image_gradients(image)  # worked out at the first crossing
    # sticks with ends in one group rest on one column: where they meet there is a joint, no crossing
    joined = set()
    for group in group_ends(raw, hw):
        ids = sorted({i for i, _ in group})
        joined.update((a, b) for a in ids for b in ids if a < b)
    for i in range(len(raw)):
        for j in range(i + 1, len(raw)):
            hit = intersect(raw[i], raw[j])
            if hit is None:
                continue
            point, s, t = hit
            near_i = min(s, 1 - s) * raw[i].length < 4.5 * hw  # ends overhang a column by up to ~1.5 widths
            near_j = min(t, 1 - t) * raw[j].length < 4.5 * hw
            on_column = any(
                np.hypot(point[0] - sp.top_px[0], point[1] - sp.top_px[1]) < 3 * hw for sp in obs.supports
            )
            if near_i and near_j and ((i, j) in joined or on_column):
                continue  # two roads meeting on a support, not a crossing
            top, conf, cue = decide_top(image, grads(), raw[i], raw[j], point)
            if near_i and near_j:
                conf *= 0.5  # ends overlapping near two different columns: maybe touching, maybe crossing
            cr = CrossingReading(i, j, (float(point[0]), float(point[1])), i if top == 0 else j, conf, cue)
            if calib is not None:
                _height_check(cr, obs)
            obs.crossings.append(cr)


def _height_check(cr: CrossingReading, obs: TokyoObservation) -> None:
    p = plan_crossing(obs.sticks[cr.a].endpoints_mm, obs.sticks[cr.b].endpoints_mm)
    if p is None:
        return
    x, y, za, zb = p
    cr.point_mm = (round(x, 1), round(y, 1))
    if abs(za - zb) < 3:
        return
    by_height = cr.a if za > zb else cr.b
    cr.height_check = "agrees" if by_height == cr.top else "disagrees"
    if cr.height_check == "disagrees":
        cr.confidence *= 0.5
