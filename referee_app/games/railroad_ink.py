"""Railroad Ink: the page shows every player's sheet with its score; moves come from the camera
(the route-dice reader for the roll, the sheet reader for what the watched player drew) or manual
entry.

One camera frame holds the dice tray and one player's printed sheet (the watched seat, 0 by
default; the other seats are entered by hand). A round reads as: four dice settle in the tray (the
Roll), each new square drawn on the sheet is a Place (the piece inferred from its sides and the
roll), and clearing the tray ends the round for the watched player (Done). See
docs/vision/railroad-ink-referee.md.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from engine import Action, EngineError, GameState
from engine.railroad_ink import Done, Place, RailroadInkState, Roll, cell_name
from engine.railroad_ink.tiles import pieces_for
from referee_app.decoder import candidates as cand
from referee_app.games.base import Explanation, GameAdapter, Observation
from vision.beliefs import multiset, present_belief, value_belief

TRAY = "tray"
OVERPASS = " overpass"  # suffix of a square's item value when the highway bridges the railway
# How sure a drawn square is, by what the sheet reader says about it. The bins and the share of
# squares read right in each were measured by bench/rri_referee_confidence.py (40 rendered sheets at
# the reader's hardest settings: effects 1.0, tilt up to 30 degrees): "clear" (confidence 1.0)
# 858/864, "station unclear" (exactly 0.5: the sides are sure, the station test half-sure, on a
# square whose piece does not hang on the station) 147/150; "overpass unclear" (the same on HRHR,
# where it decides overpass or special) 14/24, "sides unclear" (other values) 26/37, and a station
# box without both kinds or highway meeting railway without a box 5/34. The first two report their
# measured share and are judged at once; the others report at most ASK, below the loop's
# confirmation threshold, so the players confirm the move.
SURE = {"clear": 0.99, "station unclear": 0.98}
ASK = 0.4
LOOP_CONFIRMS_BELOW = 0.6  # RefereeLoop's default confirm_below, which ASK must stay under


def square_key(row: int, col: int) -> str:
    return cell_name(row * 7 + col)


def square_value(sides: str, overpass: bool) -> str:
    return sides + (OVERPASS if overpass else "")


def parse_value(value: str) -> tuple[str, bool]:
    return value[:4], value.endswith(OVERPASS)


def square_bin(sq: Any) -> str:
    """Which measured bin a read square (vision.sheets.SquareReading) falls in; see SURE."""
    mixed = "H" in sq.sides and "R" in sq.sides
    if mixed and not sq.overpass and not sq.station:
        return "no station box"
    if sq.station and not mixed:
        return "station box on one kind"
    if sq.confidence >= 0.99:
        return "clear"
    if abs(sq.confidence - 0.5) < 1e-6:  # the sides are sure, the station test only half-sure:
        # harmless unless the station decides the piece (overpass or the opposite-stations special)
        return "overpass unclear" if sq.sides in ("HRHR", "RHRH") else "station unclear"
    return "sides unclear"


def near_shapes(value: str) -> list[str]:
    """The drawings one misread away from `value`: one side read as another kind, or the bridge of
    a crossing read the other way."""
    sides, overpass = parse_value(value)
    out = [square_value(sides[:i] + k + sides[i + 1:], overpass)
           for i in range(4) for k in "HR-" if k != sides[i]]
    if sides in ("HRHR", "RHRH"):
        out.append(square_value(sides, not overpass))
    return out


def square_belief(value: str, confidence: float) -> dict[Any, float]:
    """A drawn square as read: the shape with its confidence, the rest over the shapes one misread
    away (the sheet reader gives one confidence per square, no score per shape)."""
    near = near_shapes(value)
    return present_belief(PRESENT, value_belief(value, confidence, [value, *near]))


PRESENT = 0.97  # a square the sheet reader found ink on


def square_confidence(sq: Any) -> float:
    """The chance a drawn square is read right, or at most ASK when it is not known to be high."""
    return SURE.get(square_bin(sq), min(float(sq.confidence), ASK))


@dataclass
class TableReading:
    """Everything read from one frame, kept on the Observation as `reading` for the page/tests."""

    squares: dict[str, Any]  # engine square name -> vision.sheets.SquareReading
    dice: list[Any]  # vision.route_dice.DieReading
    sheet_calibration: Any
    tray_calibration: Any
    # what the readers saw (vision.sheets.reader.SheetReading; the dice and the tray's top view), for
    # the next frame's reuse of unchanged regions
    sheet_seen: Any = None
    tray_seen: Any = None
    markers_seen: Any = None  # the camera pixels round the markers both calibrations were fitted to


class RailroadInkAdapter(GameAdapter):
    game = "railroad-ink"
    has_reader = True

    def __init__(self, seat: int = 0, reuse: bool = True) -> None:
        self.seat = seat  # the player whose sheet the camera watches
        self.reuse = reuse  # unchanged squares and tray keep the last frame's reading
        self._last: TableReading | None = None
        self._last_seen: tuple[np.ndarray, Observation] | None = None  # the last frame and its answer

    def board_svg(self, state: GameState) -> str:
        from referee_app.render.railroad_ink import sheet_svg

        assert isinstance(state, RailroadInkState)
        sheets = [_strip_xml(sheet_svg(s)) for s in state.sheets]
        if len(sheets) == 1:
            return sheets[0]
        # several players: their sheets side by side, each scaled into one column
        n = len(sheets)
        parts = [f'<svg x="{i * 100 / n}%" width="{100 / n}%" height="100%" {s[4:]}' if s.startswith("<svg")
                 else s for i, s in enumerate(sheets)]
        return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {200 * n} 200" '
                'preserveAspectRatio="xMidYMid meet">' + "".join(parts) + "</svg>")

    def extras(self, state: GameState) -> dict[str, Any]:
        assert isinstance(state, RailroadInkState)
        view = state.table_view()
        out: dict[str, Any] = {"round": getattr(state, "round", None)}
        if view.get("roll"):
            out["roll"] = ", ".join(view["roll"]) if isinstance(view["roll"], list) else str(view["roll"])
        for p in view["players"]:
            out[f"seat_{p['seat'] + 1}_total"] = p["score"].get("total")
        return out

    def hint(self, state: GameState, time_limit: float | None = None) -> dict[str, Any] | None:
        """The dice the player to move still has to draw and how many squares each may go on."""
        assert isinstance(state, RailroadInkState)
        seat = state.current_player()
        if state.finished or state.roll is None or not 0 <= seat < len(state.sheets):
            return None
        used = state.progress[seat].used
        parts, where = [], {}
        for face in dict.fromkeys(f for i, f in enumerate(state.roll) if i not in used):
            squares = sorted({cell_name(p.cell) for p in state.legal_placements(seat, [face])})
            where[face] = squares
            parts.append(f"{face} ({len(squares)} squares)" if squares else f"{face} (nowhere: skip it)")
        text = (f"player {seat} still to draw: " + ", ".join(parts)) if parts else f"player {seat}: all drawn"
        return {"text": text, "squares": where}

    def action_cells(self, action: Action) -> list[str]:
        return [cell_name(action.cell)] if isinstance(action, Place) else []

    # -- camera: frame -> observation ---------------------------------------------------------
    def read(self, frame: Any) -> Observation:
        image = frame.image if hasattr(frame, "image") else frame
        if self.reuse and self._last_seen is not None and _same_picture(image, self._last_seen[0]):
            # the very same picture (a recording holding a scene): every region would keep its reading
            return _copy(self._last_seen[1])
        reading, blocked = read_table(image, self._last if self.reuse else None)
        self._last = reading
        if reading is None:
            self._last_seen = None
            return Observation({}, {}, blocked=blocked)
        items: dict[str, Any] = {}
        conf: dict[str, float] = {}
        warnings: list[str] = []
        problems: list[str] = []
        unreadable = sorted(n for n, sq in reading.squares.items() if sq.status != "read")
        if unreadable:
            why = reading.squares[unreadable[0]].reason
            problems.append(f"cannot read square{'s' if len(unreadable) > 1 else ''} "
                            f"{_names(unreadable)} ({why})")
        beliefs: dict[str, dict[Any, float]] = {}
        for name, sq in reading.squares.items():
            if sq.status != "read" or sq.sides == "----":
                continue
            items[name] = square_value(sq.sides, sq.overpass)
            conf[name] = square_confidence(sq)
            beliefs[name] = square_belief(items[name], conf[name])
            kind = square_bin(sq)
            if kind in ("no station box", "station box on one kind"):
                warnings.append(f"{name}: {kind} (a station joins highway and railway)")
        faces = [d for d in reading.dice if d.status == "face"]
        lost = [d for d in reading.dice if d.status != "face"]
        unseen: frozenset[str] = frozenset()
        if lost:
            # the tray's dice are not known, so the tray is not seen in this frame: the decoder keeps
            # what it believed of it, while the sheet (a glare on one die: tuning seed 4) is still read
            unseen = frozenset({TRAY})
            warnings.append(f"cannot read {len(lost)} {'die' if len(lost) == 1 else 'dice'} in the tray "
                            f"({lost[0].reason})")
        elif faces:
            items[TRAY] = tuple(sorted(d.face for d in faces))
            conf[TRAY] = min(float(d.confidence) for d in faces)
            beliefs[TRAY] = multiset([{d.face: max(0.02, min(0.98, float(d.confidence)))} for d in faces])
        obs = Observation(items, conf, "; ".join(problems) or None, warnings,
                          annotated=annotate(image, reading), beliefs=beliefs, unseen=unseen)
        obs.reading = reading  # type: ignore[attr-defined]  # the full reading, for the page and tests
        self._last_seen = (image.copy(), obs) if self.reuse else None
        return _copy(obs)

    # -- camera: settled observation -> action ------------------------------------------------
    def expected(self, state: GameState) -> dict[str, Any]:
        assert isinstance(state, RailroadInkState)
        items: dict[str, Any] = {}
        if state.roll is not None and not state.progress[self.seat].done:
            items[TRAY] = tuple(sorted(state.roll))
        for cell, sq in state.sheets[self.seat].placed():
            items[cell_name(cell)] = square_value(sq.sides, sq.overpass)
        return items

    def explain(self, state: GameState, seen: Observation) -> Explanation:
        assert isinstance(state, RailroadInkState)
        if state.finished:
            return Explanation()
        if state.expansions:
            return Explanation(mismatch="the camera reads the base game's highways and railways only: enter "
                                        f"this {'+'.join(state.expansions)} game's moves on the page")
        expected = self.expected(state)
        exp_sq = {k: v for k, v in expected.items() if k != TRAY}
        seen_sq = {k: v for k, v in seen.items.items() if k != TRAY}
        added = {k: v for k, v in seen_sq.items() if k not in exp_sq}
        gone = {k: v for k, v in exp_sq.items() if k not in seen_sq}
        changed = {k: (v, seen_sq[k]) for k, v in exp_sq.items() if k in seen_sq and seen_sq[k] != v}
        if gone or changed:
            parts = [f"{k} should show {_shape(v)} but is blank" for k, v in sorted(gone.items())]
            parts += [f"{k} should show {_shape(a)} but shows {_shape(b)}"
                      for k, (a, b) in sorted(changed.items())]
            return Explanation(mismatch="the sheet disagrees with the match: " + "; ".join(parts),
                               cells=sorted({*gone, *changed}))
        if len(added) > 1:
            return Explanation(mismatch=f"{len(added)} new squares at once ({_names(sorted(added))}): draw "
                                        "one route at a time, and erase a drawing the referee ruled illegal",
                               cells=sorted(added))
        # a tray not seen in this frame (a die could not be read) is taken to be as the match has it
        tray = tuple(expected.get(TRAY, ()) if TRAY in seen.unseen else seen.items.get(TRAY, ()))
        if state.roll is None:
            return self._before_roll(state, tray, added, seen)
        if state.progress[self.seat].done:
            if added:
                return Explanation(mismatch=f"player {self.seat} already finished round {state.round}: "
                                            f"{next(iter(added))} was drawn after the round",
                                   cells=sorted(added))
            return Explanation()
        rolled = tuple(sorted(state.roll))
        if tray and not _is_part_of(tray, rolled):
            return Explanation(mismatch=f"the tray shows {', '.join(tray)} but round {state.round}'s roll "
                                        f"was {', '.join(rolled)}: leave the dice as they fell", cells=[TRAY])
        if added:
            (name, value), = added.items()
            if not tray:  # one settled change, two actions: judge the drawing first, then the round's end
                return Explanation(mismatch=f"a new drawing on {name} and the cleared tray were seen "
                                            f"together: put the dice back so that {name} is judged first (or "
                                            "erase it if it was ruled illegal), then clear the tray",
                                   cells=[name, TRAY])
            return self._placement(state, name, value, seen)
        if not tray:  # the tray is cleared: the watched player's round is over
            return Explanation(Done(self.seat), 1.0)
        return Explanation()

    # -- the decoder's candidates ---------------------------------------------------------------
    def candidates(self, state: GameState, table: dict[str, Any]) -> list[cand.Candidate]:
        """Before the roll: the roll the tray shows. During the round: each new square drawn as the
        piece it stands for (a rolled face still to draw, an unused special, or one the engine rules
        illegal), a shape that is no route (flagged), and the round's end (the tray cleared); always
        nothing and something else (a square changed or erased, two drawings at once, a turned die).
        A new square is a candidate as read and as each drawing one misread away (`near_shapes`);
        the roll is the faces the tray reads."""
        assert isinstance(state, RailroadInkState)
        out = [cand.nothing(), cand.other()]
        if state.finished or state.expansions:
            return out
        expected = self.expected(state)
        tray = table.get(TRAY)
        new = {k: v for k, v in table.items() if k != TRAY and k not in expected}
        if state.roll is None:
            if tray and len(tray) == len(state.dice):
                try:
                    faces = state.normalise_roll(list(tray))
                except EngineError:
                    return out  # not one face per die: "something else" says so
                out.append(cand.act(Roll(faces), {TRAY: tray}, [TRAY]))
            return out
        if state.progress[self.seat].done:
            return out
        if tray is not None and not _is_part_of(tuple(tray), tuple(sorted(state.roll))):
            return [cand.nothing(), cand.other({TRAY}, loose=True)]
        for name, read in new.items():
            for value in [read, *near_shapes(read)]:  # as read, and one misread away
                sides, overpass = parse_value(value)
                piece = infer_piece(state, self.seat, sides, overpass)
                if piece is None:
                    if value == read:
                        out.append(cand.flag(f"{name} shows {_shape(value)}, which is no Railroad Ink route: "
                                             "finish the drawing or erase it", {name: value}, [name]))
                    continue
                row, col = "ABCDEFG".index(name[0]), int(name[1])
                out.append(cand.act(Place(self.seat, piece, row, col, sides), {name: value}, [name]))
        out.append(cand.act(Done(self.seat), {TRAY: None}, [TRAY]))
        return out

    def _before_roll(self, state: RailroadInkState, tray: tuple[str, ...], added: dict[str, str],
                     seen: Observation) -> Explanation:
        if added:
            return Explanation(mismatch=f"{_names(sorted(added))} drawn before round {state.round}'s roll: "
                                        "roll the dice first", cells=sorted(added))
        if not tray:
            return Explanation()
        if len(tray) != len(state.dice):
            return Explanation(mismatch=f"{len(tray)} dice in the tray: roll all {len(state.dice)} "
                                        f"({', '.join(state.dice)})", cells=[TRAY])
        try:
            faces = state.normalise_roll(list(tray))  # the engine's dice order: the tray has none
        except EngineError as exc:
            return Explanation(mismatch=f"the tray does not show one face per die: {exc}", cells=[TRAY])
        return Explanation(Roll(faces), float(seen.confidence.get(TRAY, 1.0)), cells=[TRAY])

    def _placement(self, state: RailroadInkState, name: str, value: str, seen: Observation) -> Explanation:
        sides, overpass = parse_value(value)
        piece = infer_piece(state, self.seat, sides, overpass)
        if piece is None:
            return Explanation(mismatch=f"{name} shows {_shape(value)}, which is no Railroad Ink route: "
                                        "finish the drawing or erase it", cells=[name])
        row, col = "ABCDEFG".index(name[0]), int(name[1])
        action = Place(self.seat, piece, row, col, sides)
        return Explanation(action, float(seen.confidence.get(name, 1.0)), cells=[name])


def infer_piece(state: RailroadInkState, seat: int, sides: str, overpass: bool) -> str | None:
    """The piece a drawn shape stands for: a rolled face still to draw first, then an unused special,
    then a face already drawn this round or one not rolled (the engine then rules it illegal and
    says why). None when no route piece has that shape."""
    shapes = [p for p in pieces_for(sides, overpass) if p in _BASE_PIECES]
    if not shapes:
        return None
    roll = state.roll or ()
    used = state.progress[seat].used
    left = {face for i, face in enumerate(roll) if i not in used}
    specials_used = set(state.sheets[seat].specials)
    for wanted in (lambda p: p in left, lambda p: p.startswith("special_") and p not in specials_used,
                   lambda p: p in roll):
        for p in shapes:
            if wanted(p):
                return p
    return shapes[0]


def _base_pieces() -> frozenset[str]:
    from engine.railroad_ink.rules import family
    from engine.railroad_ink.tiles import PIECES

    return frozenset(p for p in PIECES if family(p) == "route")


_BASE_PIECES = _base_pieces()


def read_table(
    image: np.ndarray, previous: TableReading | None = None
) -> tuple[TableReading | None, str | None]:
    """Locate the sheet and the tray by their own markers (one marker search per frame), then read
    both. (None, why) when either is out of view or covered. With `previous`, the last frame's
    reading from the same camera, squares and a tray whose pixels did not change keep theirs.
    Either may be placed through the other when its own markers in view cannot place it (`_locate`)."""
    from vision.localise import SheetSpec, detect_markers
    from vision.route_dice import geometry as tg
    from vision.route_dice import read_dice
    from vision.sheets import geometry as sg
    from vision.sheets.reader import read_sheet_reading
    from vision.tiles.reuse import MARKER_BLUR_PX, marker_patches, markers_still, steady

    if previous is not None and markers_still(image, previous.markers_seen, blur_px=MARKER_BLUR_PX):
        # every marker looks as it did (up to blur and noise, see MARKER_BLUR_PX): neither sheet nor
        # tray moved by half a pixel, so `steady` would keep both calibrations: no marker search needed
        sheet_cal, tray_cal = previous.sheet_calibration, previous.tray_calibration
        patches = previous.markers_seen  # kept from when they were found: slow drift adds up
    else:
        markers = detect_markers(image)
        specs = (SheetSpec(sg.SHEET, *sg.SHEET_MM), SheetSpec(tg.SHEET, *tg.SHEET_MM))
        found, why = _locate(image, specs, markers)
        if why is not None:
            return None, why
        sheet_cal, tray_cal = found
        if previous is not None:  # the same sheet and tray, not moved: keep their warps (see `steady`)
            sheet_cal = steady(sheet_cal, previous.sheet_calibration)
            tray_cal = steady(tray_cal, previous.tray_calibration)
        patches = marker_patches(image, sheet_cal) + marker_patches(image, tray_cal)
    sheet = read_sheet_reading(image, sheet_cal, previous.sheet_seen if previous else None)
    squares = {reader_to_engine(name): sq for name, sq in sheet.squares.items()}
    dice, tray = read_dice(image, tray_cal, previous.tray_seen if previous else None)
    return TableReading(squares, dice, sheet_cal, tray_cal, sheet, (dice, tray), patches), None


def _locate(image: np.ndarray, specs: tuple[Any, Any],
            markers: dict[int, np.ndarray]) -> tuple[tuple[Any, Any], str | None]:
    """The sheet and the tray located, each by its own markers in view where they place it alone,
    else on the table's plane, which the other one's calibration fixes (`_on_plane_of`): a camera
    knocked so that two markers of one left the frame (tuning seed 3: the tray's right edge) still
    reads both. ((sheet, tray), None), or (_, why) when either cannot be placed."""
    from vision.localise import LocaliseError, localise

    cals: list[Any] = [None, None]
    errors: list[LocaliseError | None] = [None, None]
    for k, spec in enumerate(specs):
        try:
            cals[k] = localise(image, spec, markers=markers)
        except LocaliseError as exc:
            errors[k] = exc
    for k, spec in enumerate(specs):
        if cals[k] is None and cals[1 - k] is not None and errors[1 - k] is None:
            cals[k] = _on_plane_of(cals[1 - k], spec, markers)
    if cals[0] is None:
        return (None, None), f"the player's sheet is not in view or its corners are covered ({errors[0]})"
    if cals[1] is None:
        return (None, None), f"the dice tray is not in view or its corners are covered ({errors[1]})"
    return (cals[0], cals[1]), None


def _on_plane_of(other: Any, spec: Any, markers: dict[int, np.ndarray]) -> Any:
    """`spec`'s sheet placed through `other`, the calibration of another sheet on the same table:
    both lie on the table's plane, which `other` maps from the image, so the markers of `spec` in
    view need only fix where on that plane it lies (a turn and a shift), which two do even on one
    edge, where they cannot fix the perspective on their own. None with fewer than two of its
    markers, or when they do not sit on that plane at their printed size (RMS misfit above
    `vision.localise.MAX_ERROR_MM`: the sheets are not on one flat table)."""
    from vision.localise import MAX_ERROR_MM, Calibration

    wanted = spec.marker_corners()
    ids = sorted(m for m in markers if m in wanted)
    if len(ids) < 2:
        return None
    printed = np.concatenate([wanted[m] for m in ids]).astype(np.float64)
    seen = other.to_sheet(np.concatenate([markers[m] for m in ids]))  # in the other sheet's mm
    # the turn and shift printed -> seen (least squares, no scale: both are printed at true size)
    pc, sc = printed.mean(0), seen.mean(0)
    u, _, vt = np.linalg.svd((printed - pc).T @ (seen - sc))
    turn = (u @ vt).T
    if np.linalg.det(turn) < 0:  # a reflection is no placement of a sheet on a table
        return None
    shift = sc - turn @ pc
    err = float(np.sqrt(np.mean(np.sum((printed @ turn.T + shift - seen) ** 2, axis=1))))
    if not np.isfinite(err) or err > MAX_ERROR_MM:
        return None
    place = np.eye(3)
    place[:2, :2], place[:2, 2] = turn, shift  # this sheet's mm -> the other's mm
    H = np.linalg.inv(place) @ other.homography
    return Calibration(spec.kind, (spec.width_mm, spec.height_mm), H / H[2, 2], other.image_size, ids, err,
                       marker_size_mm=spec.marker_size_mm, margin_mm=spec.margin_mm)


def reader_to_engine(name: str) -> str:
    """The sheet reader's square name (column a-g, row 1-7) -> the engine's (row A-G, column 0-6)."""
    col, row = "abcdefg".index(name[0]), int(name[1:]) - 1
    return square_key(row, col)


def annotate(image: np.ndarray, reading: TableReading) -> np.ndarray:
    """The frame with each drawn square's reading and each die's face drawn where they were seen
    (green read, red cannot read)."""
    import cv2

    out = image.copy()
    for sq in reading.squares.values():
        if sq.status == "read" and sq.sides == "----":
            continue
        x0, y0, x1, y1 = sq.region_mm
        pts = reading.sheet_calibration.to_image(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
        colour = (40, 170, 40) if sq.status == "read" else (40, 40, 220)
        cv2.polylines(out, [np.round(pts).astype(np.int32).reshape(-1, 1, 2)], True, colour, 1, cv2.LINE_AA)
        label = (sq.sides or "?") + (" o" if sq.overpass else "")
        cv2.putText(out, label, (int(pts[3][0]) + 2, int(pts[3][1]) - 3), cv2.FONT_HERSHEY_SIMPLEX, 0.32,
                    colour, 1, cv2.LINE_AA)
    for die in reading.dice:
        pts = reading.tray_calibration.to_image(die.quad_mm)
        colour = (40, 170, 40) if die.status == "face" else (40, 40, 220)
        cv2.polylines(out, [np.round(pts).astype(np.int32).reshape(-1, 1, 2)], True, colour, 2, cv2.LINE_AA)
        cv2.putText(out, die.face or "?", (int(pts[:, 0].min()), int(pts[:, 1].max()) + 14),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.4, colour, 1, cv2.LINE_AA)
    return out


def _same_picture(a: np.ndarray, b: np.ndarray) -> bool:
    import cv2

    # one pass, nothing allocated: about 3x quicker than testing an absdiff image
    return a.shape == b.shape and a.dtype == b.dtype and cv2.norm(a, b, cv2.NORM_INF) == 0


def _copy(obs: Observation) -> Observation:
    """The observation for one frame: its own item, confidence and warning containers (the loop
    stamps the frame on it), the reading and the annotated picture shared."""
    out = replace(obs, items=dict(obs.items), confidence=dict(obs.confidence), warnings=list(obs.warnings),
                  beliefs=dict(obs.beliefs))
    out.reading = obs.reading  # type: ignore[attr-defined]
    return out


def _is_part_of(small: tuple[str, ...], big: tuple[str, ...]) -> bool:
    left = list(big)
    for f in small:
        if f not in left:
            return False
        left.remove(f)
    return True


def _names(names: list[str]) -> str:
    return ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")


def _shape(value: str) -> str:
    sides, overpass = parse_value(value)
    return f"{sides}{' (overpass)' if overpass else ''}"


def _strip_xml(svg: str) -> str:
    return svg.split("?>", 1)[1].strip() if svg.startswith("<?xml") else svg.strip()


ADAPTER = RailroadInkAdapter()
