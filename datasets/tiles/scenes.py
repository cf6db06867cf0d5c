"""Camera frames of the printed 4x4 board with pieces on it, with exact labels.

`grid_scene` draws a board position (plus optional faults: a piece off its cell, two pieces on one
cell) through the seeded camera of `datasets.camera` and returns the image, the realdata objects
(kind "tile") and the truth per cell: a number, None (empty), "unreadable" (a fault the reader must
refuse) or "any" (a borderline overlap either answer is fair for; evaluation skips it).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import cv2
import numpy as np

from datasets.camera import SheetObject, random_pose, render_sheet, table_texture
from datasets.tiles.tokens import HELD_OUT_FONTS, TRAIN_FONTS, Look, random_look, render_token
from drawing.canvas import RasterCanvas
from drawing.grid_sheet import draw_board, draw_piece
from vision.tiles import geometry as g

LOOKS = ("printed", "fonts", "held-out", "mixed")


@cache
def board_rgb(scale: float = 5.0) -> np.ndarray:
    c = RasterCanvas(*g.SHEET_MM, scale=scale)
    draw_board(c)
    return c.image[..., ::-1].copy()  # RGB


@cache
def printed_piece(number: int, scale: float = 10.0) -> np.ndarray:
    c = RasterCanvas(g.PIECE_MM, g.PIECE_MM, scale=scale)
    draw_piece(c, 0, 0, number)
    rgb = c.image[..., ::-1]
    return np.dstack([rgb, np.full(rgb.shape[:2], 255, np.uint8)])


def piece_top(rng: np.random.Generator, number: int, look: str) -> tuple[np.ndarray, float, bool]:
    """(RGBA top face, size in mm, is round) of a piece in one of the LOOKS."""
    if look == "mixed":
        look = LOOKS[int(rng.integers(3))]
    if look == "printed":
        return printed_piece(number), g.PIECE_MM, False
    fonts = HELD_OUT_FONTS if look == "held-out" else TRAIN_FONTS
    lk: Look = random_look(rng, number, fonts)
    return render_token(number, lk, 8.0), lk.size_mm, lk.shape == "round"


def _footprint(centre: tuple[float, float], size: float, angle: float, round_: bool) -> np.ndarray:
    if round_:
        t = np.linspace(0, 2 * np.pi, 32, endpoint=False)
        return np.column_stack([centre[0] + size / 2 * np.cos(t), centre[1] + size / 2 * np.sin(t)])
    a = np.radians(angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    local = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * size / 2
    return local @ rot.T + np.asarray(centre)


def _intersection(a: np.ndarray, b: np.ndarray) -> float:
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(area)


def _overlap(poly: np.ndarray, cell: str) -> float:
    cx, cy = g.cell_centre_mm(cell)
    h = g.CELL_MM / 2
    sq = np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]], np.float32)
    area, _ = cv2.intersectConvexConvex(poly.astype(np.float32), sq)
    return float(area)


def cell_truth(pieces: list[dict[str, Any]]) -> dict[str, Any]:
    """Per cell: number, None, "unreadable" or "any" from the pieces' footprints (see module doc)."""
    truth: dict[str, Any] = {}
    for cell in g.cell_names():
        sig, marginal = [], False
        for p in pieces:
            area = cv2.contourArea(p["poly"].astype(np.float32))
            f = _overlap(p["poly"], cell) / area
            if f > 0.2:
                sig.append((p, f))
            elif f > 0.04:
                marginal = True
        if marginal:
            truth[cell] = "any"
        elif not sig:
            truth[cell] = None
        elif len(sig) > 1:
            truth[cell] = "unreadable"
        else:
            p, f = sig[0]
            truth[cell] = p["number"] if f > 0.95 else ("unreadable" if f < 0.85 else "any")
    return truth


def grid_scene(
    board: dict[str, int],
    seed: int,
    look: str = "printed",
    faults: int = 0,
    effects: float = 1.0,
    out_size: tuple[int, int] = (1280, 720),
    tilt_deg: tuple[float, float] = (0.0, 35.0),
    frame: int = 0,
) -> tuple[np.ndarray, list[dict[str, Any]], dict[str, Any]]:
    """Render `board` ({cell: number}); `faults` extra pieces pushed off a cell or onto another piece.
    Camera pose and each piece's look, offset and turn depend only on `seed` (and the piece), so
    frames of one match share them; light and noise change with `frame`."""
    image, labelled, truth, _ = grid_scene_pieces(
        board, seed, look, faults, effects, out_size, tilt_deg, frame
    )
    return image, labelled, truth


def grid_scene_pieces(
    board: dict[str, int],
    seed: int,
    look: str = "printed",
    faults: int = 0,
    effects: float = 1.0,
    out_size: tuple[int, int] = (1280, 720),
    tilt_deg: tuple[float, float] = (0.0, 35.0),
    frame: int = 0,
) -> tuple[np.ndarray, list[dict[str, Any]], dict[str, Any], list[dict[str, Any]]]:
    """`grid_scene` plus the drawn pieces (number, centre and turn in sheet mm and degrees, look
    details), which the classifier's trainer needs to know each piece's true upright turn."""
    pose = random_pose(np.random.default_rng([seed, 1]), g.SHEET_MM, out_size, tilt_deg=tilt_deg)
    rng = np.random.default_rng([seed, 3, frame])
    pieces: list[dict[str, Any]] = []
    for cell, number in board.items():
        prng = np.random.default_rng([seed, 2, g.cell_names().index(cell), int(number)])
        top, size, round_ = piece_top(prng, int(number), look)
        # a piece lies flat: it cannot overlap its neighbours (pieces on top of others are faults)
        for _ in range(40):
            centre = tuple(np.asarray(g.cell_centre_mm(cell)) + prng.uniform(-2.5, 2.5, 2))
            angle = float(prng.uniform(0, 360))
            grown = _footprint(centre, size + 1.0, angle, round_)
            if all(_intersection(grown, p["poly"]) == 0 for p in pieces):
                break
        poly = _footprint(centre, size, angle, round_)
        pieces.append(
            {
                "number": int(number),
                "top": top,
                "size": size,
                "centre": centre,
                "round": round_,
                "angle": angle,
                "poly": poly,
            }
        )
    used = set(board.values())
    spare = [n for n in range(1, 17) if n not in used] or list(range(1, 17))
    for _ in range(faults):
        number = int(rng.choice(spare))
        top, size, round_ = piece_top(rng, number, look)
        if pieces and rng.random() < 0.5:  # onto another piece, partly covering it
            base = pieces[int(rng.integers(len(pieces)))]
            d = rng.uniform(7, 12)
        else:  # between cells
            base = {"centre": g.cell_centre_mm(g.cell_names()[int(rng.integers(16))])}
            d = rng.uniform(13, 18)
        a = rng.uniform(0, 2 * np.pi)
        centre = (base["centre"][0] + d * np.cos(a), base["centre"][1] + d * np.sin(a))
        pieces.append(
            {
                "number": number,
                "top": top,
                "size": size,
                "centre": centre,
                "round": round_,
                "angle": float(rng.uniform(0, 360)),
            }
        )
    objects = []
    for p in pieces:
        p["poly"] = _footprint(p["centre"], p["size"], p["angle"], p["round"])
        height = 0.0 if p["round"] else 2.0  # round tokens drawn flat: the camera model's sides are square
        objects.append(
            SheetObject(
                p["top"], p["centre"], (p["size"], p["size"]), p["angle"], height, side_bgr=(190, 200, 205)
            )
        )
    # contiguous copy: table_texture's flat colour comes back with broadcast strides OpenCV rejects
    table = np.ascontiguousarray(table_texture(np.random.default_rng([seed, 4]), out_size))  # same table
    image, boxes = render_sheet(
        board_rgb(), g.SHEET_MM, pose, rng=rng, background=table, objects=objects, effects=effects
    )
    labelled = [
        {
            "kind": "tile",
            "value": p["number"],
            "bbox": [round(float(v), 1) for v in b],
            "color": None,
            "endpoints": None,
        }
        for p, b in zip(pieces, boxes, strict=True)
    ]
    return image, labelled, cell_truth(pieces), pieces


def random_board(rng: np.random.Generator, fill: float | None = None) -> dict[str, int]:
    fill = rng.uniform(0.2, 1.0) if fill is None else fill
    cells = [c for c in g.cell_names() if rng.random() < fill]
    numbers = rng.permutation(np.arange(1, 17))[: len(cells)]
    return {c: int(n) for c, n in zip(cells, numbers, strict=True)}


def render_grid_frame(
    board: dict[str, int],
    seed: int = 0,
    look: str = "printed",
    effects: float = 0.6,
    out_size: tuple[int, int] = (1280, 720),
    frame: int = 0,
) -> np.ndarray:
    """A BGR camera frame of the board holding `board` ({cell: number}), for recorded matches.
    The same seed gives the same camera pose, so a match's frames come from one steady camera, and
    a piece keeps its turn and offset from frame to frame; light and noise vary with `frame`."""
    image, _, _ = grid_scene(board, seed, look, 0, effects, out_size, tilt_deg=(0.0, 25.0), frame=frame)
    return image
