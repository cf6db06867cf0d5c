"""A wrong build shown, judged and taken back, and the frames around it (issue 19, branch tokyotake).

* seed 66 at 550/40, two cameras: the place kept from the illegal column (KeptPlaces) outlived its
  take-back (an illegal build leaves the match's state as it was) and put a build nobody made on the
  bare table there: the decoder's judging of an illegal build now makes the adapter forget it;
* seed 80: a road camera 2 read loose (its column missed) was added to camera 1's reading with its
  raised end put on the table, and judged off the roads in camera 1's picture ("loose reads 1").
"""

from __future__ import annotations

import numpy as np
from test_tokyo_referee import STARTED, play
from tokyo_poses import flat_maps, looking_calibration


# -- KeptPlaces: an illegal build judged ------------------------------------------------------------
def test_a_judged_illegal_builds_place_is_forgotten_and_not_kept_again() -> None:
    from referee_app.games.tokyo_builds import KeptPlaces, read_builds

    calib = looking_calibration(640, 360)
    state = play(*STARTED)
    kept = KeptPlaces()
    kept.of(state).extend([(-150.0, 50.0, 4.0), (150.0, 60.0, 4.0)])
    kept.forget(state, -148.0, 52.0, 30.0)
    # every place kept on the state goes (found while the illegal pieces stood: branch tokyoq7)
    assert kept.of(state) == [] and kept.barred(-150.0, 50.0) and not kept.barred(150.0, 60.0)
    # its column still stands until taken back: found and scored, but its place is not kept again
    observation = {"supports": [{"x_mm": -150.0, "y_mm": 50.0, "height": 2}]}
    belief = read_builds(state, calib, flat_maps(calib, 2.0), observation, 10.0, kept=kept)
    assert belief is not None and len(belief.belief) > 2
    assert all(np.hypot(x + 148.0, y - 52.0) >= 30.0 for x, y, _ in kept.of(state))
    # another state of the match: nothing judged on it
    after = play(*STARTED, "purple s1 -> (-150,50) h2")
    assert kept.of(after) == [] and not kept.barred(-148.0, 52.0)


def test_the_decoder_tells_the_adapter_an_illegal_build_was_judged() -> None:
    from engine.tokyo import Build, NewSupport
    from referee_app.decoder.candidates import act
    from referee_app.decoder.decide import Decoder, Ranked
    from referee_app.games.tokyo import TokyoAdapter

    adapter = TokyoAdapter()
    state = play(*STARTED)
    illegal = Build(2, NewSupport(200.0, -150.0, 3, True), player="green")  # out of turn: purple's move
    assert not state.judge(illegal).legal
    adapter._kept.of(state).append((199.0, -151.0, 4.0))
    cand = act(illegal, {"build": "x"})
    cand.legal, cand.score = False, 10.0
    decoder = Decoder(adapter)
    ex = decoder._decide(state, ("action", cand.label(), ()), {}, Ranked(cand, [cand], 10.0, 0.99))
    assert ex is not None and ex.action is illegal
    assert adapter._kept.of(state) == [] and adapter._kept.barred(205.0, -140.0)


# -- a loose stick added from another view ---------------------------------------------------------
def _on_table(calib, uv: tuple[float, float], z: float = 1.5) -> tuple[float, float, float]:
    """The point of the plane z where the camera's ray through pixel `uv` meets it."""
    cam = calib.camera
    K, R, t = np.asarray(cam.K, float), np.asarray(cam.R, float), np.asarray(cam.t, float)
    centre = -R.T @ t
    ray = R.T @ np.linalg.solve(K, np.array([uv[0], uv[1], 1.0]))
    s = (z - centre[2]) / ray[2]
    p = centre + s * ray
    return float(p[0]), float(p[1]), float(p[2])


def _project(calib, p) -> tuple[float, float]:
    uv, _ = calib.camera.project(np.array([p], float))
    return float(uv[0, 0]), float(uv[0, 1])


def test_a_loose_stick_from_another_view_is_judged_in_that_view() -> None:
    """Purple's road s1 (-150,-60) h1 -> s3 (-150,10) h3 junction, read loose by camera 2 (its columns missed):
    its ends put on the table lie off the road in camera 1's picture; in camera 2's, where it was
    read, it lies on the road."""
    from referee_app.games.tokyo import loose_off_roads

    c1 = looking_calibration(yaw=30.0)
    c2 = looking_calibration(yaw=210.0)  # across the table
    state = play(*STARTED, "purple s1 -> (-150,10) h3 junction")
    assert len(state.sticks) == 3  # the build was played
    low, high = (-150.0, -60.0, 10.0), (-150.0, 10.0, 30.0)
    seen2 = (_project(c2, low), _project(c2, high))  # camera 2's own pixels of the road
    ends_mm = (_on_table(c2, seen2[0]), _on_table(c2, seen2[1]))  # put on the table
    added = {"role": "loose", "endpoints": tuple(_project(c1, p) for p in ends_mm), "endpoints_mm": ends_mm}
    twin = {"role": "loose", "endpoints": seen2, "endpoints_mm": ends_mm}
    assert loose_off_roads({"sticks": [added]}, state, c1) == 1  # camera 1 alone: off its roads
    assert loose_off_roads({"sticks": [added]}, state, c1, [({"sticks": [twin]}, c2)]) == 0
    # a stick lying on bare table in both views still counts
    bare = ((60.0, 100.0, 1.5), (60.0, 200.0, 1.5))
    lying1 = {"role": "loose", "endpoints": tuple(_project(c1, p) for p in bare), "endpoints_mm": bare}
    lying2 = {"role": "loose", "endpoints": tuple(_project(c2, p) for p in bare), "endpoints_mm": bare}
    assert loose_off_roads({"sticks": [added, lying1]}, state, c1, [({"sticks": [twin, lying2]}, c2)]) == 1
