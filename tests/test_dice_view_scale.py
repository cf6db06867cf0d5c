"""Issue 20: a 4K camera reads the dice road at least as well as a 1080p one. The zone reader's
pixel-valued steps were tuned at the 2 px/mm views 720p and 1080p cameras get; a finer camera's views
are read at that same resolution (vision.board3d.MAX_VIEW_PPM), not at its own."""

from __future__ import annotations

import numpy as np

from datasets.match_sim.core import Scene
from referee_app.commands.eval_match import make_setup, simulate
from referee_app.games.dice import TRAY, BoardDiceReader
from vision.board3d import view_px_per_mm


def _camera(size: str):
    """Tuning seed 1's camera of `eval match` at `size`, 850 mm, 30 degrees: (draw a table, board)."""
    sim = simulate("highway-dice", 1, make_setup(size, 850, 30))
    ph = sim.photographer

    def shoot(dice: list[dict], k: int) -> np.ndarray:
        return ph.expose(ph.light(sim.draw(dice, ph.pose), Scene(dice, 1), k), k)

    return shoot


def _tray_dice(values: tuple[int, int], colour: str = "white") -> list[dict]:
    from engine.dice_road import load_board

    t = load_board().tray
    return [{"x_mm": t.x + t.w * (0.3 + 0.4 * k), "y_mm": t.y + t.h * 0.5 + 6 * (1 - 2 * k), "value": v,
             "color": colour, "size_mm": 16.0, "angle": 20.0 + 30 * k} for k, v in enumerate(values)]


def test_view_resolution_is_capped_at_two_px_per_mm():
    class Fine:  # a camera seeing 2.6 px/mm at the dice's tops (4K at 850 mm), or 4.4 (4K at 500 mm)
        def __init__(self, ppm: float) -> None:
            self.ppm = ppm

        def px_per_mm(self, points, height):
            return np.full(len(points), self.ppm)

    centres = np.zeros((3, 2))
    assert view_px_per_mm(Fine(2.6), centres) == 2.0
    assert view_px_per_mm(Fine(4.4), centres) == 2.0
    assert view_px_per_mm(Fine(1.3), centres) == 2.0  # 1080p at 850 mm: the floor, as before


def test_a_4k_camera_reads_the_tray_through_the_views_1080p_gets():
    values = (4, 4)  # report seed 105's roll at 4K (lost there, from that move on: not tuned on it)
    shoot = _camera("3840x2160")
    reader = BoardDiceReader(reuse=False)
    reader.read(shoot([], 0))  # the empty board is learned
    assert reader.px_per_mm == 2.0  # main: 2.5, the camera's own
    obs = reader.read(shoot(_tray_dice(values), 1))
    assert obs.items.get(TRAY) == tuple(sorted(values))
