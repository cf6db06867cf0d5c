"""A Tokyo Highway build whose new column stands outside the picture (vision/tokyo/out_of_view.py,
referee_app/games/tokyo.py `_say_out_of_view`): the referee says the build is out of the camera's
view instead of missing it without a word, and says nothing of the kind when no build was made."""

from __future__ import annotations

import numpy as np
import pytest
from test_tokyo_referee import play

from referee_app.games.tokyo import TokyoAdapter
from vision.types import Frame


@pytest.fixture(scope="module")
def seed5():
    """Tuning seed 5 of `eval match tokyo-highway` at 550 mm / 40 degrees: its sixth move, green's
    p2 s4 -> (370,-60) h3, puts a column outside the frame (only the road's start from s4 shows)."""
    from datasets.match_sim import Setup
    from datasets.match_sim.tokyo import simulate

    sim = simulate(5, Setup(1280, 720, 550.0, 40.0, fov_deg=50.0))
    ph = sim.photographer
    assert sim.moves[5].notation == "p2 s4 -> (370,-60) h3"

    def still(move: int) -> np.ndarray:
        k = next(k for k, sc in enumerate(sim.scenes) if sc.checkpoint == move)
        return ph.expose(ph.light(sim.draw(sim.scenes[k].content, ph.pose), sim.scenes[k], k), 10 * k)

    before = play(*(m.notation for m in sim.moves[:5]))
    return before, still(4), still(5), sim.extra["calibration"]


def _notices(calibration, state, image):
    adapter = TokyoAdapter()
    adapter.use_calibration(calibration, step_mm=10.0)
    adapter.watch(state)
    adapter.read(Frame(image, 0.0, "test", 0))
    return [n for n in adapter.take_notices() if n[0] == "out-of-view"]


def test_a_build_outside_the_picture_is_said_to_be_out_of_view(seed5):
    state, _, built, calibration = seed5
    from vision.tokyo import TokyoCalibration

    column = TokyoCalibration.from_dict(calibration).camera.project(np.array([[370.0, -60.0, 30.0]]))[0][0]
    assert column[0] > 1280, "the new column's top is out of the frame"
    said = _notices(calibration, state, built)
    assert len(said) == 1, said
    _status, message, data = said[0]
    assert data["support"] == 4 and "outside the camera's view" in message
    assert abs((data["direction_deg"] + 180) % 360 - 180) <= 20  # s4 (260,-60) -> (370,-60): along +x


def test_nothing_is_said_of_a_table_as_the_match_left_it(seed5):
    state, unchanged, _, calibration = seed5
    assert _notices(calibration, state, unchanged) == []


def test_a_new_column_half_out_of_the_picture_is_said_to_be_at_the_edge():
    """Tuning seed 2 at 550/40, its seventh move p2 s4 -> (260,-180) h2: the column stands at the
    frame's bottom edge, read from its part in view two grid steps inside; the referee says so."""
    from datasets.match_sim import Setup
    from datasets.match_sim.tokyo import simulate

    sim = simulate(2, Setup(1280, 720, 550.0, 40.0, fov_deg=50.0))
    assert sim.moves[6].notation == "p2 s4 -> (260,-180) h2"
    ph = sim.photographer
    k = next(k for k, sc in enumerate(sim.scenes) if sc.checkpoint == 6)
    image = ph.expose(ph.light(sim.draw(sim.scenes[k].content, ph.pose), sim.scenes[k], k), 10 * k)
    said = _notices(sim.extra["calibration"], play(*(m.notation for m in sim.moves[:6])), image)
    assert len(said) == 1 and "edge of the camera's view" in said[0][1], said
