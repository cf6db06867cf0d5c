"""Places a new column is tried around from the other views' own readings, where camera 1's picture
does not hold the column (referee_app.games.tokyo_builds.build_spots' `readings`, issue 19, branch
tokyo116). The views' fusion keeps a column or road only another camera reads where camera 1 shows
pieces along it, so a build outside camera 1's picture was tried only around grey blobs: tuning seed
90's seventh move at 550/40, two cameras (a column at the table's far-left edge) was missed."""

from __future__ import annotations

import numpy as np
from test_tokyo_referee import STARTED, play
from tokyo_poses import calibrated_adapter, flat_maps, looking_calibration, scene_shots


def test_another_views_column_is_a_place_only_outside_camera_1s_picture() -> None:
    from referee_app.games.tokyo_builds import build_spots, column_in_view

    calib = looking_calibration(640, 360)
    state = play(*STARTED)
    maps = flat_maps(calib, -2.0)
    known = np.zeros(maps.grey.shape, np.uint8)
    inside, outside = (0.0, 60.0), (-900.0, 60.0)
    assert column_in_view(calib, *inside, 1) and not column_in_view(calib, *outside, 1)
    reading = {"supports": [{"x_mm": x, "y_mm": y, "height": 2} for x, y in (inside, outside)], "sticks": []}
    spots = build_spots(state, calib, maps, known, {}, frozenset(), step=10.0, readings=[(reading, frozenset())])
    assert [(x, y) for x, y, _ in spots] == [outside]
    # a support of that reading judged a phantom (no grey body in its picture) gives no place
    assert build_spots(state, calib, maps, known, {}, frozenset(), step=10.0,
                       readings=[(reading, frozenset({1}))]) == []


def test_tuning_seed_90s_seventh_move_is_read_from_camera_2s_place(tmp_path) -> None:
    """Seed 90 at 550/40, two cameras (the default second camera): purple's `s3 -> (-330,-60) h2`
    from (-240,-10), outside camera 1's picture; camera 2 reads the column at (-327.7,-59.9). Main
    tried only camera 2's grey blobs, 30 mm off, and led with (-310,-50) and (-320,-40)."""
    from referee_app.commands.eval_match import make_setup, simulate
    from referee_app.games.tokyo_builds import likeliest_build
    from vision.sources import OtherView, PairedFrame

    move = 6
    sim = simulate("tokyo-highway", 90, make_setup("1280x720", 550, 40, fov=50.0, cameras=2))
    assert sim.moves[move].notation == "p1 s3 -> (-330,-60) h2" and sim.moves[move].legal
    scene = next(k for k, sc in enumerate(sim.scenes) if sc.checkpoint == move)
    index, (first, second) = scene_shots(sim, scene)
    adapter = calibrated_adapter(sim, tmp_path)
    adapter.watch(play(*(m.notation for m in sim.moves[:move] if m.legal)))
    adapter.read(PairedFrame(first, 0.0, "sim", index, others=[OtherView(second, "sim:camera2")]))
    best = likeliest_build(adapter._builds)
    assert (best.support.x, best.support.y, best.support.height) == (-330.0, -60.0, 2)
    assert adapter._builds.belief["(-330,-60) h2 from (-240,-10)"] > 0.5
