"""Railroad Ink misses found on `eval match railroad-ink` tuning seeds (docs/benchmarks/
referee-accuracy.md, "Railroad Ink on more seeds"), each built from the simulated match's own frames:
the scene a move ends on, drawn as eval match draws it."""

from __future__ import annotations

from typing import Any

import numpy as np

from referee_app.commands.eval_match import make_setup, run_match, simulate
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


def test_a_die_under_glare_leaves_the_tray_unseen_not_the_sheet() -> None:
    # tuning seed 4: a glare streak over one die of round 1's roll makes it unreadable while G1 is
    # drawn; the unread die blocked the whole view, so the drawing was never judged (missed). Now the
    # tray alone is unseen (the decoder keeps the roll it saw) and the sheet is read.
    sim = simulate("railroad-ink", 4, make_setup("1280x720", 330, 10), max_moves=2)
    k = next(i for i, s in enumerate(sim.scenes) if s.checkpoint == 1)
    assert sim.scenes[k].glare and sim.moves[1].notation.endswith("G1 -HH-")
    obs = RailroadInkAdapter().read(shoot(sim, k))
    assert obs.blocked is None and TRAY in obs.unseen and obs.items["G1"] == "-HH-"
    result = run_match(sim)
    assert result["moves_right"] == 2 and result["false_mismatches"] == 0
