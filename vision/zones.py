"""Dice in known zones of a printed sheet (board cells, pools, a tray), read against the sheet's own
picture.

On a printed board the referee knows where dice may stand, and it knows what each zone looks like
empty (the sheet is the project's own drawing). So instead of searching the whole frame, each zone
of the rectified view is compared with the same zone of the reference picture: normalised
cross-correlation says whether something stands there (robust to light gain and offset), the
difference mask finds each die's body, and the dice reader's value network reads its pips. A blob of
the wrong size (a hand, a pen, two dice touching) is reported as unreadable, never guessed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import cv2
import numpy as np

from vision import zones_jit
from vision.board3d import FaceView, Parts, warp_part, warp_roi
from vision.learned.crops import SCREEN
from vision.quantiles import median_u8
from vision.types import VisionError
from vision.zones_one import BESIDE_REACH, ONE_PIP_FLOOR, one_pip_face, paper_level, pip_depth


@dataclass(frozen=True)
class Zone:
    """A rectangle of the sheet in mm; `many` zones (a tray) may hold several dice."""

    name: str
    x: float
    y: float
    w: float
    h: float
    many: bool = False


@dataclass
class ZoneDie:
    value: int
    confidence: float  # min of presence and value confidence
    color: str | None
    box_mm: tuple[float, float, float, float]
    # each value reader's own answer: "pips" (value, confidence) of the pip counter, "learned" (value,
    # confidence, chance that it is a die) of the crop reader
    readings: dict[str, tuple] = field(default_factory=dict)


@dataclass
class ZoneReading:
    dice: dict[str, list[ZoneDie]] = field(default_factory=dict)  # zone name -> dice (empty: none)
    unreadable: dict[str, str] = field(default_factory=dict)  # zone name -> why


class ZoneDiceReader:
    """`reference_rgb`: the sheet as printed (RGB, any resolution, covering `sheet_mm`)."""

    def __init__(self, reference_rgb: np.ndarray, sheet_mm: tuple[float, float], zones: list[Zone],
                 die_mm: float = 16.0, px_per_mm: float = 3.0, colors: list[str] | None = None,
                 empty_ncc: float = 0.55, learn_empty: bool = True, value_order: str = "pips",
                 profile: Any = None, exact: frozenset[str] | None = None) -> None:
        from vision.dice.colour import palette_lab

        # steps made cheaper by branch dicefps (c99a357) put back to their exact computation, to
        # compare (bench/dice_reuse_ab.py): EXACT_STEPS
        exact = DEFAULT_EXACT if exact is None else frozenset(exact)
        if not exact <= EXACT_STEPS:
            raise VisionError(f"unknown exact steps {sorted(exact - EXACT_STEPS)}")
        self.exact = exact
        self.sheet_mm = sheet_mm
        self.px = px_per_mm
        self.zones = zones
        self.die_mm = die_mm
        self.empty_ncc = empty_ncc
        size = (round(sheet_mm[0] * px_per_mm), round(sheet_mm[1] * px_per_mm))
        ref = cv2.resize(cv2.cvtColor(reference_rgb, cv2.COLOR_RGB2BGR), size, interpolation=cv2.INTER_AREA)
        self.reference = _prep(ref, px_per_mm, "prep" in exact)
        # the sheet's printed colours stay known whatever is learned of its look: the paper round a die
        # says what light falls there (its colour is judged under it, vision/dice/colour.py); paper is
        # its pale pixels a pixel clear of the printed lines
        from vision.dice.colour import PAPER_MIN

        self.printed = ref
        self._paper = cv2.erode((ref.min(axis=2) >= PAPER_MIN).view(np.uint8), np.ones((3, 3), np.uint8)) > 0
        self._top: np.ndarray | None = None  # the frame's sheet view being read, and its valid part
        self._top_roi: tuple[int, int, int, int] | None = None
        # the sheet view in colour, part by part (x0, y0, x1, y1), when `_top` is grey (the 3D reader
        # warps its sheet view in grey; the paper's colour round a die is still needed: `_light`)
        self._colour_part: Callable[[tuple[int, int, int, int]], np.ndarray] | None = None
        # The printed drawing is only a first guess of how the empty sheet looks through this camera:
        # the first view (the match starts with an empty board) and every zone seen empty later
        # replace it, so print sharpness, paper and light stop mattering.
        self.learn_empty = learn_empty
        self._learned = False
        self.names, self.lab = palette_lab(colors)
        self._values = None
        self._changed: np.ndarray | None = None
        self._changed_faces: tuple[Any, Any, Parts] | None = None  # see _changed_on
        self._grey_of: tuple[np.ndarray, np.ndarray] | None = None  # see _grey
        # the top-face view of the frame being read, and the part of it the zone being read looks at
        # (`_face`: only that part is warped, converted to grey, and has the changed mask brought in)
        self._faces_now: FaceView | None = None
        self._reach: tuple[int, int, int, int] | None = None
        self._pending: list[tuple[tuple[int, int, int, int], np.ndarray]] = []  # refreshes to apply
        self._near_ncc: dict[str, dict[str, float]] = {}  # this frame's cells' correlations (_nccs)
        self._windows: dict[tuple[str, float], tuple[int, int, int, int]] = {}  # see _window
        self._windows_of: tuple[int, int, float] | None = None
        # _cells_rects per set of cells, under the windows' geometry (`_windows_of`)
        self._rects_of: tuple[Any, dict[frozenset[str], list[tuple[int, int, int, int]]]] = (None, {})
        self._faces_bufs: dict[int, tuple[np.ndarray, list[tuple[int, int, int, int]]]] = {}
        self._beside_mask: np.ndarray | None = None  # _dice_beside's mask, zero between uses
        self._held_last: np.ndarray | None = None  # pixels a die held in the previous frame
        self._had: set[str] = set()  # zones a die was read in, in the previous frame
        self._last_dice: dict[str, list[ZoneDie]] = {}  # the previous frame's reading (see `hand`)
        self._cell_centres: tuple[list[str], np.ndarray] | None = None  # see _nearest_cell
        self.die_side_mm: dict[str, float] = {}  # zone -> longest top-view side one die covers there
        if value_order not in ("pips", "learned"):
            raise VisionError(f"value_order must be 'pips' or 'learned', got {value_order!r}")
        self.value_order = value_order  # which value reader speaks first; the other is the fallback
        self.read_both = False  # ask both value readers for every die (to compare them, eval board)
        self.profile = profile  # a taught dice profile (vision/learned/profile.py): it reads first
        # top-view pixels whose look is a guess (a taped sheet's gaps, filled in: vision/tiled3d.py)
        self.seams: np.ndarray | None = None

    # -- geometry ------------------------------------------------------------------------------
    def _window(self, z: Zone, margin_mm: float) -> tuple[int, int, int, int]:
        H, W = self.reference.shape[:2]
        if self._windows_of != (H, W, self.px):
            self._windows, self._windows_of = {}, (H, W, self.px)
        key = (z.name, margin_mm)  # a frame read asks for ~500 windows, the same every frame
        got = self._windows.get(key)
        if got is None:
            got = self._windows[key] = (max(0, int((z.x - margin_mm) * self.px)),
                                        max(0, int((z.y - margin_mm) * self.px)),
                                        min(W, int((z.x + z.w + margin_mm) * self.px)),
                                        min(H, int((z.y + z.h + margin_mm) * self.px)))
        return got

    # -- reading -------------------------------------------------------------------------------
    def read(self, top_bgr: np.ndarray, faces: FaceView | None = None, skip: frozenset[str] = frozenset(),
             inside: np.ndarray | None = None, only: set[str] | None = None,
             keep: ZoneReading | None = None, roi: tuple[int, int, int, int] | None = None,
             colour: Callable[[tuple[int, int, int, int]], np.ndarray] | None = None) -> ZoneReading:
        """`top_bgr`: the sheet rectified at `px_per_mm` (same size as the reference). `faces`: the
        same frame rectified on the dice's top faces (vision.board3d), where values are then read.
        `skip`: zones the camera does not see (out of the frame): not read, not learned, no entry in
        the reading. `inside`: the top view's pixels that show the frame (the rest is warp border):
        only they are learned as the empty sheet; elsewhere the printed drawing stays the guess.
        `only` (with `keep`, the last reading): read just these zones; the others keep their entries
        in `keep` and are not refreshed (their pixels did not change, vision/zones_reuse.py). `roi`
        (x0, y0, x1, y1 of the views, with `only`): the part of both views those zones' reading looks at,
        with ROI_PAD_MM to spare; only it is valid (warped) and only it is prepared. `colour`: when
        `top_bgr` is grey, gives the same view in colour for a part (x0, y0, x1, y1) of it."""
        if top_bgr.shape[:2] != self.reference.shape[:2]:
            raise VisionError(f"rectified view is {top_bgr.shape[1]}x{top_bgr.shape[0]}, expected "
                              f"{self.reference.shape[1]}x{self.reference.shape[0]}")
        if self.learn_empty and not self._learned:
            roi = None  # the first view is learned whole
        obs = _prep_roi(top_bgr, self.px, roi, "prep" in self.exact)
        self._changed = _changed_mask(obs, self.reference, roi)
        self._top, self._top_roi, self._colour_part = top_bgr, roi, colour
        self._faces_now, self._reach = faces, None
        out = ZoneReading()
        if self.learn_empty and not self._learned:
            if inside is None:
                self.reference = obs.copy()
            else:
                self.reference[inside] = obs[inside]
            self._learned = True
            return ZoneReading({z.name: [] for z in self.zones})
        # the cells read this frame: on the top-face view only their windows are looked at
        cells = {z.name: self._window(z, 3.0) for z in self.zones if not z.many and z.name not in skip
                 and (only is None or keep is None or z.name in only)}
        on_faces = self._faces_prep(faces, obs, _within(roi, self._cells_part(cells)),
                                    self._cells_rects(cells))
        self._pending = []
        self._near_ncc = {}
        if on_faces is not None:
            # every cell read this frame, its window's correlation on both views at once (a close
            # value: the exact one, see _at_least)
            f64 = {"f64_products": True} if "f32" in self.exact else {}
            self._near_ncc = {"faces": _nccs(on_faces[0], on_faces[1], cells, **f64),
                              "sheet": _nccs(obs, self.reference, cells, **f64)}
        # on the top-face path the tray and pools are read first: one unreadable (a hand, or dice
        # touching) blocks the frame, whose cells are then read cheaply (`_read_cell_on_faces`'s `hand`).
        # The reading and the empty sheet's refreshes are put back in the zones' order
        order = [z for z in self.zones if z.name not in skip]
        if on_faces is not None:
            order.sort(key=lambda z: not z.many)  # stable: each kind keeps its order
        pending: dict[str, list[tuple[tuple[int, int, int, int], np.ndarray]]] = {}
        hand: bool | None = None
        reach = self._reach_mm()  # the same for every zone of a frame (die_side_mm changes between reads)
        for z in order:
            if hand is None and not z.many:
                hand = on_faces is not None and bool(out.unreadable)  # only trays and pools so far
            first = len(self._pending)
            self._reach = self._window(z, reach)
            self._read_zone(z, top_bgr, faces, obs, on_faces, only, keep, out, bool(hand))
            pending[z.name] = self._pending[first:]
        self._pending = [p for z in self.zones if z.name in pending for p in pending[z.name]]
        out = ZoneReading({z.name: out.dice[z.name] for z in self.zones if z.name in out.dice},
                          {z.name: out.unreadable[z.name] for z in self.zones if z.name in out.unreadable})
        self._apply_refreshes(out)
        self._had = {name for name, dice in out.dice.items() if dice}
        self._last_dice = dict(out.dice)
        return out

    def _read_zone(self, z: Zone, top_bgr: np.ndarray, faces: FaceView | None, obs: np.ndarray,
                   on_faces: tuple[np.ndarray, np.ndarray] | None, only: set[str] | None,
                   keep: ZoneReading | None, out: ZoneReading, hand: bool) -> None:
        """One zone of `read` into `out` (the arguments are `read`'s; `hand`: see `_read_cell_on_faces`;
        `self._reach` set to the zone's window at `_reach_mm` by the caller)."""
        if only is not None and keep is not None and z.name not in only:
            if z.name in keep.dice:
                out.dice[z.name] = keep.dice[z.name]
            if z.name in keep.unreadable:
                out.unreadable[z.name] = keep.unreadable[z.name]
            return
        if on_faces is not None and not z.many:
            if "batch" not in self.exact and _surely(self._near_ncc["faces"].get(z.name), SURELY_EMPTY_NCC):
                # _read_cell_on_faces's first test, decided by the batch's value alone (most cells)
                out.dice[z.name] = []
                if _surely(self._near_ncc["sheet"].get(z.name), SURELY_EMPTY_NCC):
                    self._pending.append((self._window(z, 3.0), obs))  # _refresh_if_clean's refresh
                else:
                    self._refresh_if_clean(z, obs)
                return
            self._read_cell_on_faces(z, faces, *on_faces, obs, out, hand)
            return
        # a die's top face may stand a little off its zone in perspective: look a few mm around
        margin = 0.0 if z.many else 3.0
        x0, y0, x1, y1 = self._window(z, margin)
        a, b = obs[y0:y1, x0:x1], self.reference[y0:y1, x0:x1]
        if not z.many and _ncc(a, b) >= self.empty_ncc:
            out.dice[z.name] = []
            self._refresh(z, margin, obs)
            return
        blobs, mask = self._zone_blobs(z, obs)
        if not blobs:
            self._refresh(z, margin, obs)
        dice: list[ZoneDie] = []
        where: list[np.ndarray] = []  # centres of the dice read in this zone (top-face view)
        faced = faces is not None
        tried: list[np.ndarray] = []  # the tray or pool blobs read as dice (top view px)
        for bx0, by0, bx1, by1, kind in blobs:
            # on the top-face view a tray or pool blob a little over the size limit may still be
            # one die stretched by perspective and its shadow: the crop reader says whether it is
            longest = max(bx1 - bx0, by1 - by0)
            stretched = faced and z.many and longest <= STRETCHED_DIE * self.die_mm * self.px
            if kind != "die" and not stretched:
                out.unreadable[z.name] = kind
                continue
            box = np.array([bx0 + x0, by0 + y0, bx1 + x0, by1 + y0], np.float32)
            # in a cell, pips are looked for inside the cell only: a neighbour's die leans close
            value, vconf, colour, readings, at = self._value(top_bgr, box, z, faces, learned=faced)
            if faced and z.many:
                tried.append(box)
            if faced and readings["learned"][2] < NOT_A_DIE:
                pip = self._one_face(faces, box, readings) if z.many else None
                if pip is None:
                    if kind != "die":
                        out.unreadable[z.name] = kind
                    continue  # a die's shadow or side: the crop reader sees no die there
                at = pip  # a light 1, its pip on its face's centre (vision/zones_one.py)
            if faced and not _inside(at / self.px, z, 0.25 * self.die_mm):
                continue  # its top face stands outside the zone: a neighbour's die seen in perspective
            near = [float(np.linalg.norm(at - seen)) for seen in where]
            if faced and min(near, default=np.inf) < 0.5 * self.die_mm * self.px:
                continue  # one die seen as two blobs (its top face and its shadow): read once
            where.append(at)
            dice.append(ZoneDie(value, vconf, colour, tuple(float(v) / self.px for v in box), readings))
        if faced and z.many:
            self._dice_beside(z, faces, tried, where, dice)
            self._ones_in_pieces(z, faces, mask, where, dice)
        if not z.many and len(dice) > 1:
            out.unreadable[z.name] = "more than one object in one cell"
        if not z.many and not dice and z.name not in out.unreadable:
            out.unreadable[z.name] = "something covers the cell but it is not a die"
        out.dice[z.name] = dice

    def _zone_blobs(self, z: Zone, obs: np.ndarray) -> tuple[list[Blob], np.ndarray]:
        """The blobs of a zone's window (a tray or pool's own, a cell's 3 mm round it) on the sheet view,
        and the window's closed difference mask they were found on (`_masked_blobs`)."""
        x0, y0, x1, y1 = self._window(z, 0.0 if z.many else 3.0)
        blobs, mask = self._masked_blobs(obs[y0:y1, x0:x1], self.reference[y0:y1, x0:x1], z.many,
                                         self._max_side_px(z))
        if z.many and self.seams is not None:
            blobs = _joined_across(blobs, self.seams[y0:y1, x0:x1], self._max_side_px(z))
        return blobs, mask

    def _apply_refreshes(self, out: ZoneReading) -> None:
        """Blend the empty zones into the reference, except where a die stands (now or in the previous
        frame): a die's sides lean into its neighbours' windows in perspective, and the 20 mm
        normalisation of `_prep` carries it further, so refreshing a neighbour's window as empty
        slowly painted the die into the reference until the die itself read as empty (seed 3, after
        its camera bump: a white 1 on B04 faded in four frames and the match never recovered)."""
        held = np.zeros(self.reference.shape[:2], bool)
        H, W = held.shape
        by_name = {z.name: z for z in self.zones}
        for name, dice in out.dice.items():
            spill = max(self.die_side_mm.get(name, self.die_mm) - self.die_mm, 0.0) + 3.0
            for d in dice:
                x0, y0, x1, y1 = d.box_mm
                held[max(0, int((y0 - spill) * self.px)):min(H, int((y1 + spill) * self.px) + 1),
                     max(0, int((x0 - spill) * self.px)):min(W, int((x1 + spill) * self.px) + 1)] = True
        for name in out.unreadable:
            z = by_name.get(name)
            if z is not None:
                spill = max(self.die_side_mm.get(name, self.die_mm) - self.die_mm, 0.0) + 3.0
                x0, y0, x1, y1 = self._window(z, spill)
                held[y0:y1, x0:x1] = True
        keep = held if self._held_last is None else held | self._held_last
        self._held_last = held
        pending, self._pending = self._pending, []
        blend = zones_jit.refresh()
        if blend is not None and self.reference.dtype == np.float32:
            # compiled (vision/zones_jit.py): the loop below, window after window, per pixel the same
            # float32 operations; each run of windows refreshed from one view in one call
            start = 0
            while start < len(pending):
                obs = pending[start][1]
                end = start + 1
                while end < len(pending) and pending[end][1] is obs:
                    end += 1
                windows = np.array([w for w, _ in pending[start:end]], np.intp)
                if obs.dtype == np.float32 and obs.shape == self.reference.shape:
                    blend(self.reference, obs, keep, windows)
                else:
                    self._blend(pending[start:end], keep)
                start = end
            return
        self._blend(pending, keep)

    def _blend(self, pending: list[tuple[tuple[int, int, int, int], np.ndarray]], keep: np.ndarray) -> None:
        """`_apply_refreshes`'s blend of `pending` (window, view) into the reference, in NumPy."""
        step = np.empty(0, np.float32)
        for (x0, y0, x1, y1), obs in pending:
            ref = self.reference[y0:y1, x0:x1]
            # ref += 0.25 (obs - ref) where no die stands: the same float32 operations per pixel as
            # boolean indexing, without gathering and scattering each window (one per empty zone); a
            # window clear of every die (most) in place, without the mask or a temporary
            if step.size < ref.size:
                step = np.empty(ref.size, np.float32)
            d = step[:ref.size].reshape(ref.shape)
            np.subtract(obs[y0:y1, x0:x1], ref, out=d)
            d *= np.float32(0.25)
            held_here = keep[y0:y1, x0:x1]
            if held_here.any():
                np.add(ref, d, out=ref, where=~held_here)
            else:
                ref += d

    def register(self, top_bgr: np.ndarray, inside: np.ndarray | None = None) -> float | None:
        """Bring the learned empty sheet onto a new view of it (the camera or the sheet moved and was
        re-localised). Each calibration is off by its own millimetre or two, so the reference learned
        through the old one lies off the new view: its printed outlines then differ from the frame
        along thin lines that the blob mask closes into a frame round a zone ("a large object" in the
        tray and a pool for the rest of the match, tuning seed 1 at 600 mm / 20 degrees). The printed
        sheet itself says where: an ECC fit of the reference to the view, away from the dice last seen,
        believed when it moves the reference no further than two calibrations may disagree
        (MAX_REGISTER_MM) and fits the view better than before. Either way the view is then re-learned
        as the empty sheet wherever it shows no dice (`_relearn_from`): the fit only brings the old
        sheet to where dice stand. No fit carries the old sheet's look over: a printed line is drawn
        by the camera's own pixels, and where the camera has fewer of them than the view (1920x1080
        from 1000 mm at 30 degrees) its jagged edge moves with the camera; after tuning seed 6's bump
        there the believed fit (0.95 mm, misfit 0.149 -> 0.134) left the tray's outline jagged the
        old way, read "a large object" with the roll's dice and after them, and as the tray is
        refreshed only when it holds nothing, for the rest of the match (16 moves missed). `inside`:
        the view's pixels that show the frame (see `read`). Returns how far the fit moved the
        reference (mm), or None when it was not believed."""
        if not self._learned:
            return None
        obs = _prep(top_bgr, self.px, "prep" in self.exact)
        if obs.shape != self.reference.shape:
            return None
        free = np.ones(obs.shape, bool)
        if self._held_last is not None:
            free &= ~self._held_last
        if inside is not None:
            free &= inside
        warp = np.eye(3, dtype=np.float32)
        criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 60, 1e-5)
        try:
            _cc, warp = cv2.findTransformECC(obs.astype(np.float32), self.reference.astype(np.float32),
                                             warp, cv2.MOTION_HOMOGRAPHY, criteria, free.astype(np.uint8), 3)
        except cv2.error:
            self._relearn_from(obs, free)
            return None
        h, w = obs.shape
        corners = np.array([[[0, 0]], [[w, 0]], [[w, h]], [[0, h]], [[w / 2, h / 2]]], np.float32)
        moved = float(np.abs(cv2.perspectiveTransform(corners, warp) - corners).max()) / self.px
        if np.isfinite(moved) and moved <= MAX_REGISTER_MM:
            fitted = cv2.warpPerspective(self.reference, warp, (w, h), borderMode=cv2.BORDER_REPLICATE,
                                         flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
            if _misfit(obs, fitted, free) < REGISTER_GAIN * _misfit(obs, self.reference, free):
                self.reference = fitted
                self._relearn_from(obs, free)
                return moved
        self._relearn_from(obs, free)
        return None

    def _relearn_from(self, obs: np.ndarray, free: np.ndarray) -> None:
        """Take the view (normalised, `obs`) as the empty sheet wherever it shows none of the dice:
        not where a die stood in the last frame (`free` leaves its box out), nor within a die's side
        of where the view differs from the old reference by more than a misfit explains (a die put
        down with the move the camera was knocked in). A misfit of up to MISFIT_MM moves each printed
        line by that much, so a view's pixel is explained when it lies within the old reference's
        range round it; a die's pips and outline on the paper are not. The rest keeps the old
        reference until its zone is seen empty.
        Only differences outside the last frame's dice boxes count as new dice: a die already seen is
        left out by its box, and the die-side margin round its own pixels also kept the old reference
        on the paper round it. A pool die stays all match and its zone is never seen empty, so that
        misfit paper stayed: after tuning seed 1's bump at 1280x720 / 1000 mm / 20 degrees (a fit
        refused at 5 % gain) pool 1's printed outline, a pixel off, closed into "a large object" on
        every other frame and 6 moves were missed."""
        r = max(1, round(MISFIT_MM * self.px))
        near = np.ones((2 * r + 1, 2 * r + 1), np.uint8)
        lo, hi = cv2.erode(self.reference, near), cv2.dilate(self.reference, near)
        differs = ((obs < lo - 0.6) | (obs > hi + 0.6)) & free
        # a die is a blob, not a line: a printed outline darker than an old sheet learned under glare
        # (tuning seed 6 at 720p / 1000 mm / 20 degrees, pool 2's top edge) differs along a thin line,
        # and its margin kept that faded sheet over the whole pool, read "a large object" for the rest
        # of the match. Closed as the blob finder closes (a white die becomes a solid blob), what is
        # nowhere as thick as a third of a die is no die
        closed = self._closed(differs)
        _n, labels = cv2.connectedComponents(closed)
        thick = np.zeros(int(labels.max()) + 1, np.float32)
        np.maximum.at(thick, labels.ravel(), cv2.distanceTransform(closed, cv2.DIST_L2, 3).ravel())
        die = 2 * thick >= self.die_mm * self.px / 3
        die[0] = False  # the background
        new = die[labels].astype(np.uint8)
        side = 2 * round(self.die_mm * self.px) + 1
        new = cv2.dilate(new, np.ones((side, side), np.uint8)) > 0
        take = free & ~new
        self.reference[take] = obs[take]

    def _cells_part(self, cells: dict[str, tuple[int, int, int, int]]) -> tuple[int, int, int, int] | None:
        """The part of the top-face view the reading of `cells` looks at on its normalised views: each
        cell's pip window (the widest, `_read_cell_on_faces`) and the pixel round it that
        `_changed_in`'s dilation reads. None: no cell."""
        if not cells:
            return None
        H, W = self.reference.shape[:2]
        wins = [self._window(z, PIPS_MARGIN_MM) for z in self.zones if z.name in cells]
        return (max(0, min(w[0] for w in wins) - 1), max(0, min(w[1] for w in wins) - 1),
                min(W, max(w[2] for w in wins) + 1), min(H, max(w[3] for w in wins) + 1))

    def _faces_prep(self, faces: FaceView | None, sheet_obs: np.ndarray,
                    roi: tuple[int, int, int, int] | None = None,
                    rects: list[tuple[int, int, int, int]] | None = None,
                    ) -> tuple[np.ndarray, np.ndarray] | None:
        """The top-face view normalised, and the empty sheet as it shows there (`roi`: see `read`;
        `read` gives the part of it its cells look at, `_cells_part`: the trays and pools are read on
        the sheet view, so the rest of the view would go unused). `rects` (with `roi`): only these
        parts of `roi` are warped (`_cells_rects`: the cells' own windows, under half of `roi`), the
        rest is left zero.
        Both are the sheet view's (`sheet_obs`, `reference`) brought onto the top-face view by the
        same warp: the two views are one camera image on two parallel planes, so normalising the
        sheet view once and warping it costs a warp instead of a second `_prep`, and the frame and
        the empty sheet it is compared with there are resampled alike."""
        if faces is None:
            return None
        w, h = faces.size
        flags, border = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, cv2.BORDER_REPLICATE
        if "faces" in self.exact:  # the top-face view normalised on its own (before c99a357)
            ref = warp_roi(self.reference, faces.to_sheet_view, (w, h), flags, roi, borderMode=border)
            image = faces.image if roi is None else faces.part(roi)
            return _prep_roi(image, self.px, roi, "prep" in self.exact), ref
        if rects is None or roi is None:
            ref = warp_roi(self.reference, faces.to_sheet_view, (w, h), flags, roi, borderMode=border)
            obs = warp_roi(sheet_obs, faces.to_sheet_view, (w, h), flags, roi, borderMode=border)
            return obs, ref
        parts = [r for r in (_within(roi, r) for r in rects) if r[2] > r[0] and r[3] > r[1]]
        out = []
        for i, view in enumerate((sheet_obs, self.reference)):
            warped = self._faces_buffer(i, (h, w), view.dtype, parts)
            for x0, y0, x1, y1 in parts:  # each part straight into its place: the whole warp's pixels
                warp_part(view, faces.to_sheet_view, (x0, y0, x1, y1), flags,
                          dst=warped[y0:y1, x0:x1], borderMode=border)
            out.append(warped)
        return out[0], out[1]

    def _faces_buffer(self, i: int, shape: tuple[int, int], dtype: Any,
                      parts: list[tuple[int, int, int, int]]) -> np.ndarray:
        """Kept buffer `i` for `_faces_prep`, zero but for `parts` (about to be written whole): what
        a fresh zero array would be once they are, without a fresh 4 MB array per frame (its page
        faults and zeroing cost as much as the warps). The normalised top-face views live for one
        `read` only (nothing read from them is kept)."""
        kept = self._faces_bufs.get(i)
        if kept is None or kept[0].shape != shape or kept[0].dtype != dtype:
            buf, written = np.zeros(shape, dtype), []
        else:
            buf, written = kept
            now = set(parts)
            for x0, y0, x1, y1 in written:  # zero again what an earlier frame wrote
                if (x0, y0, x1, y1) not in now:
                    buf[y0:y1, x0:x1] = 0
        self._faces_bufs[i] = (buf, list(parts))
        return buf

    def _cells_rects(self, cells: dict[str, tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
        """What of the top-face view the reading of `cells` looks at (as `_cells_part`: each cell's pip
        window and the pixel round it), as a few rectangles on a grid of RECT_TILE px: a board's cells
        cover under half of their bounding box (paths, gaps, the middle). Kept per set of cells, and
        per set of windows for every reader (a new match's reader asks for the same ones)."""
        key = frozenset(cells)
        if self._rects_of[0] != self._windows_of:
            self._rects_of = (self._windows_of, {})
        kept = self._rects_of[1].get(key)
        if kept is not None:
            return kept
        H, W = self.reference.shape[:2]
        wins = tuple(self._window(z, PIPS_MARGIN_MM) for z in self.zones if z.name in cells)
        rects = _RECTS.get((H, W, wins))
        if rects is None:
            rects = _RECTS[(H, W, wins)] = _tile_rects(wins, H, W, RECT_TILE)
            if len(_RECTS) > 64:  # (a camera's frames ask for a few sets of cells, again and again)
                _RECTS.pop(next(iter(_RECTS)))
        if len(self._rects_of[1]) >= 64:
            self._rects_of[1].clear()
        self._rects_of[1][key] = rects
        return rects

    def _read_cell_on_faces(self, z: Zone, faces: FaceView, obs: np.ndarray, ref: np.ndarray,
                            sheet_obs: np.ndarray, out: ZoneReading, hand: bool = False) -> None:
        """One cell, on the top-face view: a die standing in it shows its top face right on the cell
        there. Its sides, and a neighbour's, spill towards the point under the camera; so of the blobs
        in the window the one on the cell's centre is the die, the others are someone's sides.

        `hand`: a tray or pool was read unreadable (a hand over it, or dice touching), so the frame is
        blocked and the loop uses none of its items. A cell that would be put to the crop reader (a
        hand's fingers over the cells: each cell asked about itself, a re-framed box and the die that
        framed, most of a hand frame's CPU) is then not: it keeps the previous frame's reading, and
        gets no refresh of the empty sheet (as a cell the crop reader finds empty gets none). What is
        read cheaply still is: a cell the correlation or its blobs show empty, with its refresh (a
        hand frame's refreshes skipped, a later frame reads otherwise: docs/benchmarks/readers.md)."""
        x0, y0, x1, y1 = self._window(z, 3.0)
        a, b = obs[y0:y1, x0:x1], ref[y0:y1, x0:x1]
        # a light die on a printed cell can leave the window's correlation fairly high (the outline
        # dominates it): only a near-perfect match is taken as empty unseen; otherwise the blobs and
        # the crop reader decide
        if _at_least(self._near_ncc.get("faces", {}).get(z.name), a, b, SURELY_EMPTY_NCC):
            out.dice[z.name] = []
            self._refresh_if_clean(z, sheet_obs)
            return
        centre = np.array([(z.x + z.w / 2) * self.px - x0, (z.y + z.h / 2) * self.px - y0])
        blobs = self._blobs(a, b, False, self._max_side_px(z))

        def off_centre(blob: tuple[int, int, int, int, str]) -> float:
            bx0, by0, bx1, by1, _kind = blob
            return float(np.hypot(max(bx0 - centre[0], 0, centre[0] - bx1),
                                  max(by0 - centre[1], 0, centre[1] - by1)))

        on = [bl for bl in blobs if off_centre(bl) <= 0.25 * self.die_mm * self.px]
        # no blob on the centre, but a mark there: a light die may differ from the paper at its one
        # pip only (a white 1 whose edges lie along the printed outline: the closing has nothing to
        # join the pip to, tuning seed 3 at 600 mm / 20 degrees after a nudge), so the crop reader,
        # on the die's top face where it stands, says whether it is a die
        marked = not on and self._centre_marked(a, b, centre)
        # a die pushed square into its cell's printed outline differs from the paper at its pips and
        # corners only, too little for a blob (tuning seed 3, A4 tiles: a nudged white 1 on B04 read
        # as gone); a cell that held a die a frame ago and does not look empty asks the crop reader,
        # which must then be sure
        kept = not on and not marked and z.name in self._had
        if not on and not marked and not kept:
            out.dice[z.name] = []
            if not blobs:
                self._refresh_if_clean(z, sheet_obs)
            return
        kind = min(on, key=off_centre)[4] if on else "die"
        if kind != "die":
            out.unreadable[z.name] = kind
            out.dice[z.name] = []
            return
        if hand:
            out.dice[z.name] = self._last_dice.get(z.name, [])
            return  # the frame is blocked: see `hand` above
        changed = _changed_in(obs, ref, self._window(z, PIPS_MARGIN_MM))
        # the die's top face: on the cell, a die wide (the blob also holds its sides)
        box = _square(np.array([z.x, z.y, z.x + z.w, z.y + z.h], np.float32) * self.px, self.die_mm * self.px)
        need = LEARNED_SURE if kept else NOT_A_DIE
        value, vconf, colour, readings, _at = self._value(self._face(faces), box, z, None, changed,
                                                          learned=True, need=need)
        if readings["learned"][2] < need:
            # the crop is framed on the cell's centre, not on the die: a die nudged a quarter of its side
            # off (a neighbour set down beside it) is cut by the crop, and in dim light the crop reader
            # then doubts it is a die (tuning seed 6, 1080p/850 mm/30 degrees dim: a blue 2 on B01 4-5 mm
            # off, chance 0.25-0.55). Framed on the die itself, if its face still stands in the cell.
            # Unless no die-sized box round the cell gets SCREEN's chance of a die at all (a hand over the
            # cells: each such cell cost two more reads, re-framed from what is no die)
            if readings["learned"][2] < SCREEN and self._glimpse(self._face(faces), box) < SCREEN:
                chance, framed = 0.0, box
            else:
                _v, _c, chance, framed = self._crop_read(self._face(faces), box, refine=True, screen=True)
            centre = np.array([(framed[0] + framed[2]) / 2, (framed[1] + framed[3]) / 2])
            at = centre / self.px
            if chance >= SCREEN and _inside(at, z, 0.25 * self.die_mm) and self._nearest_cell(at) == z.name:
                again = self._value(self._face(faces), framed, z, None, changed, learned=True, need=need)
                if again[3]["learned"][2] >= need:
                    value, vconf, colour, readings, _at = again
                    box = framed
        if readings["learned"][2] < need:
            # what stands on the cell's centre is no die's top face: a neighbour's shadow or side
            out.dice[z.name] = []
            return
        out.dice[z.name] = [ZoneDie(value, vconf, colour, tuple(float(v) / self.px for v in box), readings)]

    def _nearest_cell(self, at_mm: np.ndarray) -> str:
        """The cell whose centre is nearest `at_mm` (sheet mm): the cell a die's top face there stands
        on. The re-framed crop of a cell may slide onto its neighbour's die, whose top face then still
        lies within a quarter side of the cell: at 1920x1080 / 1000 mm / 30 degrees a blue 6 on B04 was
        read on B05 too, its face 3.7 mm past B05's edge and 8 mm from B04's centre (tuning seed 15:
        every roll after it looked like "something else", 4 moves lost)."""
        if self._cell_centres is None:
            cells = [z for z in self.zones if not z.many]
            self._cell_centres = ([z.name for z in cells],
                                  np.array([[z.x + z.w / 2, z.y + z.h / 2] for z in cells], np.float64))
        names, centres = self._cell_centres
        return names[int(np.argmin(np.hypot(*(centres - np.asarray(at_mm, np.float64)).T)))]

    def _centre_marked(self, a: np.ndarray, b: np.ndarray, centre: np.ndarray) -> bool:
        """Whether a pip-sized mark differs from the empty sheet on the cell's centre (window
        coordinates): the one pip a light die showing 1 may be all that differs."""
        r = 0.25 * self.die_mm * self.px
        x0, y0 = max(0, int(centre[0] - r)), max(0, int(centre[1] - r))
        x1, y1 = int(centre[0] + r) + 1, int(centre[1] + r) + 1
        marked = np.abs(a[y0:y1, x0:x1] - b[y0:y1, x0:x1]) > 0.9
        pip_area = np.pi * (0.09 * self.die_mm * self.px) ** 2
        return int(marked.sum()) >= 0.5 * pip_area

    def _refresh_if_clean(self, z: Zone, sheet_obs: np.ndarray) -> None:
        """Refresh an empty cell's reference only when the sheet view shows it empty too: in
        perspective a neighbour's top face can stand in the cell's window there."""
        x0, y0, x1, y1 = self._window(z, 3.0)
        near = self._near_ncc.get("sheet", {}).get(z.name)
        if _at_least(near, sheet_obs[y0:y1, x0:x1], self.reference[y0:y1, x0:x1], SURELY_EMPTY_NCC):
            self._refresh(z, 3.0, sheet_obs)

    def relearn(self) -> None:
        """Take the next view as the empty sheet again (after the camera or the sheet moved)."""
        self._learned = False

    def _max_side_px(self, z: Zone) -> float:
        """Longest blob side still one die: 2.3 die sides, or where perspective stretches a die, its
        stretched side and a shadow a die long (a lamp at least 45 degrees up)."""
        return max(2.3 * self.die_mm, self.die_side_mm.get(z.name, 0.0) + self.die_mm) * self.px

    def _refresh(self, z: Zone, margin: float, obs: np.ndarray) -> None:
        """Queue the zone's window to be blended into the reference once the frame is read."""
        self._pending.append((self._window(z, margin), obs))

    def _blobs(self, a: np.ndarray, b: np.ndarray, many: bool = True,
               max_side: float | None = None) -> list[tuple[int, int, int, int, str]]:
        """The blobs where view `a` differs from the empty sheet `b` (windows of the normalised views)."""
        return self._masked_blobs(a, b, many, max_side)[0]

    def _masked_blobs(self, a: np.ndarray, b: np.ndarray, many: bool = True, max_side: float | None = None,
                      ) -> tuple[list[tuple[int, int, int, int, str]], np.ndarray]:
        """`_blobs`, and the closed difference mask they were found on (`_ones_in_pieces` looks at the
        pieces of a tray's or pool's that made no blob)."""
        diff = a - b
        closed = self._closed(np.abs(diff) > 0.9)
        out = self._boxes(closed, many, max_side)
        if many:
            out += self._scattered(closed, out, max_side)
        if not many or all(kind == "die" for *_box, kind in out):
            return out, closed
        # `_prep` normalises over 20 mm, so the paper between two dark dice a few mm apart reads
        # lighter than printed: a halo of the other sign from the dice, which the closing above
        # bridges into one "large object" (dice far from touching, tuning seed 6 at 1080p/850 mm, a
        # blue 1 and 2). A die's body differs from the paper with one sign; closed per sign, what
        # splits into dice only is those dice (a hand or dice really touching stays one blob)
        signed = self._closed(diff < -0.9) | self._closed(diff > 0.9)
        parts = self._boxes(signed, many, max_side)
        kept = [blob for blob in out if blob[4] == "die"]
        for x0, y0, x1, y1, kind in out:
            if kind == "die":
                continue
            inner = [p for p in parts if p[0] >= x0 and p[1] >= y0 and p[2] <= x1 and p[3] <= y1]
            if inner and all(p[4] == "die" for p in inner):
                kept += inner
            else:
                kept.append((x0, y0, x1, y1, kind))
        return kept, closed

    def _scattered(self, closed: np.ndarray, found: list[Blob],
                   max_side: float | None) -> list[Blob]:
        """Dice-sized clusters of the changed pieces left outside the blobs `found` (a tray or pool's):
        a white die on white paper in a sharp image may differ only at its pips and a thin strip of
        its side, each piece too small or too thin to be a die and the pips too far apart for
        `_closed` to join (tuning seed 13 at 4K/850 mm/30 degrees, a white 5 in the shade beside a 1:
        no blob, the roll 5 1 read as 1; seed 16, a white 2: its edges and pips 8 mm apart). Closed over a
        die (away from the dice found, whose own stray edges are left) they make one blob; the crop reader
        then says whether it is a die, as for any blob."""
        side = max(3, int(self.die_mm * self.px))
        rest = closed.copy()
        for x0, y0, x1, y1, _kind in found:  # and half a die round them: a read die's stray edges
            rest[max(0, y0 - side // 2):y1 + side // 2, max(0, x0 - side // 2):x1 + side // 2] = 0
        if not rest.any():
            return []
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side))
        joined = cv2.morphologyEx(rest, cv2.MORPH_CLOSE, disc)
        return [blob for blob in self._boxes(joined, True, max_side) if blob[4] == "die"]

    def _closed(self, mask: np.ndarray) -> np.ndarray:
        """A difference mask closed over a die's face and cleaned of specks."""
        m = mask.astype(np.uint8)
        k = max(1, int(self.px))
        # a white die on white paper differs only at its pips, edges and shadow: close over the face
        close = max(3, int(self.die_mm * self.px / 3))
        m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (close, close)))
        return cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((2 * k, 2 * k), np.uint8))

    def _boxes(self, mask: np.ndarray, many: bool,
               max_side: float | None) -> list[tuple[int, int, int, int, str]]:
        n, _lab, stats, _c = cv2.connectedComponentsWithStats(mask)
        die_px = self.die_mm * self.px
        out = []
        for i in range(1, n):
            x, y, w, h, area = stats[i]
            if area < (0.35 * die_px) ** 2:
                continue  # noise, a shadow edge
            side = max(w, h)
            if min(w, h) < 0.4 * die_px:
                continue  # a sliver: a shadow edge, a printed outline a pixel off after the camera moved
            # a die and its long shadow fit; so does a die stretched by perspective (max_side)
            if side > (max_side or 2.3 * die_px) or (many and area > 3.0 * die_px ** 2):
                out.append((x, y, x + w, y + h, "a large object (a hand, or dice touching)"))
            elif side < 0.6 * die_px:
                continue  # too small
            else:
                out.append((x, y, x + w, y + h, "die"))
        return out

    def _value(self, image: np.ndarray, box: np.ndarray, z: Zone, faces: FaceView | None = None,
               changed: np.ndarray | None = None, learned: bool = False, need: float | None = None,
               ) -> tuple[int, float, str | None, dict[str, Any], np.ndarray]:
        """Value, confidence and colour of the die whose blob is `box` (top-view px) in zone `z`, each
        value reader's own answer ("pips": (value, confidence), "learned": (value, confidence, chance
        that it is a die at all)), and the die's centre on the view read (px). With `faces`, the die
        is read on the top-face view, where its blob maps to; there the crop reader also re-frames
        the box on the die (a light die's blob is mostly its shadow). `learned`: ask the crop reader
        even when the pips are clear. `need` (with `learned`): the caller drops the die when the crop
        reader gives it less chance than this of being a die; then only that answer is returned (its
        pips, colour and profile reading would go unused: a hand over the cells asks about many)."""
        from vision.dice.colour import classify_colour
        from vision.dice.features import VALUE_SIZE, crop, square_window

        window = None if z.many else self._window(z, PIPS_MARGIN_MM)
        changed = self._changed if changed is None else changed
        if faces is not None:
            box = _on_faces(faces, box)
            image = self._face(faces)
            changed = self._changed_on(faces)
        readings: dict[str, tuple] = {}
        pips_first = self.value_order == "pips"
        net = None
        if learned or self.read_both or not pips_first:
            net = self._crop_read(image, box, refine=faces is not None, framed=faces is not None)
            readings["learned"] = net[:3]
            if faces is not None:
                box = net[3]
            if need is not None and net[2] < need:
                centre = np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])
                return net[0], net[1], None, readings, centre
        counted = count_pips(image, box, self.die_mm * self.px, window, changed, self._grey(image))
        if counted is not None:
            readings["pips"] = (int(counted[0]), float(counted[1]))
        colour = classify_colour(crop(image, square_window(box, 1.0), VALUE_SIZE), self.names, self.lab,
                                 self._light(box))[0]
        centre = np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])

        def at(value: int) -> np.ndarray:
            # the die is where the pips it was read by are: two blobs that counted one face's pips
            # (a light die's blob and its neighbour's, the crop reader framed between them) are one
            # die. Only pips that make the value read: a miscount (a stray mark taken for a lone pip
            # off the face, the crop reader's 4 kept) put the die where its face is not, and
            # `_dice_beside`, masking the dice read round there, counted the face's own pips again as
            # a second die of the same value (tuning seed 36 at 1080p/850 mm/30 degrees, a roll of
            # 4 2 read as 2 4 4 for a whole scene)
            if faces is not None and counted is not None and int(counted[0]) == value:
                return counted[2]
            return centre

        if self.profile is not None:  # the player's own dice, symbol faces included, where it knows them
            taught = self.profile.read(image, np.asarray(box, np.float32)[None])
            if taught.value_applies[0]:
                readings["profile"] = (int(taught.values[0]), float(taught.confidence[0]))
                value = int(taught.values[0])
                return value, float(taught.confidence[0]), colour, readings, at(value)
        if counted is not None and (pips_first or (net[1] < LEARNED_SURE and counted[1] > net[1])):
            # pips first, or an unsure network
            return int(counted[0]), float(counted[1]), colour, readings, at(int(counted[0]))
        if net is None:
            net = self._crop_read(image, box, framed=False)
            readings["learned"] = net[:3]
        # in the pips-first order the crop reader decides only when the pips make no clean d6 face:
        # trusted less then (a reading below the loop's threshold is put to the players)
        return net[0], net[1] * (0.7 if pips_first else 1.0), colour, readings, at(int(net[0]))

    def _dice_beside(self, z: Zone, faces: FaceView, blobs: list[np.ndarray], where: list[np.ndarray],
                     dice: list[ZoneDie]) -> None:
        """Add the dice a tray or pool's blobs hold beside the dice read from them (`where`: the read
        dice's centres on the top-face view; `where` and `dice` are extended in place). Two white dice
        about 9 mm apart join into one blob (a die's own blob is mostly its side and shadow, leaning the
        same way), or one die's crop read is drawn onto its neighbour's face: either way the pair was
        read as one die (tuning seed 1 at 1080p/850 mm/30 degrees, a 1 and a 3 25 mm apart: 11 of 24
        pairs). A light 1's pip on a light face (vision/zones_one.py), and a face's pips counted with
        the read dice's faces masked out, are each a die where they lie a die or more from every die
        read (two dice's top faces are at least a side apart) and, for the pips, where the crop reader
        sees a die on them. A 1 is told by its pip alone: the crop reader's chance on its blank face is
        unstable at this tilt."""
        if not blobs:
            return  # (nothing to look beside: the top-face view need not even be made)
        side = self.die_mm * self.px
        image = self._face(faces)
        grey, changed = self._grey(image), self._changed_on(faces)

        def new(at: np.ndarray) -> bool:
            far = min((float(np.linalg.norm(at - w)) for w in where), default=np.inf) >= side
            return far and _inside(at / self.px, z, 0.25 * self.die_mm)  # not a neighbour's die

        for box in blobs:
            fbox = _on_faces(faces, box)
            pip = one_pip_face(grey, fbox, side, changed, BESIDE_REACH)
            box_mm = tuple(float(v) / self.px for v in box)
            if pip is not None and new(pip):
                face = _square(np.concatenate([pip, pip]), side)
                where.append(pip)
                dice.append(ZoneDie(1, ONE_BESIDE, self._colour(image, face), box_mm,
                                    {"pips": (1, ONE_BESIDE)}))
            # a face beside the dice read: the pips left when their faces are masked out
            out = (BESIDE_REACH + 0.5) * side  # the pips may lie as far off the blob as the 1's may
            cx, cy = (fbox[0] + fbox[2]) / 2, (fbox[1] + fbox[3]) / 2
            window = (int(min(cx - 1.5 * side, fbox[0] - out)), int(min(cy - 1.5 * side, fbox[1] - out)),
                      int(max(cx + 1.5 * side, fbox[2] + out)), int(max(cy + 1.5 * side, fbox[3] + out)))
            # the changed mask (count_pips looks at its window only: copied there alone, not the view,
            # into a kept zero buffer that is zero again once counted: circles draw only zeros)
            mask = self._beside_mask
            if mask is None or mask.shape != grey.shape:
                mask = self._beside_mask = np.zeros(grey.shape, np.uint8)
            a0, b0 = max(0, window[0]), max(0, window[1])
            a1, b1 = min(grey.shape[1], window[2]), min(grey.shape[0], window[3])
            mask[b0:b1, a0:a1] = 1 if changed is None else changed[b0:b1, a0:a1]
            for w in where:
                cv2.circle(mask, (int(round(w[0])), int(round(w[1]))), int(0.5 * side), 0, -1)
            try:
                counted = count_pips(image, fbox, side, window, mask, grey)
            finally:
                mask[b0:b1, a0:a1] = 0
            if counted is None or counted[0] == 1 or not new(counted[2]):
                continue  # no other face (a lone small mark is no 1: that is told by its pip, above)
            reach = BESIDE_REACH * side
            cx, cy = counted[2]
            if not (fbox[0] - reach <= cx <= fbox[2] + reach and fbox[1] - reach <= cy <= fbox[3] + reach):
                continue  # a die further off, with its own blob
            face = _square(np.concatenate([counted[2], counted[2]]), side)
            net = self._crop_read(image, face, framed=False)
            if net[2] < NOT_A_DIE:
                continue
            # the crop reader disagreeing: trusted less (a reading below the loop's threshold is asked)
            conf = float(counted[1]) if net[0] == counted[0] else 0.7 * min(float(counted[1]), net[1])
            where.append(counted[2])
            dice.append(ZoneDie(int(counted[0]), conf, self._colour(image, face), box_mm,
                                {"pips": (int(counted[0]), float(counted[1])), "learned": net[:3]}))

    def _ones_in_pieces(self, z: Zone, faces: FaceView, mask: np.ndarray, where: list[np.ndarray],
                        dice: list[ZoneDie]) -> None:
        """Add the light 1s of a tray or pool that made no blob (`where`, `dice` extended in place). A
        white 1 on white paper differs from it at its pip, its shaded side and its shadow only; where the
        camera has about a pixel per mm (1920x1080 from 1000 mm at 30 degrees, views at 2 px/mm) those
        come out apart, farther than the closing joins: a side's sliver, the pip's speck, each dropped as
        no die's blob (tuning seed 16: a white 1 beside a 5 missed in all five frames of its roll, the
        roll lost). Each piece the blob finder dropped is then looked round for a 1's pip on a light
        face (vision/zones_one.py, as a blob's neighbour is in `_dice_beside`), a die or more from every
        die read. Blurred so, the pip's dark core comes out smaller too (that 1's: 1.73 plain pip areas,
        the default least 1.75), so a pip down to ONE_PIP_FLOOR is taken here: plain pips come out
        under 1.3, and the ring of light face round it still has to hold no other mark. `mask`: the
        zone's closed difference mask, as `_zone_blobs` made it (the zone's own window)."""
        x0, y0, x1, y1 = self._window(z, 0.0)
        if mask.shape != (y1 - y0, x1 - x0):
            raise VisionError(f"{z.name}: a mask of {mask.shape}, not of the zone's window")
        n, _lab, stats, _c = cv2.connectedComponentsWithStats(mask)
        side = self.die_mm * self.px
        pieces = [s for s in stats[1:] if s[4] >= 0.15 * np.pi * (0.09 * side) ** 2  # a pip's speck at least
                  and (s[4] < (0.35 * side) ** 2 or min(s[2], s[3]) < 0.4 * side
                       or max(s[2], s[3]) < 0.6 * side)]  # what `_boxes` drops
        if not pieces:
            return
        grey, changed = self._grey(self._face(faces)), self._changed_on(faces)
        for px, py, w, h, _area in pieces:
            box = np.array([px + x0, py + y0, px + x0 + w, py + y0 + h], np.float32)
            pip = one_pip_face(grey, _on_faces(faces, box), side, changed, least=ONE_PIP_FLOOR)
            if pip is None or not _inside(pip / self.px, z, 0.25 * self.die_mm):
                continue
            if min((float(np.linalg.norm(pip - seen)) for seen in where), default=np.inf) < side:
                continue  # a die read already (or this 1, found from another piece)
            face = _square(np.concatenate([pip, pip]), side)
            centre = (box[:2] + box[2:]) / 2  # the piece's die, a side round it on the sheet view
            box_mm = tuple(float(v) / self.px for v in _square(np.concatenate([centre, centre]), side))
            where.append(pip)
            dice.append(ZoneDie(1, ONE_BESIDE, self._colour(self._face(faces), face), box_mm,
                                {"pips": (1, ONE_BESIDE)}))

    def _colour(self, image: np.ndarray, box: np.ndarray) -> str | None:
        from vision.dice.colour import classify_colour
        from vision.dice.features import VALUE_SIZE, crop, square_window

        return classify_colour(crop(image, square_window(box, 1.0), VALUE_SIZE), self.names, self.lab,
                               self._light(box))[0]

    def _light(self, box: np.ndarray) -> np.ndarray | None:
        """The light on the sheet round the die whose top face is `box` (px of the views: the top-face
        view shares the sheet view's grid), per BGR channel (vision.dice.colour.paper_gain): the paper
        within a die's side of the box on the sheet view, but for what differs from the empty sheet
        (the die, its shadow, a neighbour) and a margin round that. None: no paper seen there."""
        from vision.dice.colour import paper_gain

        if self._top is None or self._changed is None:
            return None
        side = self.die_mm * self.px
        H, W = self._paper.shape
        lo_x, lo_y, hi_x, hi_y = self._top_roi or (0, 0, W, H)
        x0, y0 = max(lo_x, int(box[0] - side)), max(lo_y, int(box[1] - side))
        x1, y1 = min(hi_x, int(box[2] + side) + 1), min(hi_y, int(box[3] + side) + 1)
        if x1 - x0 < 2 or y1 - y0 < 2:
            return None
        grow = 2 * max(1, round(self.px)) + 1  # a millimetre round what changed
        busy = cv2.dilate(self._changed[y0:y1, x0:x1], np.ones((grow, grow), np.uint8))
        paper = self._paper[y0:y1, x0:x1] & (busy == 0)
        if self._top.ndim == 3:
            seen = self._top[y0:y1, x0:x1]
        elif self._colour_part is not None:
            seen = self._colour_part((x0, y0, x1, y1))
        else:
            return None  # a grey view and no colour: the light's colour is unknown
        # every other pixel each way: the light varies over centimetres, and a quarter of the medians' work
        return paper_gain(seen[::2, ::2], self.printed[y0:y1:2, x0:x1:2], paper[::2, ::2])

    def _one_face(self, faces: FaceView, box: np.ndarray, readings: dict[str, Any]) -> np.ndarray | None:
        """The pip of a light die showing 1 in the tray or pool blob `box` (top view), on the top-face
        view, when the pips counted 1 and the pip sits on a light face inside the blob; else None."""
        if readings.get("pips", (0, 0.0))[0] != 1:
            return None
        return one_pip_face(self._grey(self._face(faces)), _on_faces(faces, box), self.die_mm * self.px,
                            self._changed_on(faces))

    def _reach_mm(self) -> float:
        """How far round a zone its reading looks (mm): as far as the part of the views a partial
        read warps for it reaches (BoardDiceReader._roi: READ_REACH_MM, the lean of a die's sides
        there, ROI_PAD_MM and 2 mm), and a millimetre for that part's rounding."""
        spill = max(self.die_side_mm.values(), default=self.die_mm) - self.die_mm
        return READ_REACH_MM + max(spill, 0.0) + ROI_PAD_MM + 3.0

    def _face(self, faces: FaceView) -> np.ndarray:
        """The top-face view's image, warped at least over what the zone being read looks at."""
        return faces.part(self._reach) if self._reach is not None else faces.image

    def _grey(self, image: np.ndarray) -> np.ndarray:
        """The view in grey, converted once per frame (every die's pip count looks at it); the
        top-face view's (`_face`) over what the zone being read looks at."""
        faces = self._faces_now
        if faces is not None and self._reach is not None and faces.holds(image):
            return faces.grey(self._reach)
        cached = self._grey_of
        if cached is None or cached[0] is not image:
            cached = self._grey_of = (image, cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
        return cached[1]

    def _changed_on(self, faces: FaceView) -> np.ndarray | None:
        """This frame's changed-pixels mask brought onto the top-face view (as
        `faces.warp_from_sheet_view`), warped once per frame and pixel, over what the zone being read
        looks at."""
        if self._changed is None:
            return None
        cached = self._changed_faces
        if cached is None or cached[0] is not faces or cached[1] is not self._changed:
            changed, (w, h) = self._changed, faces.size
            flags = cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP
            def make(r: tuple[int, int, int, int], dst: np.ndarray) -> None:
                warp_part(changed, faces.to_sheet_view, r, flags, dst=dst)

            cached = self._changed_faces = (faces, changed, Parts((h, w), changed.dtype, make, into=True))
        return cached[2].part(self._reach)

    def _glimpse(self, image: np.ndarray, box: np.ndarray) -> float:
        """The first view's chance of a die of the crop on the box the crop reader re-frames `box`'s
        crop onto (that crop's own output, kept: one crop run)."""
        assert self._values is not None
        framed = self._values.read_best(image, np.asarray(box, np.float32)[None], framed=True)[3]
        return float(self._values.read_best(image, framed, framed=False, views=False)[0][0])

    def _crop_read(self, image: np.ndarray, box: np.ndarray, refine: bool = False,
                   framed: bool = True, screen: bool = False) -> tuple[int, float, float, np.ndarray]:
        """The learned crop reader (the most accurate value reader on real photos, docs/models.md):
        value, its confidence, the chance it is a die, and the box it re-framed on the die. `refine`
        (a blob of a tray or pool: top face, sides and shadow): die-sized boxes around the blob are
        tried too, and the best is read once more on the box it re-framed. `framed=False` (without
        `refine`): the caller does not use the re-framed box, which is then `box` itself (one crop
        fewer to run). `screen` (with `refine`): when no box tried gets SCREEN's chance of a die (the
        crop reader's own screen: no turned views for any), the best is not read again on its
        re-framed box; its chance then tells the caller so."""
        if self._values is None:
            from vision.learned.crops import CropReader

            self._values = CropReader(tta=8, memo=CROP_MEMO, quick=QUICK_VIEWS)
        boxes = np.asarray(box, np.float32)[None]
        if refine:
            side = self.die_mm * self.px
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            shifts = [(0, 0), (-0.5, 0), (0.5, 0), (0, -0.5), (0, 0.5)]
            boxes = np.concatenate([boxes, [_square(np.array([cx + dx * side, cy + dy * side] * 2), side)
                                            for dx, dy in shifts]]).astype(np.float32)
        # the box the crop reader likes best, as read() of all the boxes would pick it (read_best: the
        # same numbers, without re-framing or turning the boxes that cannot win)
        # (a die its centred box's first view reads surely is not looked for off that box: the shifted
        # boxes are for a blob whose die lies off its centre)
        p_die, values, vconf, at = self._values.read_best(image, boxes, framed=framed or refine,
                                                          sure_stop=1 if refine else None)
        if refine and not (screen and p_die[0] < SCREEN):  # its re-framed box is wanted only if it
            # reads likelier than the first
            again = self._values.read_best_above(image, at, float(p_die[0]))
            if again is not None:
                p_die, values, vconf, at = again
        return int(values[0]), float(vconf[0]), float(p_die[0]), np.asarray(at[0], np.float32)


RECT_TILE = 16  # px: the grid of `_cells_rects` (finer: less warped, more warps)
_RECTS: dict[tuple[int, int, tuple[tuple[int, int, int, int], ...]], list[tuple[int, int, int, int]]] = {}


def _tile_rects(windows: tuple[tuple[int, int, int, int], ...], H: int, W: int,
                t: int) -> list[tuple[int, int, int, int]]:
    """Rectangles (x0, y0, x1, y1, disjoint, within H x W) covering each window (x0, y0, x1, y1) and
    the pixel round it: the tiles of a `t` px grid they touch, each row's runs of tiles, runs
    repeated over consecutive rows joined into one rectangle."""
    tiles = np.zeros((-(-H // t), -(-W // t)), bool)
    for x0, y0, x1, y1 in windows:
        x0, y0, x1, y1 = max(0, x0 - 1), max(0, y0 - 1), min(W, x1 + 1), min(H, y1 + 1)
        if x1 > x0 and y1 > y0:
            tiles[y0 // t:-(-y1 // t), x0 // t:-(-x1 // t)] = True
    rects: list[tuple[int, int, int, int]] = []
    open_: dict[tuple[int, int], int] = {}  # a run of tiles (col0, col1) -> the row its rectangle began
    for row in range(tiles.shape[0] + 1):
        line = tiles[row] if row < tiles.shape[0] else np.zeros(tiles.shape[1], bool)
        edges = np.flatnonzero(np.diff(np.concatenate([[0], line.view(np.int8), [0]])))
        runs = set(zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True))
        for run in list(open_):
            if run not in runs:  # the run ends: one rectangle of the rows it spanned
                top = open_.pop(run)
                rects.append((run[0] * t, top * t, min(W, run[1] * t), min(H, row * t)))
        for run in runs:
            open_.setdefault(run, row)
    return rects
READ_REACH_MM = 20.0  # round a zone: a die's crop with its re-framing shifts reaches about this far
PIPS_MARGIN_MM = 4.0  # a cell's pip count looks this far round the cell (count_pips's window)
CROP_MEMO = 2048  # crops remembered (vision/learned/crops.py, ~7 kB each): unchanged dice are not re-run
QUICK_VIEWS = 4  # a die its first 4 of 8 crop views read as one value, each surely, is read on those 4
MAX_REGISTER_MM = 6.0  # a registration moving the reference further is not believed: two calibrations
# each off by up to 3 mm at the sheet's far corner (tuning seed 6 at 600 mm / 20 degrees, three markers:
# 2.9 mm before its bump, 1.1 mm after; the fit moved the reference 3.0 mm, refused at the former 3 mm)
MISFIT_MM = MAX_REGISTER_MM  # how far off the view re-learning explains the old reference to be
REGISTER_GAIN = 0.9  # a registration is kept only when it lowers the misfit to the view at least this much
LEARNED_SURE = 0.8  # a crop reading this sure is taken over a pip count
SURELY_EMPTY_NCC = 0.85  # on the top-face view, a cell window this like the empty sheet holds no die
STRETCHED_DIE = 3.2  # die sides: the largest tray or pool blob still tried as one die in 3D
ONE_BESIDE = 0.9  # confidence of a light 1 found by its pip beside a neighbour (the pip counter's for a 1)
NOT_A_DIE = 0.5  # on the top-face view, a cell's blob the crop reader gives less chance of being a die


def _joined_across(blobs: list[tuple[int, int, int, int, str]], seams: np.ndarray,
                   max_side: float) -> list[tuple[int, int, int, int, str]]:
    """Die blobs that face each other across a seam's gap (`seams`: the window's guessed pixels), the
    two together no larger than one die, are one die cut in two: the gap is filled from the paper
    around it, so where a die's edge or shadow crosses it the difference mask breaks (tuning seed 10,
    Letter: a white 2 across the middle seam in White's pool read on its upper half, as a 1)."""
    if len(blobs) < 2 or not seams.any():
        return blobs
    out = list(blobs)
    while True:
        pair = next(((i, j, whole) for i, j in combinations(range(len(out)), 2)
                     if (whole := _one_die(out[i], out[j], seams, max_side)) is not None), None)
        if pair is None:
            return out
        i, j, whole = pair
        out[i] = whole
        del out[j]


Blob = tuple[int, int, int, int, str]


def _one_die(a: Blob, b: Blob, seams: np.ndarray, max_side: float) -> Blob | None:
    """`a` and `b` as one die blob when they are dice, fit in one die together and what lies between
    them (across x or across y) holds a seam's gap; else None."""
    if a[4] != "die" or b[4] != "die":
        return None
    union = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
    if max(union[2] - union[0], union[3] - union[1]) > max_side:
        return None
    gx0, gx1 = sorted((min(a[2], b[2]), max(a[0], b[0])))
    gy0, gy1 = sorted((min(a[3], b[3]), max(a[1], b[1])))
    between = seams[max(0, gy0 - 1):gy1 + 1, max(0, gx0 - 1):gx1 + 1]
    return (*union, "die") if between.size and between.any() else None


def _inside(point_mm: np.ndarray, z: Zone, slack_mm: float) -> bool:
    x, y = float(point_mm[0]), float(point_mm[1])
    return z.x - slack_mm <= x <= z.x + z.w + slack_mm and z.y - slack_mm <= y <= z.y + z.h + slack_mm


def _on_faces(faces: FaceView, box: np.ndarray) -> np.ndarray:
    """The bounds on the top-face view of a top-view box."""
    return _bounds(faces.from_sheet_view(np.array([[box[0], box[1]], [box[2], box[1]],
                                                   [box[2], box[3]], [box[0], box[3]]])))


def _bounds(pts: np.ndarray) -> np.ndarray:
    return np.array([pts[:, 0].min(), pts[:, 1].min(), pts[:, 0].max(), pts[:, 1].max()], np.float32)


def _square(box: np.ndarray, side: float) -> np.ndarray:
    """A `side` square on the centre of `box` (a die's top face on its cell)."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return np.array([cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2], np.float32)


def count_pips(image: np.ndarray, box: np.ndarray, die_px: float,
               window: tuple[int, int, int, int] | None = None,
               changed: np.ndarray | None = None,
               grey: np.ndarray | None = None) -> tuple[int, float, np.ndarray] | None:
    """Count the pips of the die found at `box` (a blob of its body, pips and shadow): the count, its
    confidence and the centre of the pips counted (px; the face's centre). None when the marks do not
    look like a d6 face.

    A light die (white, yellow: dark pips) may differ from light paper only at its pips, edges and
    shadow, so its blob's edges are not trusted: dark round pip-sized marks are collected in a
    die-and-a-half square around it and the tightest group that fits on one face is counted. A dark
    die (light pips) stands out whole, so its pips are the light marks inside its own blob."""
    H, W = image.shape[:2]
    grey_all = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if grey is None else grey
    x0, y0, x1, y1 = (int(v) for v in box)
    bw, bh = x1 - x0, y1 - y0
    core = grey_all[y0 + bh // 4: y1 - bh // 4, x0 + bw // 4: x1 - bw // 4]
    if core.size == 0:
        return None
    pip_area = np.pi * (0.09 * die_px) ** 2
    # a dark face (blue, green, black dice) has light pips, a light face dark ones; when the first
    # guess finds no d6 face, try the other
    face = median_u8(core)
    # a saturated or very dark core is a coloured/black die (light pips); a grey one is a light die's
    # shadow or face (dark pips)
    hsv = cv2.cvtColor(image[y0 + bh // 4: y1 - bh // 4, x0 + bw // 4: x1 - bw // 4], cv2.COLOR_BGR2HSV)
    sat, val = median_u8(hsv[..., 1]), median_u8(hsv[..., 2])
    dark_die = (sat > 80 and val < 190) or val < 70
    for dark_pips in ((False, True) if dark_die else (True, False)):
        found = _pips(grey_all, (x0, y0, x1, y1), die_px, pip_area, dark_pips, face, window, changed)
        if found is not None:
            return found
    return None


def _pips(grey_all: np.ndarray, box: tuple[int, int, int, int], die_px: float, pip_area: float,
          dark_pips: bool, face: float, window: tuple[int, int, int, int] | None = None,
          changed: np.ndarray | None = None) -> tuple[int, float, np.ndarray] | None:
    H, W = grey_all.shape[:2]
    x0, y0, x1, y1 = box
    if window is None:
        # a light die on light paper may show as little more than its shadow: look three dice wide
        # around the blob and let the grouping below pick the face's pips
        half = 1.5 * die_px
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        window = (int(cx - half), int(cy - half), int(cx + half), int(cy + half))
    a0, b0 = max(0, window[0]), max(0, window[1])
    a1, b1 = min(W, window[2]), min(H, window[3])
    grey8 = cv2.GaussianBlur(grey_all[b0:b1, a0:a1], (3, 3), 0)
    grey = grey8.astype(np.float32)
    if dark_pips:  # light die: pips are far darker than the paper and the face
        paper = paper_level(grey8)
        marks = ((paper - grey) > pip_depth(paper, float(grey.min()))).astype(np.uint8)
    else:  # dark die: light pips, but only those inside the die's own body (paper is light too)
        body = (np.abs(grey - face) < 45).astype(np.uint8)
        k = max(3, int(0.3 * die_px))
        body = cv2.morphologyEx(body, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        n_b, lab_b, st_b, _cb = cv2.connectedComponentsWithStats(body)
        if n_b < 2:
            return None
        main = 1 + int(np.argmax(st_b[1:, cv2.CC_STAT_AREA]))
        inside = (lab_b == main).astype(np.uint8)
        bright = (grey - face) > max(60.0, 0.45 * (float(grey.max()) - face))
        marks = (bright & (inside > 0)).astype(np.uint8)
    if changed is not None and dark_pips:  # printed labels and lines are on the empty sheet too
        marks &= changed[b0:b1, a0:a1].astype(np.uint8)
    origin = np.array([a0, b0], np.float32)
    n, _lab, stats, cents = cv2.connectedComponentsWithStats(marks)
    h, w = marks.shape
    centres, areas = [], []
    for i in range(1, n):
        x, y, cw, ch, area = stats[i]
        if x == 0 or y == 0 or x + cw >= w or y + ch >= h:
            continue  # paper, a shadow or the next die at the window's edge
        # pips are discs: the one-pip face has the largest (about 2.1 pip areas)
        if not 0.3 * pip_area <= area <= 2.6 * pip_area or max(cw, ch) > 1.6 * min(cw, ch):
            continue
        centres.append(cents[i] + origin)
        areas.append(area)
    if not centres:
        return None
    # the group of marks that fits on one face, nearest the blob's centre
    pts = np.array(centres)
    span = 0.8 * die_px  # corner to corner pips of one face (0.71 of its side), with some slack
    centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    seed = int(np.argmin(np.linalg.norm(pts - centre, axis=1)))
    big = [a > 1.75 * pip_area for a in areas]
    if big[seed]:  # the one-pip face has a single, larger pip: nothing else belongs to it
        return 1, 0.9, pts[seed].astype(np.float64)
    group = {seed}
    changed = True
    while changed:
        changed = False
        for j in range(len(pts)):
            if j not in group and not big[j] and all(np.linalg.norm(pts[j] - pts[k]) <= span for k in group):
                group.add(j)
                changed = True
    count = len(group)
    if not 1 <= count <= 6:
        return None
    sizes = np.array([areas[j] for j in group], np.float32)
    # the pips' likeness in size says how clean the face is; one mark has nothing to be like. A 1's
    # face is told by its pip's size (`big`, above): a lone plain-sized mark is as likely what is left
    # of a 3 or a 5 whose corner pips blurred away (a white 3 on B02 seen with 10 px faces, tuning seed
    # 2 at 720p / 1000 mm / 30 degrees: its centre pip alone, read as a 1 at 0.95 over the crop
    # reader's 3, and every later move missed), so it is the least sure count
    regular = 0.0 if count == 1 else float(max(0.0, 1.0 - sizes.std() / max(sizes.mean(), 1.0)))
    return count, 0.55 + 0.4 * regular, pts[sorted(group)].mean(axis=0).astype(np.float64)


# the steps `ZoneDiceReader(exact=...)` can put back (c99a357's cheaper ones): "prep" `_prep` per pixel,
# "faces" the top-face view normalised on its own, "batch" no cell decided empty by `_nccs` alone,
# "f32" `_nccs`'s products in float64; "grey" (the 3D reader's sheet view warped in colour) is
# BoardDiceReader's
EXACT_STEPS = frozenset({"prep", "faces", "batch", "f32", "grey"})
# the default: `_prep` per pixel, the reference computation. Its 2 mm block version saves 2-6 % of the
# dice loop's CPU and changed tray readings at a roll both ways on tuning seeds (docs/vision/
# localisation.md, "The per-pixel normalisation by default")
DEFAULT_EXACT = frozenset({"prep"})

ROI_PAD_MM = 16.0  # _prep's reach (its blur, blocks, 22 mm region and interpolation, 15.5 mm at most at
# any resolution): a view prepared on a part is the whole view's prepared this far in


def _within(roi: tuple[int, int, int, int] | None,
            part: tuple[int, int, int, int] | None) -> tuple[int, int, int, int] | None:
    """The part of `roi` (None: the whole view) inside `part` (None: all of it)."""
    if part is None or roi is None:
        return roi if part is None else part
    x0, y0 = max(roi[0], part[0]), max(roi[1], part[1])
    return x0, y0, max(x0, min(roi[2], part[2])), max(y0, min(roi[3], part[3]))


def _prep_roi(bgr: np.ndarray, px_per_mm: float, roi: tuple[int, int, int, int] | None,
              exact: bool = False) -> np.ndarray:
    """`_prep` of the view, or only of its `roi` (the rest zero). The part prepared starts on the
    whole view's grid of `_prep`'s blocks, so away from its edges its values are the whole view's."""
    if roi is None:
        return _prep(bgr, px_per_mm, exact)
    f = 1 if exact else _prep_block(px_per_mm)[0]
    x0, y0, x1, y1 = roi
    x0, y0 = -(-x0 // f) * f, -(-y0 // f) * f  # up to the block grid: the strip left is within the pad
    out = np.zeros(bgr.shape[:2], np.float32)
    if x1 > x0 and y1 > y0:
        out[y0:y1, x0:x1] = _prep(bgr[y0:y1, x0:x1], px_per_mm, exact)
    return out


def _changed_in(obs: np.ndarray, reference: np.ndarray, window: tuple[int, int, int, int]) -> np.ndarray:
    """`_changed_mask` of the whole view, but computed within `window` (x0, y0, x1, y1) only, zero
    elsewhere: a cell's pip count looks nowhere else, and the whole view cost each die on a cell about
    3 ms. The 3x3 dilation is computed with a pixel to spare round the window, so inside it every pixel
    is the whole view's."""
    h, w = obs.shape[:2]
    x0, y0, x1, y1 = window
    a0, b0, a1, b1 = max(0, x0 - 1), max(0, y0 - 1), min(w, x1 + 1), min(h, y1 + 1)
    out = np.zeros(obs.shape[:2], np.uint8)
    part = cv2.dilate((np.abs(obs[b0:b1, a0:a1] - reference[b0:b1, a0:a1]) > 0.6).astype(np.uint8),
                      np.ones((3, 3), np.uint8))
    out[y0:y1, x0:x1] = part[y0 - b0:y1 - b0, x0 - a0:x1 - a0]
    return out


def _changed_mask(obs: np.ndarray, reference: np.ndarray,
                  roi: tuple[int, int, int, int] | None) -> np.ndarray:
    """Pixels that differ from the empty sheet (count_pips looks for pips only there)."""
    kernel = np.ones((3, 3), np.uint8)
    if roi is None:
        # (np.abs(obs - reference) > 0.6) as 0/1 bytes, in two passes over the view instead of four
        diff = cv2.absdiff(obs, reference, dst=_scratch("absdiff", obs.shape, np.float32))
        return cv2.dilate(np.greater(diff, 0.6).view(np.uint8), kernel)
    x0, y0, x1, y1 = roi
    out = np.zeros(obs.shape, np.uint8)
    out[y0:y1, x0:x1] = cv2.dilate((np.abs(obs[y0:y1, x0:x1] - reference[y0:y1, x0:x1]) > 0.6)
                                   .astype(np.uint8), kernel)
    return out


def _prep_block(px_per_mm: float) -> tuple[int, int]:
    """`_prep`'s block (px, about 2 mm) and its region in blocks (odd: about 22 mm)."""
    f = max(1, round(2.0 * px_per_mm))
    return f, 2 * round(10.0 * px_per_mm / f) + 1


def _prep(bgr: np.ndarray, px_per_mm: float = 3.0, exact: bool = False) -> np.ndarray:
    """Grey, slightly blurred, normalised per image region so light gain/offset cancel. The blur and
    the region are fixed in mm (0.4 mm, about 22 mm), so any view resolution sees the same. `bgr`: a
    colour view, or one already grey (uint8).

    The region's mean and spread are smooth over millimetres, so they are computed on ~2 mm blocks
    (the view's block means, a box filter over 11 blocks) and brought back to the view's pixels by
    bilinear interpolation: the two region passes over every pixel (float box filters with double
    sums, most of this function's time) become passes over 1/16 of them."""
    h, w = bgr.shape[:2]
    if bgr.ndim == 2:
        grey = bgr
    else:
        grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY, dst=_scratch("grey", (h, w), np.uint8))
    g0 = _scratch("g0", (h, w), np.float32)
    np.copyto(g0, grey)  # the uint8 levels as float32 (exact)
    g = cv2.GaussianBlur(g0, (0, 0), 0.4 * px_per_mm, dst=_scratch("g", (h, w), np.float32))
    if exact:
        return _prep_exact(g, g0, px_per_mm)
    f, k = _prep_block(px_per_mm)
    sh, sw = -(-h // f), -(-w // f)
    gp = g
    if (sh * f, sw * f) != (h, w):  # the last blocks filled by reflection, as the box filter's border
        gp = cv2.copyMakeBorder(g, 0, sh * f - h, 0, sw * f - w, cv2.BORDER_REFLECT_101)
    mean = cv2.blur(cv2.resize(gp, (sw, sh), interpolation=cv2.INTER_AREA), (k, k))
    gg = cv2.multiply(gp, gp, dst=g0 if gp is g else None)  # g0 is free
    sq = cv2.blur(cv2.resize(gg, (sw, sh), interpolation=cv2.INTER_AREA), (k, k))
    # max(sqrt(max(E[g²] - mean², 1)), 12) on the blocks
    sd = np.maximum(np.sqrt(np.maximum(sq - mean * mean, np.float32(1.0))), np.float32(12.0))
    if f > 1:  # into kept buffers: a fresh array of the view costs its page faults
        size = (sh * f, sw * f)
        mean = cv2.resize(mean, size[::-1], dst=_scratch("mean", size, np.float32),
                          interpolation=cv2.INTER_LINEAR)[:h, :w]
        sd = cv2.resize(sd, size[::-1], dst=_scratch("sd", size, np.float32),
                        interpolation=cv2.INTER_LINEAR)[:h, :w]
    out = cv2.subtract(g, mean)  # a fresh array: the caller keeps it
    return cv2.divide(out, sd, dst=out)


def _prep_exact(g: np.ndarray, free: np.ndarray, px_per_mm: float) -> np.ndarray:
    """`_prep`'s normalisation per pixel over 20.5 mm, as before c99a357 (`g`: the blurred grey view,
    `free`: a scratch buffer of its size)."""
    h, w = g.shape
    win = 2 * round(10 * px_per_mm) + 1
    mean = cv2.blur(g, (win, win), dst=_scratch("mean_x", (h, w), np.float32))
    gg = cv2.multiply(g, g, dst=_scratch("gg_x", (h, w), np.float32))
    sq = cv2.blur(gg, (win, win), dst=free)
    normalise = zones_jit.tail()
    if normalise is not None:  # the passes below in one compiled pass (vision/zones_jit.py), the same floats
        out = np.empty((h, w), np.float32)  # a fresh array: the caller keeps it
        normalise(g, mean, sq, out)
        return out
    mm = cv2.multiply(mean, mean, dst=gg)
    cv2.subtract(sq, mm, dst=sq)
    # max(sqrt(max(v, 1)), 12) as sqrt(max(v, 144)), a pass fewer and the same floats: a correctly
    # rounded sqrt is monotone and sqrt(144) is exactly 12, so v >= 144 gives sqrt(v) (>= 12) both
    # ways and v < 144 gives 12 both ways
    cv2.max(sq, 144.0, dst=sq)
    cv2.sqrt(sq, dst=sq)
    out = cv2.subtract(g, mean)
    return cv2.divide(out, sq, dst=out)


_SCRATCH = threading.local()  # per thread: two referee loops may prepare views at once


def _scratch(name: str, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """This thread's buffer `name`, kept between calls while its shape and type stay the same."""
    bufs: dict[str, np.ndarray] = _SCRATCH.__dict__.setdefault("bufs", {})
    buf = bufs.get(name)
    if buf is None or buf.shape != shape or buf.dtype != dtype:
        buf = bufs[name] = np.empty(shape, dtype)
    return buf


def _misfit(a: np.ndarray, b: np.ndarray, where: np.ndarray) -> float:
    """Mean absolute difference of two normalised views over `where`."""
    return float(np.abs(a - b)[where].mean()) if where.any() else 0.0


NCC_GUARD = 1e-4  # _nccs is taken for _ncc this far from a threshold (on the recording they differ by 2e-7)


def _nccs(a_view: np.ndarray, b_view: np.ndarray,
          windows: dict[str, tuple[int, int, int, int]], f64_products: bool = False) -> dict[str, float]:
    """`_ncc` of each window (x0, y0, x1, y1) of two views, the windows of one size all at once: the
    dice road's ~120 cells two correlations each per frame read, one by one, cost more in NumPy's
    per-call overhead than in arithmetic. The sums run in another order than `_ncc`'s, so a value
    is close to `_ncc`'s, not equal: only used through `_at_least`. NaN where the window is flat."""
    by_shape: dict[tuple[int, int], list[str]] = {}
    for name, (x0, y0, x1, y1) in windows.items():
        if x1 > x0 and y1 > y0:
            by_shape.setdefault((y1 - y0, x1 - x0), []).append(name)
    out: dict[str, float] = {}
    for names in by_shape.values():
        boxes = [windows[n] for n in names]
        a, b = _gathered(a_view, boxes, "ncc_a"), _gathered(b_view, boxes, "ncc_b")
        size = a.shape[1]
        if f64_products:  # as before c99a357
            a, b = a.astype(np.float64), b.astype(np.float64)
        # centred sums from plain ones, summed in float64: the cancellation costs nothing near _ncc's
        # precision; the products are float32's (each off by at most 2^-24 of itself, so the
        # correlation by about 1e-7: far inside NCC_GUARD), half the work of converting the windows.
        # Each row summed by cv2.reduce in float64 (a third of NumPy's time for a float32 row summed
        # in float64; another order of the same double sums, so the values move by ~1e-12)
        prod = _scratch("ncc_prod", a.shape, a.dtype)  # each product into one kept buffer in turn
        sa, sb = _row_sums(a), _row_sums(b)
        sab, saa, sbb = (_row_sums(np.multiply(x, y, out=prod)) for x, y in ((a, b), (a, a), (b, b)))
        num = sab - sa * sb / size
        den = np.sqrt((saa - sa * sa / size) * (sbb - sb * sb / size))
        for name, n, d in zip(names, num, den, strict=True):
            out[name] = float(n / d) if d > 1e-3 else float("nan")
    return out


def _row_sums(a: np.ndarray) -> np.ndarray:
    """Each row of `a` (float32 or float64) summed in float64."""
    return cv2.reduce(a, 1, cv2.REDUCE_SUM, dtype=cv2.CV_64F).ravel()


def _gathered(view: np.ndarray, boxes: list[tuple[int, int, int, int]], name: str) -> np.ndarray:
    """The windows `boxes` (x0, y0, x1, y1, all of one size) of `view`, one row each, as np.stack of
    their slices makes them, but copied into this thread's kept buffer `name` (a fresh array a call
    cost its page faults, as much as the copying)."""
    x0, y0, x1, y1 = boxes[0]
    out = _scratch(name, (len(boxes), y1 - y0, x1 - x0), view.dtype)
    for i, (x0, y0, x1, y1) in enumerate(boxes):
        out[i] = view[y0:y1, x0:x1]
    return out.reshape(len(boxes), -1)


def _at_least(near: float | None, a: np.ndarray, b: np.ndarray, level: float) -> bool:
    """`_ncc(a, b) >= level`, from `near` (`_nccs`'s value) unless it lies within NCC_GUARD of
    `level` (or is missing or NaN): then `_ncc` itself decides, so the answer is always `_ncc`'s."""
    if near is not None and abs(near - level) > NCC_GUARD:  # False for NaN
        return near >= level
    return _ncc(a, b) >= level


def _surely(near: float | None, level: float) -> bool:
    """`_at_least(near, ..., level)` known True from `near` alone (further than NCC_GUARD above)."""
    return near is not None and near - level > NCC_GUARD  # False for NaN


def _ncc(a: np.ndarray, b: np.ndarray) -> float:
    a = a - a.mean()
    b = b - b.mean()
    den = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return float((a * b).sum() / den) if den > 1e-6 else 1.0
