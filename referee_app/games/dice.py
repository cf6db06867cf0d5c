"""Highway dice road: dice on the printed board, in the tray and in the pools -> actions.

The camera watches one printed sheet that holds the roads, the roll tray and each seat's pool
box. A turn reads as: two dice appear in the tray (a roll); the player moves one die to the board
and perhaps the other to their pool; the turn is judged once the tray is empty again, so the
referee never judges half a move. Before a roll, a block stone that leaves an opponent's road is
a reclaim.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import Action, EngineError, GameState
from engine.dice_road import SEAT_NAMES, DiceState, Play, Reclaim, Roll
from referee_app.decoder import candidates as cand
from referee_app.games.base import Explanation, GameAdapter, Observation
from vision.beliefs import PIP_NEIGHBOURS, PIPS, Belief, joint, multiset, present_belief, value_belief

TRAY = "tray"
PX_PER_MM = 3.0  # resolution of the rectified board view the dice reader works on


def cell_key(cell: str) -> str:
    return f"cell:{cell}"


def pool_key(seat: int) -> str:
    return f"pool:{seat}"


class DiceAdapter(GameAdapter):
    game = "highway-dice"
    has_reader = True

    def __init__(self, reuse: bool = True, exact: frozenset[str] | None = None) -> None:
        self._reader: Any = None
        self._profile: Any = None
        self.reuse = reuse  # unchanged zones keep the last frame's reading (BoardDiceReader)
        self.exact = exact  # cheaper steps put back to their exact computation (BoardDiceReader)

    def use_dice_profile(self, profile: Any) -> None:
        """Read the dice with a taught profile (vision/learned/profile.py, `teach dice`)."""
        self._profile = profile
        self._reader = None

    # -- page --------------------------------------------------------------------------------
    def board_svg(self, state: GameState) -> str:
        from referee_app.render.dice_board import dice_board_svg

        return dice_board_svg(state)

    def extras(self, state: GameState) -> dict[str, Any]:
        assert isinstance(state, DiceState)
        out: dict[str, Any] = {}
        for seat in range(state.players):
            st = state.status(seat)
            out[f"{SEAT_NAMES[seat].lower()}_needs"] = f"{st.needed} ({st.needed_kind})"
            pool = state.pools[seat]
            if pool is not None:
                out[f"{SEAT_NAMES[seat].lower()}_pool"] = pool
        if state.roll:
            out["roll"] = " ".join(map(str, state.roll))
        return out

    def hint(self, state: GameState, time_limit: float | None = None) -> dict[str, Any] | None:
        assert isinstance(state, DiceState)
        if state.is_terminal() or state.roll is None:
            return None
        uses = state.legal_uses()
        if not uses:
            return {"text": "no die can be used: store one (+N) or pass", "uses": []}
        text = "; ".join(f"{u.die}{' (pool)' if u.source == 'pool' else ''} → {u.cell} ({u.kind})"
                         for u in uses[:6])
        return {"text": f"legal uses: {text}",
                "uses": [{"notation": u.action().notation(), "kind": u.kind, "rule": u.rule} for u in uses]}

    def action_cells(self, action: Action) -> list[str]:
        if isinstance(action, Play) and action.cell:
            return [action.cell]
        if isinstance(action, Reclaim):
            return [action.cell] + ([action.to] if action.to else [])
        return []

    # -- camera ------------------------------------------------------------------------------
    def read(self, frame: Any) -> Observation:
        reader = self._reader
        # a profile given while the camera runs (the page's Teach my dice) is taken up at the next frame
        if reader is None or reader.profile is not self._profile:
            reader = self._reader = BoardDiceReader(profile=self._profile, reuse=self.reuse, exact=self.exact)
        image = frame.image if hasattr(frame, "image") else frame
        return reader.read(image)

    def expected(self, state: GameState) -> dict[str, Any]:
        assert isinstance(state, DiceState)
        view = state.table_view()
        items: dict[str, Any] = {cell_key(c): (s["value"], s["seat"]) for c, s in view["stones"].items()}
        for seat, value in view["pools"].items():
            if value is not None:
                items[pool_key(int(seat))] = value
        if view["roll"]:
            items[TRAY] = tuple(sorted(view["roll"]))
        return items

    def explain(self, state: GameState, seen: Observation) -> Explanation:
        assert isinstance(state, DiceState)
        if state.is_terminal():
            return Explanation()
        expected = self.expected(state)
        exp_cells = {k[5:]: v for k, v in expected.items() if k.startswith("cell:")}
        seen_cells = {k[5:]: tuple(v) for k, v in seen.items.items() if k.startswith("cell:")}
        tray = tuple(sorted(seen.items.get(TRAY, ())))
        added = {c: v for c, v in seen_cells.items() if exp_cells.get(c) != v}
        removed = {c: v for c, v in exp_cells.items() if c not in seen_cells}
        seat = state.turn
        conf = min((seen.confidence.get(k, 1.0) for k in seen.items), default=1.0)

        def pool(items: dict[str, Any], s: int) -> int | None:
            return items.get(pool_key(s))

        other_pools = [s for s in range(state.players)
                       if s != seat and pool(seen.items, s) != pool(expected, s)]
        if other_pools:
            names = ", ".join(SEAT_NAMES[s] for s in other_pools)
            return Explanation(mismatch=f"the table disagrees with the match: {names}'s pool changed "
                                        "out of turn: put it back", cells=[])
        if state.roll is None:  # before the roll
            block = state.oldest_block(seat)
            if not tray and block is not None and set(removed) == {block.cell} and len(added) <= 1:
                to = next(iter(added), None)
                return Explanation(Reclaim(block.cell, to), conf,
                                   cells=[block.cell] + ([to] if to else []))
            if added or removed:
                return Explanation(mismatch=self._describe(added, removed, "before the roll"),
                                   cells=sorted({*added, *removed}))
            if len(tray) == 2:
                return Explanation(Roll(*tray), conf)
            if len(tray) > 2:
                return Explanation(mismatch=f"{len(tray)} dice in the tray: roll exactly two", cells=[TRAY])
            return Explanation()
        # after the roll: judge once the tray is cleared
        if tray:
            if tray != tuple(sorted(state.roll)) and len(tray) == 2 and not added:
                return Explanation(mismatch=f"the tray shows {tray[0]} and {tray[1]}, but the roll was "
                                            f"{state.roll[0]} and {state.roll[1]}: do not turn the dice",
                                   cells=[TRAY])
            return Explanation()
        if removed:
            return Explanation(mismatch=self._describe({}, removed, "during the turn"), cells=sorted(removed))
        if len(added) > 1:
            return Explanation(mismatch=self._describe(added, {}, "in one turn"), cells=sorted(added))
        before, after = pool(expected, seat), pool(seen.items, seat)
        if not added:
            if after != before and after is not None:
                return Explanation(Play(store=after), conf)
            return Explanation(Play(), conf)
        (cell, (value, _colour)), = added.items()
        if before is not None and after is None and value == before:
            return Explanation(Play(value, cell, from_pool=True), conf, cells=[cell])
        store = after if after != before else None
        return Explanation(Play(value, cell, store), conf, cells=[cell])

    # -- the decoder's candidates ---------------------------------------------------------------
    def candidates(self, state: GameState, table: dict[str, Any]) -> list[cand.Candidate]:
        """Every physically possible change from `state`: before the roll, each roll of two dice and
        the reclaim; after it (once the tray is cleared), each available die - the two rolled, the
        pool die, and a value of neither (flagged: the engine cannot take it) - on each cell,
        occupied or not, with or without storing the other; storing only; passing. Placements are
        enumerated on the cells the evidence has seen anything on: on a cell seen empty every frame
        a placement always loses to the same move without it."""
        assert isinstance(state, DiceState)
        if state.is_terminal():
            return [cand.nothing()]
        out = [cand.nothing(), cand.other()]
        seat = state.turn
        expected = self.expected(state)
        tray = table.get(TRAY)
        if state.roll is None:
            if tray is not None and len(tray) == 1:
                out.append(cand.wait({TRAY: tray}))  # still rolling
            for a in PIPS:
                for b in PIPS[a - 1:]:
                    out.append(cand.act(Roll(a, b), {TRAY: (a, b)}, [TRAY]))
            block = state.oldest_block(seat)
            if block is not None:
                moved = [k[5:] for k, v in table.items()
                         if k.startswith("cell:") and v != expected.get(k) and v[0] == block.value]
                for to in [None, *moved]:
                    cells = [block.cell] + ([to] if to else [])
                    out.append(self._after(state, Reclaim(block.cell, to), cells))
            return out
        if tray is not None:  # half a move: judge once the tray is cleared, unless the dice were turned
            roll = tuple(sorted(state.roll))
            touched = [k for k, v in table.items() if k.startswith("cell:") and v != expected.get(k)]
            if len(tray) == 2 and tray != roll and not touched:
                return [cand.nothing(), cand.other({TRAY}, loose=True)]
            return [cand.wait()]
        pool_k = pool_key(seat)
        before = state.pools[seat]
        rolled = list(state.roll)
        cells = {k for k in set(table) | set(expected) if k.startswith("cell:")}
        out.append(cand.act(Play(), {TRAY: None}))
        for v in sorted(set(rolled)):
            out.append(cand.act(Play(store=v), {TRAY: None, pool_k: v}))
        uses: list[tuple[int, bool, list[int | None]]] = []  # (value, from the pool, what may be stored)
        for i, v in enumerate(rolled):
            if i == 1 and rolled[0] == v:
                break
            rest = rolled[1 - i]
            uses.append((v, False, [None, rest]))
        if before is not None:
            uses.append((before, True, [None, *sorted(set(rolled))]))
        for key in sorted(cells):
            c = key[5:]
            covers = int(key in expected)
            for v, from_pool, stores in uses:
                for store in stores:
                    after = store if store is not None else (None if from_pool else before)
                    delta = {TRAY: None, key: (v, seat), pool_k: after}
                    out.append(cand.act(Play(v, c, store, from_pool), delta, [c], covers))
            for v in PIPS:
                if v in rolled or v == before:
                    continue
                held = f" and holds a {before} in the pool" if before else ""
                text = (f"a {v} was put on {c}, but {SEAT_NAMES[seat]} rolled {rolled[0]} and {rolled[1]}"
                        f"{held}: the {v} is neither: take it back")
                out.append(cand.flag(text, {TRAY: None, key: (v, seat)}, [c], covers))
        return out

    def _after(self, state: DiceState, action: Action, cells: list[str]) -> cand.Candidate:
        """A candidate whose table change is what the engine's own state after it expects."""
        before = self.expected(state)
        try:
            after = self.expected(state.apply(action, state.judge(action)))
        except EngineError as exc:
            return cand.flag(str(exc), {}, cells)
        after.pop(TRAY, None)  # the next roll has not happened
        delta = {k: after.get(k) for k in set(before) | set(after) if before.get(k) != after.get(k)}
        return cand.act(action, delta, cells)

    @staticmethod
    def _describe(added: dict[str, Any], removed: dict[str, Any], when: str) -> str:
        parts = [f"a {v[0]} appeared on {c}" for c, v in sorted(added.items())]
        parts += [f"the {v[0]} on {c} is missing: put it back" for c, v in sorted(removed.items())]
        return f"the table disagrees with the match {when}: " + "; ".join(parts)


class BoardDiceReader:
    """Localise the printed board by its markers, rectify it, and read the dice in its known zones
    (cells, pools, tray) against the board's own drawing (vision.zones).

    `geometry="3d"` (default): the camera's pose from the markers (vision.pose) says where each die's
    sides and top face appear (vision.board3d): cells are looked at where their die really shows,
    values are read on the top-face view, and the views are 2 px/mm whatever the camera
    (vision.board3d.MAX_VIEW_PPM). `"flat"`: the old fixed 3 px/mm top view of the paper only (kept
    for comparison).
    `value_order`: "pips" (pip counter first, learned crop reader when the pips are unclear) or
    "learned" (the crop reader first, the pip counter when it is unsure); default learned in 3d.
    `reuse` (a camera's frames, one after another): the marker search is skipped while every marker
    looks as it did, and a zone whose camera pixels did not change since it was last read keeps its
    reading (vision/zones_reuse.py); off, every frame is read as a single photo."""

    def __init__(self, board: Any = None, geometry: str = "3d", value_order: str | None = None,
                 focal_px: float | None = None, learn_empty: bool = True, read_both: bool = False,
                 profile: Any = None, reuse: bool = True, exact: frozenset[str] | None = None) -> None:
        from drawing.dice_board import MARKER_MARGIN, MARKER_SIZE, board_tiles
        from engine.dice_road import load_board
        from vision.localise import Localiser, SheetSpec
        from vision.pose import PoseTracker
        from vision.tiled import TiledLocaliser
        from vision.zones import Zone
        from vision.zones_reuse import ZoneWatch

        if geometry not in ("3d", "flat"):
            raise ValueError(f"geometry must be '3d' or 'flat', got {geometry!r}")
        self.board = board or load_board()
        # on the top-face view the crop reader reads best (docs/vision/localisation.md); flat: pips first
        value_order = value_order or ("learned" if geometry == "3d" else "pips")
        self.geometry, self.value_order, self.learn_empty = geometry, value_order, learn_empty
        self.read_both = read_both  # ask both value readers for every die (eval board compares them)
        self.reuse = reuse
        # steps made cheaper by c99a357 put back to their exact computation (vision.zones.EXACT_STEPS)
        from vision.zones import DEFAULT_EXACT

        self.exact = DEFAULT_EXACT if exact is None else frozenset(exact)
        self._watch = ZoneWatch()  # the camera pixels each zone was last read from
        # the calibration's marker pixels the last two times they were found (markers_still): a hand
        # that shook the camera for one frame leaves them as they were before it
        self._patches: list[Any] = []
        self.last_reading: Any = None
        self.profile = profile  # a taught dice profile (`teach dice`), handed to the zone reader
        w, h = float(self.board.width), float(self.board.height)
        self.sheet_mm = (w, h)
        self.localiser = Localiser(SheetSpec("highway-dice", w, h, MARKER_SIZE, MARKER_MARGIN))
        self.colours = {"white": 0, "blue": 1, "green": 2, "yellow": 3}
        zones = [Zone(cell_key(c.id), c.x - c.w / 2, c.y - c.h / 2, c.w, c.h)
                 for c in self.board.cells.values()]
        zones += [Zone(pool_key(seat), r.x, r.y, r.w, r.h, many=True)
                  for seat, r in enumerate(self.board.pools)]
        t = self.board.tray
        zones.append(Zone(TRAY, t.x, t.y, t.w, t.h, many=True))
        self._zone_list = zones
        self.pose_tracker = PoseTracker(focal_px)
        self.pose: Any = None
        self._posed: Any = None  # the calibration the pose was made from
        self.px_per_mm = PX_PER_MM
        self.zones = self._zone_reader(PX_PER_MM)
        self._frame_cover: tuple[Any, frozenset[str], Any] | None = None  # see _out_of_frame
        self._read_with: Any = None  # the calibration the last frame was read through
        self.registered_mm: float | None = None  # how far the last re-localisation moved the empty sheet
        # a board printed on home paper and taped together (print highway-dice --paper): each tile is
        # located by its own markers; decided once, from the first frame that shows markers
        self.tiled: bool | None = None
        self._tiled3d: Any = None  # vision.tiled3d.TiledFaceReader, made on the first tiled 3d read
        try:
            self.tiled_localiser: TiledLocaliser | None = TiledLocaliser(board_tiles(self.board))
        except ValueError:  # a board file too crowded for tile markers cannot be printed tiled either
            self.tiled_localiser, self.tiled = None, False

    def _zone_reader(self, px_per_mm: float) -> Any:
        return self._window_reader(self._reference(px_per_mm), self.sheet_mm, self._zone_list, px_per_mm)

    def _reference(self, px_per_mm: float) -> np.ndarray:
        """The board as printed (RGB) at `px_per_mm`."""
        import cv2

        from drawing.dice_board import printable_board

        _svg, png, _meta = printable_board(self.board, dpi=px_per_mm * 25.4)
        return cv2.cvtColor(cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)

    def _window_reader(self, reference: np.ndarray, sheet_mm: tuple[float, float], zones: list[Any],
                       px_per_mm: float) -> Any:
        """A zone reader for the board, or for one window of it (one tile's, vision.tiled3d)."""
        from vision.zones import ZoneDiceReader

        reader = ZoneDiceReader(reference, sheet_mm, zones, px_per_mm=px_per_mm,
                                colors=list(self.colours), learn_empty=self.learn_empty,
                                value_order=self.value_order, profile=self.profile, exact=self.exact)
        reader.read_both = self.read_both
        return reader

    def _tiled_reader(self) -> Any:
        """A taped-together board in 3D: each tile's own pose, its zones read on its own views."""
        if self._tiled3d is None:
            from vision.tiled3d import TiledFaceReader

            assert self.tiled_localiser is not None
            centres = np.array([[c.x, c.y] for c in self.board.cells.values()])
            self._tiled3d = TiledFaceReader(self.tiled_localiser.sheet, self._zone_list, self._reference,
                                            self._window_reader, self.pose_tracker.focal_px, centres)
        return self._tiled3d

    def _use_pose(self, calib: Any) -> None:
        """A new calibration (first view, camera or board moved): refit the pose, say where dice show."""
        from vision.board3d import DIE_MM, view_px_per_mm, volume_box_mm

        self.pose = self.pose_tracker.update(calib)
        self._posed = calib
        centres = np.array([[c.x, c.y] for c in self.board.cells.values()])
        ppm = view_px_per_mm(self.pose, centres)
        if ppm != self.px_per_mm and not getattr(self.zones, "_learned", False):
            # only before the empty board is learned: a new resolution would forget it
            self.px_per_mm = ppm
            self.zones = self._zone_reader(ppm)
        die = DIE_MM
        for z in self._zone_list:
            # one die in the zone, where perspective stretches it most (a corner of the zone)
            sides = []
            for cx, cy in ((z.x, z.y), (z.x + z.w, z.y), (z.x + z.w, z.y + z.h), (z.x, z.y + z.h)):
                x0, y0, x1, y1 = volume_box_mm(self.pose, (cx - die / 2, cy - die / 2, die, die), die)
                sides.append(max(x1 - x0, y1 - y0))
            self.zones.die_side_mm[z.name] = max(sides)

    def _localise(self, image: np.ndarray) -> Any:
        from vision.localise import LocaliseResult
        from vision.tiles.reuse import marker_patches, markers_still

        if self.tiled is None:
            from vision.localise import detect_markers

            seen = set(detect_markers(image))
            if self.tiled_localiser and len(seen & self.tiled_localiser.sheet.tile_only_ids()) >= 2:
                self.tiled = True
            elif len(seen & set(self.localiser.spec.marker_centres())) >= 2:
                self.tiled = False
        if self.tiled:
            return self.tiled_localiser.update(image)  # type: ignore[union-attr]
        cal = self.localiser.calibration
        if (self.reuse and cal is not None and tuple(cal.image_size) == (image.shape[1], image.shape[0])
                and any(markers_still(image, p, spare=1, at_least=STILL_MARKERS) for p in self._patches)):
            # the markers look as they did (but for one a hand may cover): the board has not moved, and
            # the search would find the others where they were ("steady")
            return LocaliseResult("steady", cal, "markers unchanged", list(cal.markers_used))
        result = self.localiser.update(image)
        if result.status in ("located", "moved", "steady") and result.calibration is not None:
            now = marker_patches(image, result.calibration)
            self._patches = [now, *self._patches[:1]] if result.calibration is cal else [now]
        return result

    def read(self, image: np.ndarray) -> Observation:
        import cv2

        located = self._localise(image)
        calib = located.calibration
        if calib is None:
            self._watch.forget()
            return Observation({}, {}, blocked="the board's markers are not visible")
        faces = None
        posed = self.geometry == "3d" and not self.tiled
        unseen: frozenset[str] = frozenset()
        if self.geometry == "3d" and self.tiled:
            # a taped-together board: each tile read in 3D through its own fit (vision/tiled3d.py)
            reading = self._tiled_reader().read(image, calib)
        else:
            if posed and calib is not self._posed:
                self._use_pose(calib)
            unseen, inside = self._out_of_frame(calib, image.shape, posed)
            key = (calib, self.zones, self.px_per_mm, posed)
            again, source = self._watch.plan(image, key) if self.reuse and self.zones._learned else (None, {})
            if again is not None and not again:  # no zone needs reading: no view to warp either
                reading = self.last_reading if not any(source.values()) else self._watch.kept(source)
            else:
                roi = self._roi(again)
                if posed:
                    from vision.board3d import face_view

                    # warped when first looked at: a frame whose zones the correlations show empty
                    # reads no die on it
                    faces = face_view(image, self.pose, self.sheet_mm, self.px_per_mm, roi=roi, lazy=True)
                # in 3D the sheet view is only normalised (values are read on the top-face view):
                # warped in grey, a third of the colour view's work
                to_grey = posed and image.ndim == 3 and "grey" not in self.exact
                grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if to_grey else image
                top = self._top_view(grey, calib, roi)  # a flat tiled board: tiles blended
                if self._read_with is not None and calib is not self._read_with and not self.tiled:
                    self.registered_mm = self.zones.register(top, inside)  # re-localised: the sheet follows
                self._read_with = calib
                colour = (lambda part: self._top_patch(image, calib, part)) if top.ndim == 2 else None
                reading = self.zones.read(top, faces, skip=unseen, inside=inside, only=again,
                                          keep=self._watch.kept(source) if again is not None else None,
                                          roi=roi, colour=colour)
            if self.reuse:
                boxes = self._watch_boxes(calib, image.shape, posed, key)
                self._watch.record(image, key, boxes, again, source, reading)
        self.last_reading = reading  # per die, each value reader's answer (eval board compares them)
        items: dict[str, Any] = {}
        conf: dict[str, float] = {}
        beliefs: dict[str, Belief] = {}
        for zone, dice in reading.dice.items():
            if not dice:
                continue
            if zone == TRAY:
                items[TRAY] = tuple(sorted(d.value for d in dice))
                conf[TRAY] = min(d.confidence for d in dice)
                beliefs[TRAY] = multiset([die_value_belief(d.value, d.confidence) for d in dice])
            elif zone.startswith("pool:"):
                best = max(dice, key=lambda d: d.confidence)
                items[zone] = best.value
                conf[zone] = best.confidence
                beliefs[zone] = present_belief(PRESENT, die_value_belief(best.value, best.confidence))
            else:
                d = dice[0]
                colour = self.colours.get(d.color or "", -1)
                items[zone] = (d.value, colour)
                conf[zone] = d.confidence
                colours = value_belief(colour, COLOUR_SURE, range(len(self.colours)))
                value = die_value_belief(d.value, d.confidence)
                beliefs[zone] = present_belief(PRESENT, joint(value, colours))
        blocked = None
        if reading.unreadable:
            zone, why = sorted(reading.unreadable.items())[0]
            blocked = f"{zone.split(':')[-1]}: {why}" + (f" (+{len(reading.unreadable) - 1} more)"
                                                          if len(reading.unreadable) > 1 else "")
        return Observation(items, conf, blocked, annotated=_annotate(image, calib, reading), beliefs=beliefs,
                           unseen=unseen)

    def _roi(self, zones: set[str] | None) -> tuple[int, int, int, int] | None:
        """The part of the views that reading `zones` looks at (None: all of it, or most of it anyway)."""
        from vision.zones import ROI_PAD_MM
        from vision.zones_reuse import MARGIN_MM

        if not zones:
            return None
        spill = max(self.zones.die_side_mm.values(), default=self.zones.die_mm) - self.zones.die_mm
        m = MARGIN_MM + max(spill, 0.0) + ROI_PAD_MM + 2.0
        chosen = [z for z in self._zone_list if z.name in zones]
        w, h = (round(v * self.px_per_mm) for v in self.sheet_mm)
        x0 = max(0, int((min(z.x for z in chosen) - m) * self.px_per_mm))
        y0 = max(0, int((min(z.y for z in chosen) - m) * self.px_per_mm))
        x1 = min(w, int((max(z.x + z.w for z in chosen) + m) * self.px_per_mm) + 1)
        y1 = min(h, int((max(z.y + z.h for z in chosen) + m) * self.px_per_mm) + 1)
        if (x1 - x0) * (y1 - y0) > 0.6 * w * h:
            return None
        return x0, y0, x1, y1

    def _top_view(self, image: np.ndarray, calib: Any, roi: tuple[int, int, int, int] | None) -> np.ndarray:
        """The top view (`calib.rectify`), or only its `roi` (the rest black). `image` in colour, or
        in grey (a single calibration's homography)."""
        import cv2

        from vision.board3d import warp_roi

        if roi is None and image.ndim == 3:
            return calib.rectify(image, self.px_per_mm)
        scale = np.diag([self.px_per_mm, self.px_per_mm, 1.0])
        w_mm, h_mm = calib.sheet_size_mm
        size = (round(w_mm * self.px_per_mm), round(h_mm * self.px_per_mm))
        return warp_roi(image, scale @ calib.homography, size, cv2.INTER_LINEAR, roi)

    def _top_patch(self, image: np.ndarray, calib: Any, part: tuple[int, int, int, int]) -> np.ndarray:
        """The colour top view's pixels in `part` (x0, y0, x1, y1 of the view): the same pixels as
        `_top_view`'s there, warped alone (the paper round one die, for its colour under this light)."""
        import cv2

        from vision.board3d import warp_part

        scale = np.diag([self.px_per_mm, self.px_per_mm, 1.0])
        return warp_part(image, scale @ calib.homography, part, cv2.INTER_LINEAR)

    def _watch_boxes(self, calib: Any, shape: tuple[int, ...], posed: bool, key: Any) -> dict[str, Any]:
        """The camera-image box each zone's reading looks at (made once per calibration)."""
        from vision.board3d import DIE_MM
        from vision.zones_reuse import zone_boxes

        if self._watch.same(key):
            return self._watch.boxes
        project = self.pose.project if posed and self.pose is not None else None
        return zone_boxes(self._zone_list, calib.to_image, shape, project=project, height_mm=DIE_MM)

    def _out_of_frame(self, calib: Any, shape: tuple[int, ...], posed: bool) -> tuple[frozenset[str], Any]:
        """The zones not wholly in the frame (a die there, its sides included, would be cut by the
        frame's edge: "not seen", never read as empty or as a hand), and the top view's pixels that
        show the frame at all. Once per calibration: the camera only changes them by moving."""
        import cv2

        from vision.board3d import DIE_MM

        key = (self.px_per_mm, posed)
        cover = self._frame_cover
        if cover is not None and cover[0][0] is calib and cover[0][1:] == key:
            return self._frame_cover[1], self._frame_cover[2]
        h, w = shape[:2]
        edge = 2.0  # px: the outermost pixels are the warp's border
        unseen = set()
        for z in self._zone_list:
            m = 3.0
            rect = np.array([[z.x - m, z.y - m], [z.x + z.w + m, z.y - m], [z.x + z.w + m, z.y + z.h + m],
                             [z.x - m, z.y + z.h + m]], np.float64)
            pts = calib.to_image(rect)
            if posed and self.pose is not None:
                pts = np.concatenate([pts, self.pose.project(np.column_stack([rect, np.full(4, DIE_MM)]))])
            if (pts[:, 0].min() < edge or pts[:, 1].min() < edge or pts[:, 0].max() > w - 1 - edge
                    or pts[:, 1].max() > h - 1 - edge):
                unseen.add(z.name)
        inside = None
        if unseen:
            white = np.full((h, w, 3), 255, np.uint8)
            inside = cv2.erode(calib.rectify(white, self.px_per_mm)[..., 0], np.ones((5, 5), np.uint8)) > 128
        self._frame_cover = ((calib, *key), frozenset(unseen), inside)
        return self._frame_cover[1], inside


STILL_MARKERS = 3  # markers that must look exactly as before for the board to count as not moved


PRESENT = 0.97  # a die the zone reader found: its presence test (NCC and the blob's size) rarely errs
COLOUR_SURE = 0.9  # the colour classifier reports no confidence: its top class, trusted as a strong guess


def die_value_belief(value: int, confidence: float) -> Belief:
    """A die's value as read: a pip count is most often off by one when it is off."""
    return value_belief(value, confidence, PIPS, PIP_NEIGHBOURS)


def _annotate(image: np.ndarray, calib: Any, reading: Any) -> np.ndarray:
    import cv2

    out = image.copy()
    for dice in reading.dice.values():
        for d in dice:
            x0, y0, x1, y1 = d.box_mm
            pts = calib.to_image(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32))
            pts = np.asarray(pts, np.int32).reshape(-1, 1, 2)
            colour = (0, 200, 0) if d.confidence >= 0.6 else (0, 160, 255)
            cv2.polylines(out, [pts], True, colour, 2, cv2.LINE_AA)
            cv2.putText(out, str(d.value), tuple(int(v) for v in pts[0, 0]), cv2.FONT_HERSHEY_SIMPLEX,
                        0.7, colour, 2, cv2.LINE_AA)
    return out


ADAPTER = DiceAdapter()
