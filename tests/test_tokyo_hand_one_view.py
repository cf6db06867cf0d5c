"""Several cameras (issue 19, branch tokyo2c): a hand or large object that only camera 1 sees leaves the
builds to the cameras that show none (TokyoAdapter._past_a_hand); one camera is as it was. The object
was seed 40's lamp halo in camera 1's picture until the halo stopped counting as one (branch tokyo750,
tests/test_tokyo_halo_no_hand.py); a skin-coloured disc painted over it stands in for it now."""

from __future__ import annotations

import pytest
from test_tokyo_referee import play
from tokyo_poses import AT_550

from referee_app.games.tokyo import TokyoAdapter
from referee_app.games.tokyo_builds import likeliest_build
from vision.sources import OtherView, PairedFrame

SKIN = (120, 150, 230)  # BGR: a resting hand's colour over the blue mat


def _with_object(image):
    """`image` with a still skin-coloured object over camera 1's halo (the same place every frame)."""
    import cv2

    out = image.copy()
    cv2.circle(out, (776, 182), 60, SKIN, -1)
    return out


@pytest.fixture(scope="module")
def seed40():
    """Tuning seed 40's first move, purple's start road, filmed by both cameras: camera 1's picture
    holds the lamp's halo, which its reader takes for a hand or large object in every frame."""
    from datasets.match_sim import Setup
    from datasets.match_sim.tokyo import simulate

    sim = simulate(40, Setup(1280, 720, 550.0, 40.0, fov_deg=50.0, cameras=2, second=AT_550), turns=1)
    assert sim.moves[0].notation == "purple start (-150,-60) table (-150,-170)"
    k = next(k for k, sc in enumerate(sim.scenes) if sc.checkpoint == 0)

    def stills(ph):  # two frames of the scene, each with its own sensor noise
        lit = ph.light(sim.draw(sim.scenes[k].content, ph.pose), sim.scenes[k], k)
        return [ph.expose(lit, 10 * k + n) for n in range(2)]

    return sim, stills(sim.photographer), stills(sim.others[0])


def test_a_hand_only_camera_1_sees_leaves_the_builds_to_the_clear_camera(seed40):
    """Main's code before tokyo2c blocked the frame (with the halo: every frame, all ten moves missed)."""
    from vision.types import Frame

    sim, first, second = seed40
    first = [_with_object(a) for a in first]
    adapter = TokyoAdapter()
    adapter.use_calibration(sim.extra["calibration"], step_mm=10.0)
    adapter.use_camera_calibration(2, sim.extra["other_calibrations"][0])
    adapter.watch(play())
    # the first frame showing it is blocked (a hand is a hand until it stays put), the next is read
    seen = [adapter.read(PairedFrame(a, 0.0, "test", n, others=[OtherView(b, "test:camera2")]))
            for n, (a, b) in enumerate(zip(first, second, strict=True))]
    assert seen[0].blocked is not None and seen[1].blocked is None
    assert likeliest_build(adapter._builds).notation() == "purple start (-150,-60) table (-150,-170)"
    alone = TokyoAdapter()  # one camera: the frame stays blocked, as it was
    alone.use_calibration(sim.extra["calibration"], step_mm=10.0)
    alone.watch(play())
    assert all(alone.read(Frame(a, 0.0, "test", n)).blocked is not None for n, a in enumerate(first))


def test_the_clear_views_read_with_the_kept_places_and_no_knock(seed40, monkeypatch):
    """_past_a_hand once passed the kept places where read_builds takes `knocked` (and no `kept`): a
    still camera read as if knocked, its residual shifts searched, and the places kept over the
    state's frames never tried past a hand."""
    import inspect

    from referee_app.games import tokyo as tokyo_module

    sim, first, second = seed40
    first = [_with_object(a) for a in first]
    real = tokyo_module.read_builds
    calls = []

    def spy(*args, **kwargs):
        bound = inspect.signature(real).bind(*args, **kwargs)
        bound.apply_defaults()
        calls.append((bound.arguments["knocked"], bound.arguments["kept"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(tokyo_module, "read_builds", spy)
    adapter = TokyoAdapter()
    adapter.use_calibration(sim.extra["calibration"], step_mm=10.0)
    adapter.use_camera_calibration(2, sim.extra["other_calibrations"][0])
    adapter.watch(play())
    for n, (a, b) in enumerate(zip(first, second, strict=True)):
        adapter.read(PairedFrame(a, 0.0, "test", n, others=[OtherView(b, "test:camera2")]))
    assert calls, "the clear camera read no builds"
    assert all(knocked is False and kept is adapter._kept for knocked, kept in calls)


def test_camera_1_alone_reads_past_the_halo(seed40):
    """The halo alone is no hand (main's code blocked every one-camera frame of this match)."""
    from vision.types import Frame

    sim, first, _ = seed40
    alone = TokyoAdapter()
    alone.use_calibration(sim.extra["calibration"], step_mm=10.0)
    alone.watch(play())
    assert all(alone.read(Frame(a, 0.0, "test", n)).blocked is None for n, a in enumerate(first))
    # a build is read (one camera places this start column a grid step off; two cameras place it right)
    assert likeliest_build(alone._builds).notation().startswith("purple start (-150,")
