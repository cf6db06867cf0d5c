"""A simulated Highway dice road match: two players roll, place and store dice on the printed board,
sometimes break a rule (a wrong value on the needed cell, a die on a cell they may not use, a pass
while a die was needed), nudge dice already on the board by a few mm, lean over the table (shadows),
and once knock the camera.

The board is the printable sheet of drawing.dice_board, as the players print it: in one piece, or
(`Setup.paper`) printed on A4 or Letter tiles and taped together on the table with gaps of 2-3 mm,
each tile turned by up to 1 degree and the two rows slid up to 2 mm sideways against each other
(datasets.dice.assembled), a new assembly per seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from datasets.match_sim.core import (
    PAPERS,
    Photographer,
    Scene,
    Script,
    Setup,
    SimMatch,
    TrueMove,
    camera_pose,
)

GAME = "highway-dice"
DIE_MM = 16.0
ILLEGAL_SHARE = 0.15  # of turns where the player breaks a rule on purpose
FRAMES_NEEDED = 3  # the referee loop's default (serve with a live camera)


class _Table:
    """Where each die lies: a die keeps its small offset and turn from the moment it is put down
    until it is nudged."""

    def __init__(self, board: Any, rng: np.random.Generator) -> None:
        self.board = board
        self.rng = rng
        self.offsets: dict[str, tuple[float, float, float]] = {}

    def _offset(self, key: str) -> tuple[float, float, float]:
        if key not in self.offsets:
            r = self.rng
            self.offsets[key] = (r.uniform(-1.5, 1.5), r.uniform(-1.5, 1.5), r.uniform(-25, 25))
        return self.offsets[key]

    def nudge(self) -> str | None:
        """Push one die on the board by 2-4 mm (it stays in its cell)."""
        keys = [k for k in self.offsets if not k.startswith("tray")]
        if not keys:
            return None
        key = keys[int(self.rng.integers(len(keys)))]
        dx, dy, angle = self.offsets[key]
        step = self.rng.uniform(2.0, 4.0)
        direction = self.rng.uniform(0, 2 * np.pi)
        nx = float(np.clip(dx + step * np.cos(direction), -3.5, 3.5))
        ny = float(np.clip(dy + step * np.sin(direction), -3.5, 3.5))
        self.offsets[key] = (nx, ny, angle + self.rng.uniform(-10, 10))
        return key

    def die(self, key: str, x: float, y: float, value: int, colour: str) -> dict[str, Any]:
        dx, dy, angle = self._offset(key)
        return {"x_mm": x + dx, "y_mm": y + dy, "value": value, "color": colour, "size_mm": DIE_MM,
                "angle": angle}

    def dice(self, state: Any, tray: list[int], seat: int, extra: dict[str, int] | None = None) -> list[dict]:
        from engine.dice_road import SEAT_COLOURS

        board = self.board
        view = state.table_view()
        out = []
        for cell_id, stone in view["stones"].items():
            c = board.cells[cell_id]
            out.append(self.die(f"{cell_id}:{stone['value']}:{stone['seat']}", c.x, c.y, stone["value"],
                                SEAT_COLOURS[stone["seat"]]))
        for cell_id, value in (extra or {}).items():
            c = board.cells[cell_id]
            out.append(self.die(f"x{cell_id}:{value}", c.x, c.y, value, SEAT_COLOURS[seat]))
        for s, value in view["pools"].items():
            if value is not None:
                r = board.pools[int(s)]
                out.append(self.die(f"pool{s}:{value}", r.x + r.w / 2, r.y + r.h / 2, value,
                                    SEAT_COLOURS[int(s)]))
        t = board.tray
        for k, value in enumerate(tray):  # rolled dice land anywhere in the tray's middle
            out.append({"x_mm": t.x + t.w * (0.3 + 0.4 * k) + self.rng.uniform(-8, 8),
                        "y_mm": t.y + t.h * 0.5 + self.rng.uniform(-15, 15), "value": value,
                        "color": SEAT_COLOURS[seat], "size_mm": DIE_MM,
                        "angle": float(self.rng.uniform(0, 90))})
        return out


def _illegal_play(state: Any, rng: np.random.Generator) -> Any | None:
    """A rule-breaking play a real player might make with this roll, or None if none fits."""
    from engine.dice_road import Play

    seat = state.turn
    a, b = state.roll
    kinds = ["wrong-value", "wrong-cell", "pass"]
    rng.shuffle(kinds)
    occupied = set(state.occupancy())
    for kind in kinds:
        if kind == "wrong-value":  # a rolled die on the needed cell, but not the needed value
            for v in (a, b):
                play = Play(v, state.status(seat).needed_cells[0])
                if not state.judge(play).legal:
                    return play
        elif kind == "wrong-cell":  # a rolled die on an empty cell no rule lets this player use
            cells = [c for c in sorted(state.board.cells) if c not in occupied]
            for _ in range(30):
                play = Play(int(rng.choice([a, b])), cells[int(rng.integers(len(cells)))])
                if not state.judge(play).legal:
                    return play
        else:  # passing while a die could pave the own road
            play = Play()
            if not state.judge(play).legal:
                return play
    return None


def _legal_play(state: Any, rng: np.random.Generator) -> Any:
    """What a sensible player does: pave or block if possible (a seeded pick among the best kind),
    keep the other die in the pool when it is free, else store or pass."""
    from engine.dice_road import Play

    seat = state.turn
    a, b = state.roll
    uses = state.legal_uses()
    blocks = [u for u in uses if u.kind == "block"]
    own = [u for u in uses if u.target_seat == seat]
    best = own or blocks or uses
    if not best:
        return Play(store=max(a, b)) if state.pools[seat] is None else Play()
    use = best[int(rng.integers(len(best)))]
    other = b if use.die == a and use.source == "roll" else a
    store = other if state.pools[seat] is None and use.source == "roll" and rng.random() < 0.7 else None
    return use.action(store)


SHEET_DPI = 100.0  # the printed sheet's raster the scenes are drawn from
GAP_MM, TURN_DEG, ROW_SLIP_MM = (2.0, 3.0), 1.0, 1.0  # how carefully the tiles are laid (see the docstring)


def _rgb(png: bytes) -> np.ndarray:
    import cv2

    return cv2.cvtColor(cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


def assembled_board(board: Any, paper: str, rng: np.random.Generator) -> Any:
    """The board's `paper` tiles as printed (print highway-dice --paper), cut out and laid on the table
    (a datasets.dice.assembled.Assembled)."""
    from datasets.dice.assembled import assemble
    from drawing.dice_board import tiled_board
    from vision.tiled import tiled_sheet_from_json

    pages, meta = tiled_board(board, paper, SHEET_DPI)
    rgb = {name: _rgb(png) for name, (_svg, png) in pages.items()}
    on_page = {t["tile"]: tuple(t["tile_on_page_mm"]) for t in meta["tiles"]}
    return assemble(rgb, tiled_sheet_from_json(meta), on_page, SHEET_DPI / 25.4, rng, GAP_MM, TURN_DEG,
                    ROW_SLIP_MM)


def simulate(seed: int, setup: Setup, turns: int = 12) -> SimMatch:
    """The whole match of `turns` turns (fewer if someone wins), scripted from `seed`."""

    import engine
    from drawing.dice_board import printable_board
    from engine.dice_road import Roll, load_board

    board = load_board()
    area = (float(board.width), float(board.height))
    where = None  # board mm -> sheet mm, where the board is assembled from tiles
    if setup.paper:
        # each paper its own assembly of the seed (the two papers' tiles are the same: a4 vs letter
        # then compares two tapings, not one twice)
        laying = np.random.default_rng([seed, 4, list(PAPERS).index(setup.paper)])
        tiles = assembled_board(board, setup.paper, laying)
        sheet_rgb, area, where = tiles.image, tiles.size_mm, tiles.where
    else:
        _svg, png, _meta = printable_board(board, dpi=SHEET_DPI)
        sheet_rgb = _rgb(png)
    game = engine.get_game(GAME)
    rng = np.random.default_rng([seed, 1])
    photographer = Photographer(setup, camera_pose(setup, area, np.random.default_rng([seed, 2])), seed)
    table = _Table(board, np.random.default_rng([seed, 3]))
    moves: list[TrueMove] = []
    film = Script(setup, rng, FRAMES_NEEDED)
    scenes, add, hand, settle = film.scenes, film.still, film.hand, film.settle
    bump_turn = int(rng.integers(max(1, turns // 3), max(2, 2 * turns // 3 + 1)))

    def judge(action: Any, scripted_illegal: bool = False) -> tuple[int, Any]:
        verdict = state.judge(action)
        moves.append(TrueMove(action.notation(), verdict.legal, verdict.rule, scripted_illegal))
        return len(moves) - 1, verdict

    state = game.new_state(players=2)
    add(table.dice(state, [], 0), "empty board")
    for turn in range(turns):
        if state.is_terminal():
            break
        seat = state.turn
        a, b = (int(v) for v in rng.integers(1, 7, 2))
        hand(table.dice(state, [], seat), "hand rolling")
        roll = Roll(a, b)
        k, verdict = judge(roll)
        add(table.dice(state, [a, b], seat), f"roll {a} {b}", k)
        if turn == bump_turn:
            scenes[-1].bump = True
        if setup.hands and rng.random() < 0.25:  # someone reaches across while the dice lie there
            tray_dice = scenes[-1].content
            scenes.append(Scene(tray_dice, 1, "a hand passes over the table", hand=True))
            scenes.append(Scene(tray_dice, settle, "the same dice again"))
        state = state.apply(roll, verdict)
        play = _illegal_play(state, rng) if rng.random() < ILLEGAL_SHARE else None
        scripted = play is not None
        play = play or _legal_play(state, rng)
        hand(table.dice(state, [], seat), f"hand playing {play.notation()}")
        k, verdict = judge(play, scripted)
        if rng.random() < 0.2 and table.nudge():  # a sleeve pushes a die a few mm in its cell
            pass
        if verdict.legal:
            state = state.apply(play, verdict)
            add(table.dice(state, [], seat), f"after {play.notation()}", k)
            continue
        placed = {play.cell: play.die} if play.die is not None else {}
        add(table.dice(state, [], seat, placed), f"illegal {play.notation()}: {verdict.rule}", k)
        state = state.apply(play, verdict)
        if placed:
            hand(table.dice(state, [], seat), "taking the die back")
            add(table.dice(state, [], seat), "die taken back")

    def draw(dice: list[dict], pose: Any) -> np.ndarray:
        from datasets.dice.scenes import render_dice_on_sheet

        if where is not None:  # each die lies on its tile, wherever the tile was laid
            dice = [{**d, "x_mm": p[0], "y_mm": p[1]} for d in dice for p in [where(d["x_mm"], d["y_mm"])]]
        image, _labels = render_dice_on_sheet(sheet_rgb, area, dice, pose, effects=0.0,
                                              background=photographer.table)
        return image

    return SimMatch(GAME, ["Ann (white)", "Bo (blue)"], moves, scenes, photographer, draw,
                    extra={"frames_needed": FRAMES_NEEDED})
