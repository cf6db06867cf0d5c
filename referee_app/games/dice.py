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

from engine import Action, GameState
from engine.dice_road import SEAT_NAMES, DiceState, Play, Reclaim, Roll
from referee_app.games.base import Explanation, GameAdapter, Observation

TRAY = "tray"
PX_PER_MM = 2.0  # resolution of the rectified board view the dice reader works on


def cell_key(cell: str) -> str:
    return f"cell:{cell}"


def pool_key(seat: int) -> str:
    return f"pool:{seat}"


class DiceAdapter(GameAdapter):
    game = "highway-dice"
    has_reader = True

    def __init__(self) -> None:
        self._reader: Any = None

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

    def hint(self, state: GameState) -> dict[str, Any] | None:
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
        if self._reader is None:
            self._reader = BoardDiceReader()
        image = frame.image if hasattr(frame, "image") else frame
        return self._reader.read(image)

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

    @staticmethod
    def _describe(added: dict[str, Any], removed: dict[str, Any], when: str) -> str:
        parts = [f"a {v[0]} appeared on {c}" for c, v in sorted(added.items())]
        parts += [f"the {v[0]} on {c} is missing: put it back" for c, v in sorted(removed.items())]
        return f"the table disagrees with the match {when}: " + "; ".join(parts)


class BoardDiceReader:
    """Localise the printed board by its markers, rectify it, read the dice, and assign each die to
    a cell, the tray or a pool by its position in board millimetres."""

    def __init__(self, board: Any = None) -> None:
        from engine.dice_road import load_board
        from referee_app.render.dice_board import MARKER_MARGIN, MARKER_SIZE
        from vision.localise import Localiser, SheetSpec

        self.board = board or load_board()
        self.localiser = Localiser(SheetSpec("highway-dice", float(self.board.width),
                                             float(self.board.height),
                                             MARKER_SIZE, MARKER_MARGIN))
        self.colours = {"white": 0, "blue": 1, "green": 2, "yellow": 3}

    def zone_of(self, x: float, y: float) -> str | None:
        for cell in self.board.cells.values():
            if abs(x - cell.x) <= cell.w / 2 and abs(y - cell.y) <= cell.h / 2:
                return cell_key(cell.id)
        tray = self.board.tray
        if tray.x <= x <= tray.x + tray.w and tray.y <= y <= tray.y + tray.h:
            return TRAY
        for seat, r in enumerate(self.board.pools):
            if r.x <= x <= r.x + r.w and r.y <= y <= r.y + r.h:
                return pool_key(int(seat))
        return None

    def read(self, image: np.ndarray) -> Observation:
        from vision.dice import read_dice

        located = self.localiser.update(image)
        calib = located.calibration
        if calib is None:
            return Observation({}, {}, blocked="the board's markers are not visible")
        top = calib.rectify(image, PX_PER_MM)
        dets = read_dice(top, colors=list(self.colours))
        items: dict[str, Any] = {}
        conf: dict[str, float] = {}
        tray: list[int] = []
        tray_conf = 1.0
        for i in range(len(dets)):
            x0, y0, x1, y1 = dets.xyxy[i]
            xm, ym = (x0 + x1) / 2 / PX_PER_MM, (y0 + y1) / 2 / PX_PER_MM
            zone = self.zone_of(float(xm), float(ym))
            value = int(dets.values[i])
            c = float(min(dets.confidence[i], dets.value_confidence[i]))
            if zone is None or value < 1:
                continue
            if zone == TRAY:
                tray.append(value)
                tray_conf = min(tray_conf, c)
            elif zone.startswith("pool:"):
                items[zone] = value
                conf[zone] = c
            else:
                seat = self.colours.get(dets.colors[i] or "", -1)
                items[zone] = (value, seat)
                conf[zone] = c
        if tray:
            items[TRAY] = tuple(sorted(tray))
            conf[TRAY] = tray_conf
        annotated = _annotate(image, calib, dets, PX_PER_MM)
        return Observation(items, conf, None, annotated=annotated)


def _annotate(image: np.ndarray, calib: Any, dets: Any, px_per_mm: float) -> np.ndarray:
    import cv2

    out = image.copy()
    for i in range(len(dets)):
        x0, y0, x1, y1 = (dets.xyxy[i] / px_per_mm).tolist()
        pts = calib.to_image(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32))
        pts = np.asarray(pts, np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [pts], True, (0, 200, 0), 2, cv2.LINE_AA)
        cv2.putText(out, str(int(dets.values[i])), tuple(int(v) for v in pts[0, 0]),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 200, 0), 2, cv2.LINE_AA)
    return out


ADAPTER = DiceAdapter()
