"""Railroad Ink misses found on `eval match railroad-ink` tuning seeds (docs/benchmarks/
referee-accuracy.md, "Railroad Ink on more seeds"), each built from the simulated match's own frames:
the scene a move ends on, drawn as eval match draws it."""

from __future__ import annotations

from typing import Any

import numpy as np

from referee_app.commands.eval_match import make_setup, simulate
from referee_app.games.railroad_ink import TRAY, RailroadInkAdapter


def shoot(sim: Any, k: int, frame: int = 0) -> np.ndarray:
    """Frame `frame` of scene `k` of a simulated match, with the camera where it stands now."""
    scene = sim.scenes[k]
    still = sim.photographer.light(sim.draw(scene.content, sim.photographer.pose), scene, k)
    return sim.photographer.expose(still, 1000 * k + frame)


def test_a_knock_that_pushes_two_tray_markers_out_of_view_keeps_the_tray() -> None:
    # tuning seed 3 (1280x720 / 330 mm / 10 degrees): the camera knocked before round 4's roll leaves
    # only the tray's two left markers in the frame, which cannot place it alone (one edge); every
    # move after it was missed ("the dice tray is not in view"). The tray's last calibration moved
    # as those two markers moved places it.
    sim = simulate("railroad-ink", 3, make_setup("1280x720", 330, 10))
    k = next(i for i, s in enumerate(sim.scenes) if s.bump)
    adapter = RailroadInkAdapter()
    assert adapter.read(shoot(sim, k - 1)).blocked is None
    sim.photographer.bump()
    after = shoot(sim, k)
    assert RailroadInkAdapter().read(after).blocked  # a fresh view cannot place the tray
    obs = adapter.read(after)
    assert obs.blocked is None
    roll = sim.moves[sim.scenes[k].checkpoint].notation.split()[1:]
    assert obs.items[TRAY] == tuple(sorted(roll))
