"""An assembled (tiled) sheet read in 3D: a camera pose per tile, each zone read on its own tile's views.

Each tile of a taped-together sheet is a rigid flat piece of paper, so its own markers give its own
plane-to-image homography (vision.tiled) and, with the camera's focal length, its own camera pose
(vision.pose). A die stands on one tile: its sides and top face appear where that tile's pose puts
them. So the sheet is read as a few small one-piece sheets: for each tile, a window around the zones
it holds (a zone belongs to the tile holding its centre; a die on a seam to the tile holding its
cell's centre) is rectified through that tile's calibration and pose, a flat view and a top-face view
(vision.board3d), and read by a zone reader of its own, exactly as the one-piece board is read.
Nothing is blended: inside a window everything, the paper across the seam included, comes through
one tile's geometry, so the window's own empty view (learned from the first frame) matches it.

The focal length is shared by all tiles (one camera): the focal equations of every tile's fit are
pooled, over frames too, as `vision.pose.PoseTracker` pools a one-piece sheet's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.board3d import DIE_MM, face_view, view_px_per_mm, volume_box_mm
from vision.localise import Calibration
from vision.pose import CameraPose, PoseTracker, pose_from_points
from vision.tiled import GAP_CHANGE, TiledCalibration, TiledSheet, TileSpec
from vision.types import VisionError, check_image
from vision.zones import Zone, ZoneDie, ZoneReading

WAIT_FOR_OWN_FIT = 5  # frames a window waits for its own tile's markers before learning through a neighbour's
WINDOW_MARGIN_MM = 30.0  # around a tile's zones: a die's sides and shadow lean this far at most
# a zone reader for one window: (reference RGB of the window at px_per_mm, window mm, zones in window
# coordinates, px_per_mm) -> an object with `read(top, faces) -> ZoneReading` and `die_side_mm`
ReaderFactory = Callable[[np.ndarray, tuple[float, float], list[Zone], float], Any]


def shifted_pose(pose: CameraPose, ox: float, oy: float) -> CameraPose:
    """The same camera over a plane whose origin is sheet point (ox, oy): window point (u, v) is
    sheet point (u + ox, v + oy)."""
    t = pose.t + pose.R @ np.array([ox, oy, 0.0])
    return CameraPose(pose.K, pose.R, t, pose.image_size, pose.focal_source, pose.reprojection_px)


def tile_points(tile: TileSpec) -> np.ndarray:
    """The sheet points a tile's pose is fitted to: its markers' corners and its own corners."""
    corners = tile.marker_corners()
    return np.concatenate([*(corners[m] for m in sorted(corners)), tile.outline_mm()])


@dataclass
class TilePoses:
    """One camera over several tiles: a focal length, then a pose per tile from its own calibration.
    The focal length comes from all located tiles at once (`table_homography`): one tile spans too
    little of the view to show its perspective well (its own fit's focal length was seen 35 % off).
    The table's fit goes to a `vision.pose.PoseTracker`, which pools the focal length over frames as
    it does for a one-piece sheet. `focal_px` given: used as is."""

    focal_px: float | None = None
    tracker: PoseTracker = field(init=False)

    def __post_init__(self) -> None:
        self.tracker = PoseTracker(self.focal_px)

    def update(self, cal: TiledCalibration) -> dict[str, CameraPose]:
        size = (int(cal.image_size[0]), int(cal.image_size[1]))
        whole = table_homography(cal) if len(cal.located) >= 2 else None
        if whole is None:  # one tile in view: its own fit is the table's best guess
            whole = np.linalg.inv(cal.tiles[cal.located[0]].homography)
        sheet = cal.sheet
        table = Calibration(sheet.kind, (sheet.width_mm, sheet.height_mm), np.linalg.inv(whole), size,
                            marker_size_mm=sheet.tiles[0].marker_size_mm, margin_mm=sheet.tiles[0].margin_mm)
        camera = self.tracker.update(table)
        poses = {}
        for t in sheet.tiles:
            mm = tile_points(t)
            poses[t.name] = pose_from_points(mm, cal.tiles[t.name].to_image(mm), size, camera.focal_px,
                                             camera.focal_source)
        return poses


def table_homography(cal: TiledCalibration, iterations: int = 30) -> np.ndarray | None:
    """The table plane's homography (sheet mm as printed -> image px) of an assembled sheet: all
    located tiles fitted at once, each tile laid on the table with a small turn and shift of its own
    (the first located tile's none). One homography through every tile's markers as printed takes the
    gaps and turns for perspective (its focal length was seen 15 % off at a 10 degree tilt); this fit
    takes them for what they are. Levenberg-Marquardt on the tiles' marker and corner points as each
    tile's own fit places them; None when the fit fails."""
    held = [(_tile(cal.sheet, n), cal.tiles[n]) for n in cal.located]
    pts = [tile_points(t) for t, _ in held]
    obs = np.concatenate([c.to_image(p) for (_, c), p in zip(held, pts, strict=True)])
    w, h = cal.image_size
    unit = max(cal.sheet.width_mm, cal.sheet.height_mm)
    to_norm = np.array([[1 / w, 0, -0.5], [0, 1 / w, -0.5 * h / w], [0, 0, 1]])  # image px -> ~[-0.5, 0.5]
    mm_norm = np.diag([1 / unit, 1 / unit, 1.0])
    obs_n = cv2.perspectiveTransform(obs.reshape(-1, 1, 2), to_norm).reshape(-1, 2)
    pts_n = [p / unit for p in pts]
    centres = [np.array([(t.rect[0] + t.rect[2]) / 2, (t.rect[1] + t.rect[3]) / 2]) / unit for t, _ in held]
    start, _ = cv2.findHomography(np.concatenate(pts_n), obs_n)
    if start is None:
        return None

    def residuals(q: np.ndarray) -> np.ndarray:
        H = np.append(q[:8], 1.0).reshape(3, 3)
        out = []
        for k, (p, c) in enumerate(zip(pts_n, centres, strict=True)):
            if k:  # the tile's turn about its centre and its shift
                a, dx, dy = q[8 + 3 * (k - 1):11 + 3 * (k - 1)]
                rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
                p = (p - c) @ rot.T + c + (dx, dy)
            hom = np.column_stack([p, np.ones(len(p))]) @ H.T
            out.append(hom[:, :2] / hom[:, 2:3])
        return (np.concatenate(out) - obs_n).ravel()

    q = np.concatenate([(start / start[2, 2]).ravel()[:8], np.zeros(3 * (len(held) - 1))])
    r = residuals(q)
    damping = 1e-3
    for _ in range(iterations):
        J = np.empty((len(r), len(q)))
        for j in range(len(q)):
            step = 1e-7 * max(1.0, abs(q[j]))
            dq = q.copy()
            dq[j] += step
            J[:, j] = (residuals(dq) - r) / step
        A, g = J.T @ J, J.T @ r
        try:
            delta = np.linalg.solve(A + damping * np.diag(np.diag(A) + 1e-12), -g)
        except np.linalg.LinAlgError:
            return None
        trial = residuals(q + delta)
        if trial @ trial < r @ r:
            q, r, damping = q + delta, trial, damping / 3
            if np.abs(delta).max() < 1e-10:
                break
        else:
            damping *= 4
    H = np.linalg.inv(to_norm) @ np.append(q[:8], 1.0).reshape(3, 3) @ mm_norm
    return H / H[2, 2] if np.all(np.isfinite(H)) else None


def _tile(sheet: TiledSheet, name: str) -> TileSpec:
    return next(t for t in sheet.tiles if t.name == name)


Looks = tuple[np.ndarray, np.ndarray]  # a view as BGR and as grey


@dataclass
class TileWindow:
    tile: str
    origin: tuple[float, float]  # sheet mm of the window's top-left corner
    size_mm: tuple[float, float]
    zones: list[Zone]  # in window coordinates
    reader: Any
    # the table seen through the seams' gaps, per view ("top", "faces"): (calibration it was made for,
    # off-paper mask, the view at its first look: BGR and grey)
    gaps: dict[str, tuple[Any, np.ndarray, Looks | None]] = field(default_factory=dict)
    view: np.ndarray | None = None  # image px -> flat view px of the fit the empty look was learned on
    borrowed: bool = False  # ... and that fit was a neighbour's (this tile's markers not seen then)

    def follow_fit(self, to_view: np.ndarray, own: bool) -> None:
        """This window's tile has fit `to_view` (its own fit when `own`). When the empty look was
        learned through a neighbour's fit and the tile is now fitted by its own markers, that look
        is carried into the new view point for point (the image did not move, the fit was wrong);
        relearning would take the dice now on the board for paper. A tile refitted because it or the
        camera moved keeps its look as it is: it is in the tile's own millimetres."""
        if self.view is not None and self.borrowed and own and getattr(self.reader, "_learned", False):
            ref = self.reader.reference
            carry = self.view @ np.linalg.inv(to_view)  # new view px -> old view px
            self.reader.reference = cv2.warpPerspective(ref, carry, ref.shape[1::-1],
                                                        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                                        borderMode=cv2.BORDER_REPLICATE)
            self.view, self.borrowed = to_view, False
            self.gaps.clear()  # its first looks were taken through the wrong fit too
        elif self.view is None:
            self.view, self.borrowed = to_view, not own

    def fill_gaps(self, view: str, image: np.ndarray, view_to_image: np.ndarray, cal: TiledCalibration,
                  px_per_mm: float) -> np.ndarray:
        """`image` (this window's view `view`) with the gaps between tiles filled in where they still
        show the table as at the view's first look (see vision.tiled: a dark seam line swamps the local
        contrast of a white die beside it); a gap that changed has a die over it and is kept."""
        key = tuple(id(c) for c in cal.tiles.values())
        if view not in self.gaps or self.gaps[view][0] != key:
            # a tile refitted: where the gaps show is worked out again, but the first look is kept (it
            # is in the tiles' millimetres, and a look taken now would count a die over a gap as gap)
            first = self.gaps[view][2] if view in self.gaps else None
            self.gaps[view] = (key, _off_paper(cal, view_to_image, image.shape[:2], self, px_per_mm), first)
        _, mask, first = self.gaps[view]
        if not mask.any():
            return image
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        if first is None:
            first = (image.copy(), grey)
            self.gaps[view] = (key, mask, first)
        same = (cv2.absdiff(grey, first[1]) < GAP_CHANGE).astype(np.uint8)
        out = image.copy()
        h, w = image.shape[:2]
        reach = round((SEAM_BAND_MM + GAP_FILL_MM) * px_per_mm) + 4
        # only the strips along the seams hold gaps: fill each strip on its own (the whole view costs
        # as much as reading it)
        for edge in {t.rect[0] for t in cal.sheet.tiles} - {0.0}:
            c = round((edge - self.origin[0]) * px_per_mm)
            if -reach < c < w + reach:
                cols = slice(max(0, c - reach), min(w, c + reach))
                still = _still_gap(mask[:, cols], same[:, cols], image[:, cols], first[0][:, cols], px_per_mm,
                                   along=(1, 0))
                out[:, cols] = _fill(out[:, cols], still, px_per_mm)
        for edge in {t.rect[1] for t in cal.sheet.tiles} - {0.0}:
            r = round((edge - self.origin[1]) * px_per_mm)
            if -reach < r < h + reach:
                rows = slice(max(0, r - reach), min(h, r + reach))
                still = _still_gap(mask[rows], same[rows], image[rows], first[0][rows], px_per_mm,
                                   along=(0, 1))
                out[rows] = _fill(out[rows], still, px_per_mm)
        return out


def _still_gap(mask: np.ndarray, same: np.ndarray, image: np.ndarray, first: np.ndarray,
               px_per_mm: float, along: tuple[int, int]) -> np.ndarray:
    """The gap pixels (`mask`) that still show the table: those that look as at the first look
    (`same`), and, along the seam (`along`: (1, 0) a seam down the view, (0, 1) across it), runs of
    half a die or more where the gap still has the table's colour, brighter or darker. A glare or a
    shadow changes a gap's grey level as much as a die over it does (tuning seed 1, A4 tiles: a glare
    left the middle seam unfilled across a pool, read as a large object), but a glare adds white
    light and a shadow takes some away: the table's hue stays. A die over the gap has its own (a
    white one none), and so have its pips: they are kept (a gap darker than the paper, the first
    test tried, also filled a blue die's body and its white pips: a 5 in a pool read as a 3)."""
    if not mask.any():
        return mask
    now, was = _chroma(image), _chroma(first)
    n2 = was[0] ** 2 + was[1] ** 2
    k = (now[0] * was[0] + now[1] * was[1]) / np.maximum(n2, 1.0)
    off = (now[0] - k * was[0]) ** 2 + (now[1] - k * was[1]) ** 2
    hue = (n2 >= TABLE_CHROMA ** 2) & (k >= 0.4) & (k <= 1.6) & (off <= 0.25 * n2)
    r = round(GAP_FILL_MM * px_per_mm) + 3
    keep = (mask == 0).astype(np.float32)
    den = np.maximum(cv2.blur(keep, (2 * r + 1, 2 * r + 1)), 1e-3)

    def contrast(g: np.ndarray) -> np.ndarray:  # the paper around a pixel, less the pixel
        return cv2.blur(g * keep, (2 * r + 1, 2 * r + 1)) / den - g

    grey, grey0 = (cv2.cvtColor(v, cv2.COLOR_BGR2GRAY).astype(np.float32) for v in (image, first))
    before = contrast(grey0)
    dark = (before > GAP_CHANGE) & (contrast(grey) > 0.5 * before)
    table = hue & dark & (mask > 0)
    # an unchanged pixel is gap only where the first look showed the gap's core (darker than the paper
    # around by over half the gap's contrast there): its blurred edges are mid-grey, as a light die's
    # face in its own shadow is; and only in runs along the seam longer than a pip: a die's dark pip
    # over the dark gap looks as the gap did (tuning seed 5, A4: a white 6 lying across the middle seam
    # in White's pool had a pip filled in and its face smeared, read as a 5)
    # unchanged in colour too: a blue die's body is as dark as the table seen through the gap
    like = (same > 0) & ((now[0] - was[0]) ** 2 + (now[1] - was[1]) ** 2
                         <= np.maximum(TABLE_CHROMA ** 2, 0.25 * n2))
    depth = np.where(mask > 0, before, 0.0).max(axis=0 if along[0] == 0 else 1, keepdims=True)
    core = (before > GAP_CHANGE) & (before > 0.5 * depth)
    unchanged = like & (mask > 0) & core
    shown = _runs(table, along, 0.5 * DIE_MM * px_per_mm) | _runs(unchanged, along, PIP_RUN_MM * px_per_mm)
    # there the gap's blurred edges are filled too, but not what is dark in another colour (a pip)
    return mask & (shown & (like | ~(dark & ~hue))).astype(np.uint8)


PIP_RUN_MM = 5.0  # along a seam, a run of unchanged gap this long is no pip (a 16 mm die's pips are 3 mm)


def _runs(seen: np.ndarray, along: tuple[int, int], run_px: float) -> np.ndarray:
    """Where along the seam (`along`, as in `_still_gap`) `seen` holds anywhere across the gap's
    width, in runs of `run_px` or more, spread back across the width."""
    line = seen.any(axis=1 if along[0] else 0).astype(np.uint8).reshape(1, -1)
    line = cv2.morphologyEx(line, cv2.MORPH_OPEN, np.ones((1, max(3, round(run_px))), np.uint8)).ravel() > 0
    return np.broadcast_to(line[:, None] if along[0] else line[None, :], seen.shape)


def _chroma(bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Red less blue and green less blue: unchanged by white light added, scaled by light taken away."""
    f = bgr.astype(np.float32)
    return f[..., 2] - f[..., 0], f[..., 1] - f[..., 0]


TABLE_CHROMA = 12.0  # grey levels: a first look of a gap less coloured than this says nothing of its hue


def _fill(image: np.ndarray, mask: np.ndarray, px_per_mm: float) -> np.ndarray:
    """`image` with the `mask` pixels replaced by the mean of the unmasked pixels around them (a
    normalised box blur a few mm wide, wider than a gap): the paper either side of a thin gap is all
    there is to continue, and it costs a tenth of cv2.inpaint's time here."""
    if not mask.any():
        return image
    r = round(GAP_FILL_MM * px_per_mm) + 3
    keep = (mask == 0).astype(np.float32)
    num = cv2.blur(image.astype(np.float32) * keep[..., None], (2 * r + 1, 2 * r + 1))
    den = cv2.blur(keep, (2 * r + 1, 2 * r + 1))[..., None]
    fill = np.clip(num / np.maximum(den, 1e-3), 0, 255).astype(np.uint8)
    out = image.copy()
    where = mask > 0
    out[where] = fill[where]
    return out


GAP_FILL_MM = 4.0  # half the width of the neighbourhood a gap pixel is filled from


SEAM_BAND_MM = 12.0  # gaps are looked for this close to a seam (the top-face view shows them moved a few mm)


def _off_paper(cal: TiledCalibration, view_to_image: np.ndarray, shape: tuple[int, ...], window: TileWindow,
               px_per_mm: float) -> np.ndarray:
    """Pixels of a window's view, near a seam, whose image point lies on no tile's paper (uint8)."""
    h, w = shape[:2]
    u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    pts = cv2.perspectiveTransform(np.dstack([u, v]).reshape(-1, 1, 2), view_to_image)
    on_paper = np.zeros(h * w, bool)
    for t in cal.sheet.tiles:
        mm = cv2.perspectiveTransform(pts, cal.tiles[t.name].homography).reshape(-1, 2)
        x0, y0, x1, y1 = t.rect
        on_paper |= (mm[:, 0] >= x0) & (mm[:, 0] <= x1) & (mm[:, 1] >= y0) & (mm[:, 1] <= y1)
    sx = u.ravel() / px_per_mm + window.origin[0]
    sy = v.ravel() / px_per_mm + window.origin[1]
    near = np.zeros(h * w, bool)
    for edge in {t.rect[0] for t in cal.sheet.tiles} - {0.0}:
        near |= np.abs(sx - edge) <= SEAM_BAND_MM
    for edge in {t.rect[1] for t in cal.sheet.tiles} - {0.0}:
        near |= np.abs(sy - edge) <= SEAM_BAND_MM
    gaps = (near & ~on_paper).reshape(h, w).astype(np.uint8)
    return cv2.dilate(gaps, np.ones((5, 5), np.uint8))  # the camera blurs the paper edges


def owner(sheet: TiledSheet, x: float, y: float) -> TileSpec:
    """The tile holding sheet point (x, y) (on a seam: the first such tile), else the nearest tile."""
    for t in sheet.tiles:
        if t.contains(x, y):
            return t
    return min(sheet.tiles, key=lambda t: np.hypot((t.rect[0] + t.rect[2]) / 2 - x,
                                                     (t.rect[1] + t.rect[3]) / 2 - y))


def _shift(ox: float, oy: float) -> np.ndarray:
    """Sheet mm -> window mm for a window whose top-left corner is sheet point (ox, oy)."""
    return np.array([[1.0, 0, -ox], [0, 1.0, -oy], [0, 0, 1.0]])


def _moved(box: tuple[float, float, float, float], ox: float, oy: float) -> tuple[float, float, float, float]:
    return box[0] + ox, box[1] + oy, box[2] + ox, box[3] + oy


def _size(size_mm: tuple[float, float], px_per_mm: float) -> tuple[int, int]:
    return round(size_mm[0] * px_per_mm), round(size_mm[1] * px_per_mm)


class TiledFaceReader:
    """Reads the zones of an assembled sheet tile by tile in 3D (see the module's docstring).
    `reference(px_per_mm)`: the whole sheet as printed (RGB) at that resolution; `make_reader`: a zone
    reader for one window. The views' resolution is chosen from the first located view's poses."""

    def __init__(self, sheet: TiledSheet, zones: list[Zone], reference: Callable[[float], np.ndarray],
                 make_reader: ReaderFactory, focal_px: float | None = None,
                 centres_mm: np.ndarray | None = None) -> None:
        self.sheet = sheet
        self.zones = zones
        self.reference = reference
        self.make_reader = make_reader
        self.tile_poses = TilePoses(focal_px)
        self.poses: dict[str, CameraPose] = {}
        self.px_per_mm: float | None = None
        self.windows: list[TileWindow] = []
        self._centres = (np.array([[z.x + z.w / 2, z.y + z.h / 2] for z in zones])
                         if centres_mm is None else np.asarray(centres_mm, np.float64))
        self._posed: TiledCalibration | None = None
        self._frames = 0

    def _build_windows(self, ppm: float) -> None:
        reference = self.reference(ppm)
        by_tile: dict[str, list[Zone]] = {}
        for z in self.zones:
            by_tile.setdefault(owner(self.sheet, z.x + z.w / 2, z.y + z.h / 2).name, []).append(z)
        self.windows = []
        for t in self.sheet.tiles:
            held = by_tile.get(t.name)
            if not held:
                continue
            m = WINDOW_MARGIN_MM
            # whole 2 mm steps: at the views' half-step resolutions the origin falls on a pixel
            x0 = 2 * np.floor(max(0.0, min(z.x for z in held) - m) / 2)
            y0 = 2 * np.floor(max(0.0, min(z.y for z in held) - m) / 2)
            x1 = min(self.sheet.width_mm, max(z.x + z.w for z in held) + m)
            y1 = min(self.sheet.height_mm, max(z.y + z.h for z in held) + m)
            px = [round(v * ppm) for v in (x0, y0, x1, y1)]
            size = ((px[2] - px[0]) / ppm, (px[3] - px[1]) / ppm)
            local = [Zone(z.name, z.x - x0, z.y - y0, z.w, z.h, z.many) for z in held]
            crop = np.ascontiguousarray(reference[px[1]:px[3], px[0]:px[2]])
            self.windows.append(TileWindow(t.name, (float(x0), float(y0)), size, local,
                                           self.make_reader(crop, size, local, ppm)))

    def _use(self, cal: TiledCalibration) -> None:
        """A new calibration (first view, a tile refitted): new poses, and where dice show."""
        self.poses = self.tile_poses.update(cal)
        self._posed = cal
        if self.px_per_mm is None:
            first = self.poses[cal.located[0]]
            self.px_per_mm = view_px_per_mm(first, self._centres)
            self._build_windows(self.px_per_mm)
        for w in self.windows:
            pose = self.poses[w.tile]
            for z in w.zones:  # one die where perspective stretches it most (a corner of the zone)
                ox, oy = w.origin
                sides = []
                for cx, cy in ((z.x, z.y), (z.x + z.w, z.y), (z.x + z.w, z.y + z.h), (z.x, z.y + z.h)):
                    box = (cx + ox - DIE_MM / 2, cy + oy - DIE_MM / 2, DIE_MM, DIE_MM)
                    x0, y0, x1, y1 = volume_box_mm(pose, box, DIE_MM)
                    sides.append(max(x1 - x0, y1 - y0))
                w.reader.die_side_mm[z.name] = max(sides)

    def read(self, image: np.ndarray, cal: TiledCalibration) -> ZoneReading:
        check_image(image)
        h, w_ = image.shape[:2]
        if (w_, h) != tuple(cal.image_size):
            raise VisionError(f"frame is {w_}x{h} but the calibration was made on "
                              f"{cal.image_size[0]}x{cal.image_size[1]} frames; re-localise")
        if cal is not self._posed:
            self._use(cal)
        assert self.px_per_mm is not None
        out = ZoneReading()
        self._frames += 1
        for w in self.windows:
            if w.view is None and w.tile not in cal.located and self._frames <= WAIT_FOR_OWN_FIT:
                # its tile's markers not seen yet: the empty look learned through a neighbour's fit would
                # put the seams' gaps a few mm off for good, so wait a few frames for its own
                out.unreadable.update({z.name: f"tile {w.tile}'s markers are not seen yet" for z in w.zones})
                continue
            ox, oy = w.origin
            ppm = self.px_per_mm
            pose = shifted_pose(self.poses[w.tile], ox, oy)
            faces = face_view(image, pose, w.size_mm, ppm)
            to_view = np.diag([ppm, ppm, 1.0]) @ _shift(ox, oy) @ cal.tiles[w.tile].homography
            w.follow_fit(to_view, w.tile in cal.located)
            top = cv2.warpPerspective(image, to_view, _size(w.size_mm, ppm), flags=cv2.INTER_LINEAR)
            top = w.fill_gaps("top", top, np.linalg.inv(to_view), cal, ppm)
            faces.image = w.fill_gaps("faces", faces.image, pose.plane_homography(DIE_MM)
                                      @ np.diag([1 / ppm, 1 / ppm, 1.0]), cal, ppm)
            w.reader.seams = w.gaps["top"][1]  # where the top view's look is a guess (vision.zones)
            reading = w.reader.read(top, faces)
            for zone, dice in reading.dice.items():
                out.dice[zone] = [ZoneDie(d.value, d.confidence, d.color, _moved(d.box_mm, ox, oy),
                                          d.readings)
                                  for d in dice]
            out.unreadable.update(reading.unreadable)
        return out
