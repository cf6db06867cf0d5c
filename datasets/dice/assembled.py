"""Synthetic views of a dice-road board printed in tiles and taped together (print highway-dice
--paper): each page cut along its tile's edges, the tiles laid on a table with gaps of a few
millimetres and small turns, dice standing across and beside the seams. Used by
tests/test_print_paper.py and bench/dice_board_tiles.py (docs/formats/printing-tiles.md)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.tiled import TiledSheet

TABLE_RGB = (96, 70, 52)  # a wooden table showing through the gaps


@dataclass
class Assembled:
    image: np.ndarray  # RGB, the tiles on the table, `px_per_mm` px per mm
    size_mm: tuple[float, float]
    moves: dict[str, tuple[np.ndarray, np.ndarray]]  # tile -> (turn, shift): board mm -> assembled mm
    plan: TiledSheet

    def where(self, x: float, y: float) -> tuple[float, float]:
        """Where board point (x, y) mm lies once its tile is laid down."""
        tile = next((t for t in self.plan.tiles if t.contains(x, y)), self.plan.tiles[0])
        turn, shift = self.moves[tile.name]
        p = turn @ np.array([x, y]) + shift
        return float(p[0]), float(p[1])


def assemble(pages: dict[str, np.ndarray], plan: TiledSheet, on_page_mm: dict[str, tuple[float, float]],
             px_per_mm: float, rng: np.random.Generator, gap_mm: tuple[float, float] = (2.0, 3.0),
             turn_deg: float = 0.8, row_slip_mm: float = 0.0) -> Assembled:
    """`pages`: tile name -> its page as RGB at `px_per_mm`; `on_page_mm`: where each tile's top-left
    corner lies on its page. Gaps between neighbouring columns and rows are drawn from `gap_mm`, each
    tile's turn about its centre from +-`turn_deg`, and each row of tiles slides sideways against the
    others by up to +-`row_slip_mm` (the gaps within a row stay as drawn)."""
    rows = max(int(t.name[1:].split("c")[0]) for t in plan.tiles)
    cols = max(int(t.name.split("c")[1]) for t in plan.tiles)
    gx, gy = rng.uniform(*gap_mm, cols), rng.uniform(*gap_mm, rows)
    slip = rng.uniform(-row_slip_mm, row_slip_mm, rows) if row_slip_mm else np.zeros(rows)
    slip -= slip.min()  # every row stays on the canvas
    pad = 4.0
    size = (plan.width_mm + gx.sum() + slip.max() + pad, plan.height_mm + gy.sum() + pad)
    canvas = np.empty((round(size[1] * px_per_mm), round(size[0] * px_per_mm), 3), np.uint8)
    canvas[:] = TABLE_RGB
    moves = {}
    for tile in plan.tiles:
        r, c = (int(v) - 1 for v in tile.name[1:].split("c"))
        x0, y0, x1, y1 = tile.rect
        ox, oy = on_page_mm[tile.name]
        page = pages[tile.name]
        crop = page[round(oy * px_per_mm):round((oy + y1 - y0) * px_per_mm),
                    round(ox * px_per_mm):round((ox + x1 - x0) * px_per_mm)]
        a = math.radians(rng.uniform(-turn_deg, turn_deg))
        turn = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
        shift = centre + np.array([pad / 2 + gx[:c].sum() + slip[r], pad / 2 + gy[:r].sum()]) - turn @ centre
        moves[tile.name] = (turn, shift)
        # crop pixel -> board mm -> assembled mm -> assembled pixel
        m = np.hstack([turn, (turn @ np.array([x0, y0]) + shift)[:, None] * px_per_mm])
        warped = cv2.warpAffine(crop, m, canvas.shape[1::-1], flags=cv2.INTER_LINEAR)
        mask = cv2.warpAffine(np.full(crop.shape[:2], 255, np.uint8), m, canvas.shape[1::-1])
        canvas[mask > 127] = warped[mask > 127]
    return Assembled(canvas, size, moves, plan)


# cells beside the seams of the default board's 2 x 3 tiles (x = 198 and 396 run between cells; y = 210
# cuts the roundabout's middle row), each with a die value and the seat colour
SEAM_CELLS = [("W13", 1, "white"), ("W-F1", 3, "white"), ("B13", 2, "blue"), ("B-F1", 4, "blue"),
              ("G17", 5, "green"), ("G-D1", 1, "green"), ("Y17", 6, "yellow"), ("Y16", 2, "yellow"),
              ("R21", 4, "blue"), ("R23", 3, "green")]
SEATS = {"white": 0, "blue": 1, "green": 2, "yellow": 3}


def seam_dice(board, where: Callable[[float, float], tuple[float, float]]) -> list[dict]:
    """The dice of SEAM_CELLS, a 6 in Blue's pool (across the middle seam) and a 5 and a 2 in the tray,
    placed through `where` (board mm -> sheet mm)."""

    def die(x: float, y: float, value: int, colour: str, angle: float) -> dict:
        return {"x_mm": x, "y_mm": y, "value": value, "color": colour, "size_mm": 16.0, "angle": angle}

    dice = [die(*where(board.cells[c].x, board.cells[c].y), v, col, 9 * v) for c, v, col in SEAM_CELLS]
    pool = board.pools[1]
    dice.append(die(*where(pool.x + pool.w / 2, pool.y + pool.h / 2), 6, "blue", 30))
    t = board.tray
    dice += [die(*where(t.x + 30, t.y + 50), 5, "white", 40), die(*where(t.x + 75, t.y + 60), 2, "white", 70)]
    return dice


def seam_expected() -> dict[str, object]:
    """What the board reader should report for `seam_dice` (its zone keys)."""
    want: dict[str, object] = {f"cell:{c}": (v, SEATS[col]) for c, v, col in SEAM_CELLS}
    want["pool:1"] = 6
    want["tray"] = (2, 5)
    return want


def photograph(sheet_rgb: np.ndarray, size_mm: tuple[float, float], dice: list[dict],
               seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The sheet empty and with `dice`, from one camera 850-900 mm above it (tilt 3-7 degrees,
    1280 x 720, the sheet filling most of the frame), on a table texture; both BGR."""
    from datasets.camera import random_pose, table_texture
    from datasets.dice.scenes import render_dice_on_sheet

    pose = random_pose(np.random.default_rng(seed), size_mm, (1280, 720), height_mm=(850, 900),
                       tilt_deg=(3, 7), yaw_deg=(-3, 3), fill=(0.93, 0.96))
    table = np.ascontiguousarray(table_texture(np.random.default_rng(seed + 1), (1280, 720)))

    def shoot(ds: list[dict]) -> np.ndarray:
        return render_dice_on_sheet(sheet_rgb, size_mm, ds, pose, rng=np.random.default_rng(seed + 2),
                                    effects=0.3, background=table)[0]

    return shoot([]), shoot(dice)
