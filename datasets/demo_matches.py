"""Build the bundled recorded matches (referee_app/data/demo/<game>/): a scripted physical match,
rendered frame by frame by the project's synthetic cameras, with some illegal moves and table
incidents in it, plus the verdicts the referee must reach.

    python -m datasets.demo_matches [--out referee_app/data/demo] [--only highway-grid]

Deterministic: the same script and seed give the same frames.
"""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

import engine

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "referee_app" / "data" / "demo"
JPEG_QUALITY = 82


def add_hand(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A player's hand reaching over the table: a skin-coloured palm and fingers from one edge."""
    out = image.copy()
    h, w = out.shape[:2]
    skin = tuple(int(v) for v in rng.uniform([120, 150, 190], [150, 180, 225]))  # BGR
    cx = int(rng.uniform(0.3, 0.7) * w)
    cy = int(h * rng.uniform(0.55, 0.75))
    cv2.ellipse(out, (cx, h + 40), (int(w * 0.12), int(h * 0.45)), 0, 0, 360, skin, -1, cv2.LINE_AA)
    for k in range(4):
        fx = cx + int((k - 1.5) * w * 0.035)
        cv2.ellipse(out, (fx, cy - int(h * 0.05)), (int(w * 0.014), int(h * 0.12)), 0, 0, 360, skin, -1,
                    cv2.LINE_AA)
    return cv2.GaussianBlur(out, (3, 3), 0)


class Recorder:
    """Collects scenes (one image each, shown for `hold` frames) and the expected verdicts."""

    def __init__(self, out: Path, game: str, players: list[str], fps: float, frames_needed: int) -> None:
        self.out = out
        self.game = game
        self.players = players
        self.fps = fps
        self.frames_needed = frames_needed
        self.frames: list[dict[str, Any]] = []
        self.expected: list[dict[str, Any]] = []
        self.incidents: list[str] = []
        self.mismatches = 0  # incidents the referee must report as "the table disagrees"
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)

    def scene(self, image: np.ndarray, hold: int, note: str = "", second: np.ndarray | None = None) -> None:
        """One scene; `second`: the same moment seen by a second camera (stored under camera2/)."""
        name = f"{len(self.frames):03d}.jpg"
        entry: dict[str, Any] = {"file": name, "hold": hold}
        shots = [(name, image)]
        if second is not None:
            (self.out / "camera2").mkdir(exist_ok=True)
            entry["second"] = f"camera2/{name}"
            shots.append((entry["second"], second))
        for file, picture in shots:
            if not cv2.imwrite(str(self.out / file), picture, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY]):
                raise OSError(f"cannot write {self.out / file}")
        if note:
            entry["note"] = note
        self.frames.append(entry)

    def expect(self, notation: str, verdict: engine.Verdict) -> None:
        self.expected.append({"notation": notation, "legal": verdict.legal, "rule": verdict.rule})

    def finish(self, title: str, variant: dict[str, Any] | None = None) -> Path:
        manifest = {
            "title": title,
            "game": self.game,
            "players": self.players,
            "variant": variant or {},
            "fps": self.fps,
            "frames_needed": self.frames_needed,
            "frames": self.frames,
            "expected": self.expected,
            "incidents": self.incidents,
            "mismatches": self.mismatches,
            "made_by": "python -m datasets.demo_matches",
        }
        path = self.out / "manifest.json"
        path.write_text(json.dumps(manifest, indent=1) + "\n")
        return path


# -- Highway 4x4 ------------------------------------------------------------------------------
GRID_MOVES = ["9@b2", "1@a1", "16@c3", "2@d1", "12@b3", "3@d4", "15@c2", "4@a4",
              "13@b1", "5@c4", "14@a2", "6@d3", "10@c1", "7@a3", "11@d2", "8@b4"]


def grid_demo(out: Path, seed: int = 11) -> Path:
    from datasets.camera import SheetObject, random_pose, render_sheet, table_texture
    from datasets.tiles.scenes import board_rgb, piece_top
    from vision.tiles import geometry as g

    game = engine.get_game("highway-grid")
    rec = Recorder(out, "highway-grid", ["Ann", "Bo"], fps=6, frames_needed=2)
    rng = np.random.default_rng(seed)
    size = (960, 540)
    # one steady camera over one table for the whole match; only light and noise vary by frame
    pose = random_pose(np.random.default_rng([seed, 1]), g.SHEET_MM, size, height_mm=(420, 480),
                       tilt_deg=(6, 14), yaw_deg=(-6, 6), fill=(0.86, 0.9))
    table = np.ascontiguousarray(table_texture(np.random.default_rng([seed, 2]), size))
    sheet = board_rgb()
    looks: dict[int, tuple[np.ndarray, float, float, tuple[float, float]]] = {}

    def piece(number: int, cell: str) -> SheetObject:
        if number not in looks:
            prng = np.random.default_rng([seed, 3, number])
            top, side, _round = piece_top(prng, number, "printed")
            looks[number] = (top, side, float(prng.uniform(0, 360)), tuple(prng.uniform(-2, 2, 2)))
        top, side, angle, (dx, dy) = looks[number]
        cx, cy = g.cell_centre_mm(cell)
        return SheetObject(top, (cx + dx, cy + dy), (side, side), angle, 2.0, side_bgr=(190, 200, 205))

    def shot(board: dict[str, int], frame: int) -> np.ndarray:
        objects = [piece(n, c) for c, n in board.items()]
        image, _ = render_sheet(sheet, g.SHEET_MM, pose, rng=np.random.default_rng([seed, 4, frame]),
                                background=table, objects=objects, effects=0.4)
        return image

    state = game.new_state()
    board: dict[str, int] = {}
    rec.scene(shot(board, 0), 3, "empty board")
    for k, move in enumerate(GRID_MOVES):
        action = game.parse_action(move)
        cell = move.split("@")[1]
        rec.scene(add_hand(shot(board, 2 * k + 1), rng), 1, f"hand placing {move}")  # never settles
        if k == 5:  # an incident: a piece slides to another cell; the referee asks for it back
            moved = dict(board)
            src = "b2"
            moved["a2" if "a2" not in moved else "c1"] = moved.pop(src)
            rec.scene(shot(moved, 100 + k), 3, "piece 9 knocked from b2 (mismatch)")
            rec.incidents.append("piece 9 knocked off b2: table-mismatch, then put back")
            rec.mismatches += 1
            rec.scene(shot(board, 200 + k), 3, "piece 9 back on b2")
        if k == 9:  # two pieces at once: the referee refuses to guess
            extra = dict(board)
            extra[cell] = action.piece
            extra["d4" if "d4" not in extra else "a3"] = 7
            rec.scene(shot(extra, 100 + k), 3, "two pieces placed at once (mismatch)")
            rec.incidents.append("two pieces placed at once: table-mismatch, then one taken back")
            rec.mismatches += 1
        board[cell] = action.piece
        state, verdict = engine.step(state, action)
        rec.expect(action.notation(), verdict)
        rec.scene(shot(board, 2 * k + 2), 3, f"after {move}")
    return rec.finish("Highway 4x4 — Ann v Bo, with a knocked piece and a double placement")


# -- Highway dice road ------------------------------------------------------------------------
DICE_ILLEGAL_TURNS = (3, 8)  # turns where the player puts a die the rules do not allow


def dice_demo(out: Path, seed: int = 5, turns: int = 12) -> Path:
    from datasets.camera import random_pose, table_texture
    from datasets.dice.scenes import render_dice_on_sheet
    from drawing.dice_board import printable_board
    from engine.dice_road import SEAT_COLOURS, Play, Roll, load_board

    game = engine.get_game("highway-dice")
    board = load_board()
    rec = Recorder(out, "highway-dice", ["Ann (white)", "Bo (blue)"], fps=6, frames_needed=3)
    rng = np.random.default_rng(seed)
    size = (1280, 720)
    sheet_mm = (float(board.width), float(board.height))
    _svg, png, _meta = printable_board(board, dpi=100)
    sheet = cv2.cvtColor(cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    pose = random_pose(np.random.default_rng([seed, 1]), sheet_mm, size, height_mm=(850, 900),
                       tilt_deg=(3, 7), yaw_deg=(-3, 3), fill=(0.93, 0.96))
    table = np.ascontiguousarray(table_texture(np.random.default_rng([seed, 2]), size))
    jitter: dict[str, tuple[float, float, float]] = {}

    def die_at(key: str, x: float, y: float, value: int, colour: str) -> dict[str, Any]:
        if key not in jitter:
            jitter[key] = (rng.uniform(-1.5, 1.5), rng.uniform(-1.5, 1.5), rng.uniform(-25, 25))
        dx, dy, angle = jitter[key]
        return {"x_mm": x + dx, "y_mm": y + dy, "value": value, "color": colour, "size_mm": 16.0,
                "angle": angle}

    def table_dice(state: Any, tray: list[int], seat: int, extra: dict[str, int] | None = None) -> list[dict]:
        view = state.table_view()
        dice = []
        for cell_id, stone in view["stones"].items():
            c = board.cells[cell_id]
            dice.append(die_at(f"{cell_id}:{stone['value']}", c.x, c.y, stone["value"],
                               SEAT_COLOURS[stone["seat"]]))
        for cell_id, value in (extra or {}).items():
            c = board.cells[cell_id]
            dice.append(die_at(f"x{cell_id}:{value}", c.x, c.y, value, SEAT_COLOURS[seat]))
        for s, value in view["pools"].items():
            if value is not None:
                r = board.pools[int(s)]
                dice.append(die_at(f"pool{s}:{value}", r.x + r.w / 2, r.y + r.h / 2, value,
                                   SEAT_COLOURS[int(s)]))
        t = board.tray
        for k, value in enumerate(tray):
            x = t.x + t.w * (0.3 + 0.4 * k) + rng.uniform(-8, 8)
            y = t.y + t.h * 0.5 + rng.uniform(-15, 15)
            dice.append({"x_mm": x, "y_mm": y, "value": value, "color": SEAT_COLOURS[seat], "size_mm": 16.0,
                         "angle": float(rng.uniform(0, 90))})
        return dice

    frame_no = [0]

    def shot(dice: list[dict], hand: bool = False) -> np.ndarray:
        frame_no[0] += 1
        image, _labels = render_dice_on_sheet(sheet, sheet_mm, dice, pose,
                                              rng=np.random.default_rng([seed, 3]),  # one steady lamp
                                              effects=0.3, background=table)
        return add_hand(image, rng) if hand else image

    state = game.new_state(players=2)
    rec.scene(shot(table_dice(state, [], 0)), 3, "empty board")
    for turn in range(turns):
        seat = state.turn
        a, b = (int(v) for v in rng.integers(1, 7, 2))
        roll = Roll(a, b)
        rec.scene(shot(table_dice(state, [], seat), hand=True), 1, "hand rolling")
        rec.scene(shot(table_dice(state, [a, b], seat)), 3, f"roll {a} {b}")
        state, verdict = engine.step(state, roll)
        rec.expect(roll.notation(), verdict)
        play: Play | None = None
        if turn in DICE_ILLEGAL_TURNS:
            needed_cell = state.status(seat).needed_cells[0]
            for v in (a, b):
                candidate = Play(v, needed_cell)
                if not state.judge(candidate).legal:
                    play = candidate
                    break
        if play is None:
            uses = state.legal_uses()
            blocks = [u for u in uses if u.kind == "block"]
            own = [u for u in uses if u.target_seat == seat]
            use = (blocks or own or uses or [None])[0]
            if use is not None:
                other = b if use.die == a and use.source == "roll" else a
                store = other if state.pools[seat] is None and use.source == "roll" else None
                play = use.action(store)
            else:
                play = Play(store=max(a, b))
        verdict = state.judge(play)
        placed = {play.cell: play.die} if play.die is not None else {}
        rec.scene(shot(table_dice(state, [], seat), hand=True), 1, f"hand playing {play.notation()}")
        if verdict.legal:
            new_state = state.apply(play, verdict)
            rec.scene(shot(table_dice(new_state, [], seat)), 3, f"after {play.notation()}")
        else:
            after_store = {}
            rec.scene(shot(table_dice(state, [], seat, placed | after_store)), 3,
                      f"illegal {play.notation()}: {verdict.rule}")
            rec.incidents.append(f"turn {turn + 1}: {play.notation()} is illegal ({verdict.rule}); "
                                 "die removed")
            new_state = state.apply(play, verdict)
            rec.scene(shot(table_dice(new_state, [], seat)), 3, "die taken back")
        rec.expect(play.notation(), verdict)
        state = new_state
    return rec.finish("Highway dice road — Ann (white) v Bo (blue), with two illegal placements")


BUILDERS: dict[str, Callable[[Path], Path]] = {"highway-grid": grid_demo, "highway-dice": dice_demo}


def _more_builders() -> None:
    """Games whose recorded match is built in a module of its own (datasets/demo_<game>.py with a
    `build(out: Path) -> Path` and a `GAME` name). The Tokyo Highway match is built by
    `python -m referee_app.demo_tokyo`: it is checked with the app's own reader."""
    import importlib

    for name in ("demo_railroad_ink",):
        try:
            module = importlib.import_module(f"datasets.{name}")
        except ModuleNotFoundError:
            continue
        BUILDERS[module.GAME] = module.build


_more_builders()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    p.add_argument("--only", choices=sorted(BUILDERS), help="build one game's match only")
    args = p.parse_args(argv)
    for name, build in BUILDERS.items():
        if args.only and name != args.only:
            continue
        path = build(args.out / name)
        m = json.loads(path.read_text())
        size = sum(f.stat().st_size for f in path.parent.iterdir())
        print(f"{name}: {len(m['frames'])} scenes, {sum(f['hold'] for f in m['frames'])} frames, "
              f"{len(m['expected'])} verdicts, {size / 1e6:.1f} MB -> {path.parent}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
