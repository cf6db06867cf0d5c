"""The bundled recorded Railroad Ink match (referee_app/data/demo/railroad-ink/): one player's
hand-drawn sheet and the dice tray side by side under one camera, rendered frame by frame, with
illegal drawings in it and the verdicts the referee must reach.

    python -m datasets.demo_matches --only railroad-ink

The table: the printed player sheet (200 x 200 mm) on the left, the dice tray turned a quarter turn
(150 x 200 mm) on its right, both flat on the table, so one 1280 x 720 camera sees the sheet at
about 3.4 px/mm (the sheet reader wants 3). Deterministic: the same script and seed give the same
frames; every square is drawn with its own seeded hand so earlier drawings never change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

GAME = "railroad-ink"
SHEET_AT_MM = (0.0, 0.0)  # the player sheet's top-left corner on the table
TRAY_AT_MM = (212.0, 0.0)  # the (turned) tray's top-left corner on the table
TABLE_MM = (362.0, 200.0)  # what the camera frames: sheet + gap + turned tray
FRAME_SIZE = (1280, 720)
# die centres in the turned tray (x across its 150 mm, y down its 200 mm), clear of its markers
DIE_SPOTS_MM = ((52.0, 72.0), (98.0, 78.0), (55.0, 124.0), (100.0, 130.0))


@dataclass
class TableScene:
    """What lies on the table: the drawn squares (cell 0..48 -> (sides, overpass, round)), the faces
    of the dice in the tray, and optional disturbances."""

    squares: dict[int, tuple[str, bool, int | None]] = field(default_factory=dict)
    tray: list[str] = field(default_factory=list)
    hand: bool = False  # a player's hand reaching over the table
    cover_mm: tuple[float, float, float, float] | None = None  # a paper lying on the sheet (sheet mm)


class TableCamera:
    """One steady camera over one table for a whole match; frames differ only in sensor noise."""

    def __init__(self, seed: int = 7, effects: float = 0.35,
                 tilt_deg: tuple[float, float] = (3.0, 8.0)) -> None:
        from datasets.camera import random_pose, table_texture
        from datasets.sheets.draw import Hand

        self.seed = seed
        self.effects = effects
        self.pose = random_pose(np.random.default_rng([seed, 1]), TABLE_MM, FRAME_SIZE, height_mm=(700, 760),
                                tilt_deg=tilt_deg, yaw_deg=(-3, 3), fill=(0.93, 0.95))
        self.table = table_texture(np.random.default_rng([seed, 2]), FRAME_SIZE)
        self.pen = Hand.random(np.random.default_rng([seed, 3]))
        self._squares: dict[tuple[int, str, bool, int | None], np.ndarray] = {}

    # -- rasters on the table ------------------------------------------------------------------
    def _sheet_raster(self, scene: TableScene) -> np.ndarray:
        from datasets.sheets.draw import draw_square
        from datasets.sheets.scenes import SCALE, blank_sheet
        from vision.sheets import geometry as sg

        img = blank_sheet().copy()
        for cell, (sides, overpass, number) in sorted(scene.squares.items()):
            row, col = divmod(cell, 7)
            name = f"{sg.COLS[col]}{row + 1}"
            ox, oy = sg.square_origin_mm(name)
            x0, y0, n = round(ox * SCALE), round(oy * SCALE), round(sg.SQUARE_MM * SCALE)
            key = (cell, sides, overpass, number)
            if key not in self._squares:  # each square keeps its own look from scene to scene
                tile = blank_sheet()[y0:y0 + n, x0:x0 + n].copy()
                station = "H" in sides and "R" in sides and not overpass
                draw_square(tile, (0.0, 0.0), sg.SQUARE_MM, SCALE, sides, station, overpass, number, self.pen,
                            np.random.default_rng([self.seed, 4, cell, sum(map(ord, sides))]))
                self._squares[key] = tile
            img[y0:y0 + n, x0:x0 + n] = self._squares[key]
        if scene.cover_mm is not None:
            x0, y0, x1, y1 = (round(v * SCALE) for v in scene.cover_mm)
            img[y0:y1, x0:x1] = (236, 226, 160)  # a yellow note lying on the sheet
        return img

    @staticmethod
    def _tray_raster() -> np.ndarray:
        from datasets.route_dice.scenes import tray_rgb

        return np.ascontiguousarray(np.rot90(tray_rgb(), k=-1))  # a quarter turn clockwise

    def _dice(self, faces: list[str]) -> list[Any]:
        from datasets.camera import SheetObject
        from datasets.route_dice.scenes import face_rgba
        from vision.route_dice import geometry as tg

        rng = np.random.default_rng([self.seed, 5, *[sum(map(ord, f)) for f in faces]])
        out = []
        for (x, y), face in zip(DIE_SPOTS_MM, faces, strict=False):
            dx, dy = rng.uniform(-5, 5, 2)
            centre = (TRAY_AT_MM[0] + x + dx, TRAY_AT_MM[1] + y + dy)
            angle = float(rng.uniform(0, 360))
            out.append(SheetObject(face_rgba(face), centre, (tg.DIE_MM, tg.DIE_MM), angle, tg.DIE_MM,
                                   side_bgr=(225, 228, 230)))
        return out

    # -- the photograph -----------------------------------------------------------------------
    def shot(self, scene: TableScene, frame: int) -> np.ndarray:
        from datasets.camera import apply_lighting, apply_sensor, composite_objects
        from datasets.demo_matches import add_hand

        img = self.table.copy()
        H = self.pose.homography()
        for raster, (ox, oy), (w_mm, h_mm) in ((self._sheet_raster(scene), SHEET_AT_MM, (200.0, 200.0)),
                                               (self._tray_raster(), TRAY_AT_MM, (150.0, 200.0))):
            rh, rw = raster.shape[:2]
            M = H @ np.array([[w_mm / rw, 0, ox], [0, h_mm / rh, oy], [0, 0, 1.0]])
            warped = cv2.warpPerspective(np.ascontiguousarray(raster[..., ::-1]), M, FRAME_SIZE,
                                         flags=cv2.INTER_AREA)
            mask = cv2.warpPerspective(np.full((rh, rw), 255, np.uint8), M, FRAME_SIZE)
            np.copyto(img, warped, where=mask[..., None] > 127)
        composite_objects(img, self.pose, self._dice(scene.tray))
        img = apply_lighting(img, np.random.default_rng([self.seed, 6]), self.effects)  # one steady lamp
        if scene.hand:
            img = add_hand(img, np.random.default_rng([self.seed, 7, frame]))
        return apply_sensor(img, np.random.default_rng([self.seed, 8, frame]), self.effects)


# -- the match script ----------------------------------------------------------------------------
# The rolls of the three recorded rounds (one face per die: three route dice, then the junction die).
ROLLS = (
    ("highway_straight", "railway_curve", "railway_t", "station_straight"),
    ("railway_straight", "highway_curve", "highway_t", "station_curve"),
    ("highway_t", "railway_straight", "railway_curve", "overpass"),
)
NOT_ROLLED_ROUND = 0  # round 1: the player draws a route that is not in the roll
MISMATCH_JOIN_ROUND = 1  # round 2: a railway drawn onto a highway without a station
EARLY_DONE_ROUND = 2  # round 3: the tray is cleared before the routes are drawn
TOGETHER_ROUND = 2  # round 3: the last route is drawn and the tray cleared in one go


def _choose(state: Any, face: str, rng: np.random.Generator) -> Any:
    """A legal placement of `face` for player 0, picked by the seeded rng (the player's choice)."""
    options = list(state.legal_placements(0, [face]))
    return options[int(rng.integers(len(options)))] if options else None


def _illegal(state: Any, rule: str, pieces: list[str]) -> Any:
    """The first drawing of one of `pieces` the engine rules illegal under `rule`."""
    from engine.railroad_ink import Place
    from engine.railroad_ink.board import NEIGHBOURS
    from engine.railroad_ink.tiles import orientations

    cells = state.sheets[0].cells
    # squares beside a drawing first: the mistake is then plain to see on the sheet
    order = sorted(range(49), key=lambda c: not any(n >= 0 and cells[n] is not None for n in NEIGHBOURS[c]))
    for piece in pieces:
        for cell in order:
            if cells[cell] is not None:
                continue
            for sides in orientations(piece):
                action = Place(0, piece, cell // 7, cell % 7, sides)
                if state.judge(action).rule == rule:
                    return action
    raise RuntimeError(f"the script found no drawing of {pieces} breaking {rule}")


def build(out: Path, seed: int = 7) -> Path:
    import engine
    from datasets.demo_matches import Recorder
    from engine.railroad_ink import Done, Roll

    game = engine.get_game(GAME)
    rec = Recorder(out, GAME, ["Ann"], fps=6, frames_needed=2)
    cam = TableCamera(seed)
    rng = np.random.default_rng([seed, 9])
    state = game.new_state(players=1)
    drawn: dict[int, tuple[str, bool, int | None]] = {}
    frame = [0]

    def scene(tray: list[str], hold: int, note: str, extra: dict[int, Any] | None = None, **kw: Any) -> None:
        frame[0] += 1
        squares = drawn | (extra or {})
        rec.scene(cam.shot(TableScene(squares, list(tray), **kw), frame[0]), hold, note)

    def play(action: Any) -> Any:
        nonlocal state
        state, verdict = engine.step(state, action)
        rec.expect(action.notation(), verdict)
        return verdict

    def draw(action: Any, tray: list[str]) -> None:
        verdict = play(action)
        square = (action.sides, game_overpass(action.piece), state.round)
        if verdict.legal:
            drawn[action.cell] = square
            scene(tray, 2, f"drew {action.notation()}")
            return
        scene(tray, 2, f"drew {action.notation()}: illegal ({verdict.rule})", {action.cell: square})
        rec.incidents.append(f"round {state.round}: {action.notation()} is illegal ({verdict.rule}); erased")
        scene(tray, 2, f"erased the illegal drawing on {action.notation().split()[2]}")

    scene([], 2, "empty sheet, empty tray")
    for k, faces in enumerate(ROLLS):
        tray = list(faces)
        if k > 0:
            scene([], 1, "hand rolling the dice", hand=True)
        scene(tray, 2, f"round {k + 1} roll: {', '.join(faces)}")
        play(Roll(state.normalise_roll(sorted(faces))))  # a tray has no order: faces by name
        if k == EARLY_DONE_ROUND:  # the tray is cleared before anything is drawn: "if possible" rule
            scene([], 2, "tray cleared too early")
            play(Done(0))
            rec.incidents.append(f"round {k + 1}: tray cleared with routes still to draw "
                                 "(rri.dice.if-possible)")
            scene(tray, 2, "dice put back in the tray")
        for i, face in enumerate(faces):
            if k == NOT_ROLLED_ROUND and i == 1:
                spare = [p for p in ("highway_curve", "railway_straight", "highway_t") if p not in faces]
                draw(_illegal(state, "rri.roll.not-rolled", spare), tray)
            if k == MISMATCH_JOIN_ROUND and i == 0:
                draw(_illegal(state, "rri.connect.mismatch", [f for f in faces if f.startswith("railway")]),
                     tray)
            if k == MISMATCH_JOIN_ROUND and i == 1:  # a die knocked onto another face, then turned back
                knocked = ["railway_t" if f == face else f for f in tray]
                scene(knocked, 2, f"a die knocked from {face} to railway_t (mismatch)")
                rec.incidents.append(f"round {k + 1}: a die knocked onto another face: table-mismatch, "
                                     "turned back")
                rec.mismatches += 1
                scene(tray, 2, "the die turned back")
            if k == MISMATCH_JOIN_ROUND and i == 3:  # a note lying on the sheet: the referee waits
                scene(tray, 2, "a note covers part of the sheet (blocked)",
                      cover_mm=(70.0, 90.0, 130.0, 140.0))
            action = _choose(state, face, rng)
            if action is not None and k == TOGETHER_ROUND and i == len(faces) - 1:
                # the last route and the cleared tray settle together: the referee asks for the dice
                square = (action.sides, game_overpass(action.piece), state.round)
                scene([], 2, f"drew {action.notation()} and cleared the tray at once (mismatch)",
                      {action.cell: square})
                rec.incidents.append(f"round {k + 1}: last route drawn and tray cleared together: "
                                     "table-mismatch, dice put back")
                rec.mismatches += 1
                play(action)
                drawn[action.cell] = square
                scene(tray, 2, f"dice put back: {action.notation()} judged")
            elif action is not None:
                draw(action, tray)
        scene([], 2, f"round {k + 1}: tray cleared")
        play(Done(0))
    return rec.finish("Railroad Ink - Ann's sheet and the dice tray, three rounds, with illegal drawings",
                      {})


def game_overpass(piece: str) -> bool:
    from engine.railroad_ink.tiles import is_overpass

    return is_overpass(piece)
