"""`camera check` against whole matches (issue 20): on the empty view of a simulated match the check
says true where `eval match` reads 99 % or more and false where it reads less (the dice road's
measured set-ups: docs/vision/localisation.md, "The check against whole matches"). Tuning seeds."""

from __future__ import annotations

import pytest

from referee_app.camera_setup import run_check
from referee_app.commands.eval_match import make_setup, simulate


def empty_view_check(camera: str, height: float, tilt: float, seed: int) -> dict:
    sim = simulate("highway-dice", seed, make_setup(camera, height, tilt))
    return run_check(next(iter(sim.frames())).image, "highway-dice")


def test_a_720p_camera_at_1000_mm_that_reads_every_move_is_inside():
    """Seed 2 at 1280x720 / 1000 mm / 0 degrees read 24/24; its edges spread over 1.06 mm, the pixels'
    own blur at 1.1 mm a pixel, and the old 1.05 mm limit said false."""
    report = empty_view_check("1280x720", 1000, 0, 2)
    assert report["sharpness"]["edge_blur_mm"] > 1.05 and report["smallest_die_face_px"] > 14
    assert report["inside_envelope"], report["reasons"]


@pytest.mark.parametrize("seed", [1, 2])
def test_a_720p_camera_at_1000_mm_and_30_degrees_is_outside(seed):
    """Its smallest die faces are about 10 px; whole matches there lose moves."""
    report = empty_view_check("1280x720", 1000, 30, seed)
    assert not report["inside_envelope"]
    assert any("smallest die face" in r for r in report["reasons"])
