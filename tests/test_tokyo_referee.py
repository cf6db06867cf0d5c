"""The Tokyo Highway camera side of the referee: reading -> stable signature -> move, bad views, and
the referee loop on rendered frames from one fixed calibrated camera."""

from __future__ import annotations

import json

import pytest

import engine
from referee_app import demo_tokyo as dt
from referee_app import events
from referee_app.games import get_adapter
from referee_app.games.base import Observation
from referee_app.games.tokyo import (
    TableRead,
    TokyoAdapter,
    engine_reading,
    load_calibration,
    signature,
    table_read,
)
from vision.types import Frame

GAME = engine.get_game("tokyo-highway")


def play(*moves: str):
    state = GAME.new_state()
    for m in moves:
        action = dt.seen_action(state, m)
        state = state.apply(action, state.judge(action))
    return state


STARTED = ("purple start (-150,-60) table (-150,-170)", "green start (150,-60) table (150,-170)")


def obs_dict(supports, sticks, warnings=()):
    """A reader observation as TokyoObservation.to_dict() gives it (only the fields used)."""
    return {"calibrated": True, "warnings": list(warnings), "cars": [], "crossings": [],
            "supports": [{"x_mm": x, "y_mm": y, "height": h, "junction": j, "confidence": 0.95,
                          "height_confidence": 0.8, "top_px": (0.0, 0.0)} for x, y, h, j in supports],
            "sticks": [{"endpoints_mm": [[*a, 0.0], [*b, 0.0]], "endpoints": [(0.0, 0.0), (1.0, 1.0)],
                        "rests": list(r), "role": role, "color": "natural", "confidence": 0.9,
                        "width_px": 8.0} for a, b, r, role in sticks]}


def explain(adapter: TokyoAdapter, state, obs: dict):
    table = table_read(obs, 10.0)
    adapter._latest[table.signature] = table
    return adapter.explain(state, Observation(dict(table.signature)))


def started_sticks():
    return [((-150.0, -168.0), (-152.0, -50.0), (None, 0), "road"), ((151.0, -171.0), (150.0, -52.0), (None, 1), "road")]


def test_a_new_road_reads_as_the_build_with_rounded_positions():
    state = play(*STARTED)
    obs = obs_dict([(-151.2, -61.8, 1, False), (148.9, -58.7, 1, False), (-62.3, -8.4, 2, False)],
                   [*started_sticks(), ((-143.0, -64.0), (-55.0, -5.0), (0, 2), "road")])
    ex = explain(TokyoAdapter(), state, obs)
    assert ex.mismatch is None and ex.action is not None
    assert ex.action.notation() == "purple s1 -> (-60,-10) h2"
    assert state.judge(ex.action).legal
    assert ex.cells == ["s1"]


def test_an_illegal_build_is_read_and_judged_must_correct():
    state = play(*STARTED)
    obs = obs_dict([(-151.2, -61.8, 1, False), (148.9, -58.7, 1, False), (-62.3, -8.4, 3, False)],
                   [*started_sticks(), ((-143.0, -64.0), (-55.0, -5.0), (0, 2), "road")])
    ex = explain(TokyoAdapter(), state, obs)
    verdict = state.judge(ex.action)
    assert not verdict.legal and verdict.rule == "tokyo.height"
    assert verdict.consequence == engine.Consequence.MUST_CORRECT


def test_the_table_as_the_match_left_it_is_no_move_and_a_bare_column_waits_for_its_road():
    state = play(*STARTED)
    adapter = TokyoAdapter()
    same = obs_dict([(-151.2, -61.8, 1, False), (148.9, -58.7, 1, False)], started_sticks())
    ex = explain(adapter, state, same)
    assert ex.action is None and ex.mismatch is None and not ex.candidates
    column = obs_dict([(-151.2, -61.8, 1, False), (148.9, -58.7, 1, False), (-62.3, -8.4, 2, False)],
                      started_sticks())
    ex = explain(adapter, state, column)
    assert ex.action is None and ex.mismatch is None


def test_a_knocked_road_and_a_fallen_column_are_table_mismatches_not_crashes():
    state = play(*STARTED)
    adapter = TokyoAdapter()
    loose = obs_dict([(-151.2, -61.8, 1, False), (148.9, -58.7, 1, False)],
                     [started_sticks()[0], ((100.0, -200.0), (200.0, -200.0), (None, None), "loose")])
    ex = explain(adapter, state, loose)
    assert ex.action is None and ex.mismatch.startswith("the table disagrees with the match:")
    assert "missing" in ex.mismatch and "loose" in ex.mismatch
    fallen = obs_dict([(-151.2, -61.8, 1, False), (148.9, -58.7, 1, False)], started_sticks(),
                      warnings=["grey piece near (10, 10) px is no upright column (knocked over?)"])
    ex = explain(adapter, state, fallen)
    assert "knocked over" in ex.mismatch


def test_two_new_roads_at_once_become_a_mismatch_message():
    state = play(*STARTED)
    obs = obs_dict([(-151.2, -61.8, 1, False), (148.9, -58.7, 1, False), (-62.3, -8.4, 2, False),
                    (60.0, -10.0, 2, False)],
                   [*started_sticks(), ((-143.0, -64.0), (-55.0, -5.0), (0, 2), "road"),
                    ((143.0, -64.0), (55.0, -5.0), (1, 3), "road")])
    ex = explain(TokyoAdapter(), state, obs)
    assert ex.action is None and "2 new sticks" in ex.mismatch


def test_an_unsure_support_asks_the_players_to_confirm_with_other_heights():
    state = play(*STARTED)
    obs = obs_dict([(-151.2, -61.8, 1, False), (148.9, -58.7, 1, False), (-62.3, -8.4, 2, False)],
                   [*started_sticks(), ((-143.0, -64.0), (-55.0, -5.0), (0, 2), "road")])
    obs["supports"][2]["confidence"] = 0.3
    ex = explain(TokyoAdapter(), state, obs)
    assert ex.action is None
    names = [a.notation() for a, _ in ex.candidates]
    assert names == ["purple s1 -> (-60,-10) h2", "purple s1 -> (-60,-10) h1", "purple s1 -> (-60,-10) h3"]


def test_engine_reading_puts_road_ends_on_their_columns_and_drops_stray_colours():
    state = play(*STARTED)
    obs = obs_dict([(-151.2, -61.8, 1, False)], [((-150.0, -168.0), (-150.0, -45.0), (None, 0), "road")])
    obs["sticks"][0]["color"] = "orange"
    out = engine_reading(TableRead(signature({}), obs, 0, 10.0), state)
    assert out["sticks"][0]["color"] is None  # nobody plays orange: plain wood
    (ax, ay, _), (bx, by, _) = out["sticks"][0]["endpoints_mm"]
    assert (bx, by) == (-150.0, -60.0)  # snapped onto the column, which is rounded to the grid
    assert (ax, ay) == (-150.0, -170.0)


def test_signature_ignores_millimetre_noise_and_expected_matches_the_engine_table():
    a = table_read(obs_dict([(-151.2, -61.8, 1, False)], []), 10.0)
    b = table_read(obs_dict([(-149.1, -63.0, 1, False)], []), 10.0)
    assert a.signature == b.signature
    state = play(*STARTED)
    assert TokyoAdapter().expected(state) == {"supports": 2, "heights": (1, 1), "junctions": 0, "roads": 2,
                                              "loose": 0, "fallen": 0}


def test_calibration_errors_name_the_file(tmp_path):
    bad = tmp_path / "cal.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="cal.json is not JSON"):
        load_calibration(bad)
    bad.write_text(json.dumps({"camera": {"K": [[1]]}}))
    with pytest.raises(ValueError, match="cal.json"):
        load_calibration(bad)
    with pytest.raises(ValueError, match="cannot read"):
        load_calibration(tmp_path / "missing.json")


def test_a_frame_without_calibration_is_unreadable_with_a_clear_reason(monkeypatch):
    from vision.types import VisionError

    monkeypatch.delenv("HIGHWAY_TOKYO_CALIBRATION", raising=False)
    import numpy as np

    with pytest.raises(VisionError, match="calibration"):
        TokyoAdapter().read(Frame(np.zeros((48, 64, 3), np.uint8), 0.0, "camera:0", 0))


# -- rendered frames through the adapter and the referee loop --------------------------------------
@pytest.fixture(scope="module")
def rendered():
    """A few frames from the demo's fixed camera: the start roads, then purple's first road, a
    wrong one (two columns higher than its base) and a hand over the table."""
    from datasets.demo_matches import add_hand
    from datasets.tokyo.render import render_tokyo_frame
    from vision.tokyo import PieceSizes, TokyoCalibration

    camera = dt.demo_camera()

    def shot(scene):
        return render_tokyo_frame(scene, dt.SEED, camera=camera, table="mat", hand=False, glare=False)[0]

    s0 = GAME.new_state()
    s1 = play(STARTED[0])
    s2 = play(*STARTED)
    legal = dt.seen_action(s2, "purple s1 -> (-60,-10) h2")
    wrong = dt.seen_action(s2, "purple s1 -> (-60,-10) h3")
    import numpy as np

    frames = {"empty": shot(dt.scene_from_state(s0)), "start": shot(dt.scene_from_state(s1)),
              "started": shot(dt.scene_from_state(s2)),
              "build": shot(dt.scene_from_state(s2.apply(legal, s2.judge(legal)))),
              "wrong": shot(dt.with_build(dt.scene_from_state(s2), s2, wrong))}
    frames["hand"] = add_hand(frames["started"], np.random.default_rng(3))
    return frames, TokyoCalibration(camera, PieceSizes())


def test_rendered_frames_read_as_moves(rendered):
    frames, calib = rendered
    adapter = TokyoAdapter()
    adapter.use_calibration(calib, step_mm=10.0)
    state = play(STARTED[0])
    obs = adapter.read(Frame(frames["started"], 0.0, "test", 0))
    assert obs.blocked is None and obs.annotated is not None
    ex = adapter.explain(state, obs)
    assert ex.action is not None and ex.action.notation() == STARTED[1]
    state = play(*STARTED)
    ex = adapter.explain(state, adapter.read(Frame(frames["build"], 0.0, "test", 1)))
    assert ex.action is not None and ex.action.notation() == "purple s1 -> (-60,-10) h2"
    assert state.judge(ex.action).legal


def test_a_hand_over_the_table_blocks_the_view(rendered):
    frames, calib = rendered
    adapter = TokyoAdapter()
    adapter.use_calibration(calib)
    obs = adapter.read(Frame(frames["hand"], 0.0, "test", 0))
    assert obs.blocked and "hand" in obs.blocked


def test_the_referee_loop_judges_rendered_frames(rendered, tmp_path):
    from referee_app.hub import Hub
    from referee_app.loop import RefereeLoop
    from referee_app.store import MatchStore

    frames, calib = rendered
    adapter = get_adapter("tokyo-highway")
    assert adapter.has_reader
    adapter.use_calibration(calib, step_mm=10.0)
    try:
        hub = Hub(MatchStore(tmp_path))
        seen = []
        hub.bus.subscribe(seen.append)
        session = hub.create_match("tokyo-highway", ["Ann", "Bo"], {})
        script = ["started", "started", "hand", "build", "build"]
        stream = [Frame(frames[k], float(i), "test", i) for i, k in enumerate(script)]
        # the start roads are entered by hand (typed moves go through the same referee)
        for move in STARTED:
            session.submit(GAME.parse_action(move), source="manual", confidence=1.0)
        loop = RefereeLoop(hub, session, adapter, stream, frames_needed=2, publish_video=False)
        loop.run()
        hub.bus.drain()
        got = [(p.action.notation(), p.source, p.verdict.legal) for p in session.played]
        assert got[-1] == ("purple s1 -> (-60,-10) h2", "vision", True)
        assert loop.stats.unreadable == 0
        assert not [e for e in seen if e.kind == events.MISMATCH]
    finally:
        adapter.use_calibration(None)


# -- calibrating a camera from the printed mat ------------------------------------------------------
def mat_photo(camera, size=(420.0, 297.0), scale=3.0):
    """The printed mat as `camera` sees it lying on the table (world frame: the mat's centre)."""
    import cv2
    import numpy as np

    from drawing.canvas import RasterCanvas
    from drawing.tokyo_mat import draw_mat

    w, h = size
    canvas = RasterCanvas(w, h, scale=scale)
    draw_mat(canvas, w, h)
    sheet = cv2.cvtColor(canvas.image, cv2.COLOR_RGB2BGR)
    to_world = np.array([[1 / scale, 0, -w / 2], [0, -1 / scale, h / 2], [0, 0, 1]])
    H = camera.table_homography() @ to_world
    return cv2.warpPerspective(sheet, H, (camera.width, camera.height), borderValue=(90, 110, 130))


def test_the_mat_markers_calibrate_the_camera_with_or_without_a_focal_length(tmp_path):
    import numpy as np

    from datasets.tokyo.camera import camera_looking_at
    from referee_app.commands.tokyo_calibrate import calibrate_from_mat

    truth = camera_looking_at((10.0, -20.0, 0.0), 650.0, 35.0, 15.0, 55.0, 1280, 720)
    photo = mat_photo(truth)
    for focal in (None, float(truth.K[0, 0])):
        calib, error = calibrate_from_mat(photo, (420.0, 297.0), focal)
        assert error < 1.0
        assert abs(calib.camera.K[0, 0] - truth.K[0, 0]) / truth.K[0, 0] < 0.03
        assert np.linalg.norm(calib.camera.centre - truth.centre) < 15.0
        # a table point projects where the true camera puts it
        uv, _ = calib.camera.project(np.array([[100.0, 50.0, 30.0]]))
        want, _ = truth.project(np.array([[100.0, 50.0, 30.0]]))
        assert np.linalg.norm(uv - want) < 4.0


def test_tokyo_calibrate_command_writes_a_calibration_the_adapter_loads(tmp_path, capsys):
    import cv2

    from datasets.tokyo.camera import camera_looking_at
    from referee_app.cli import main

    photo = tmp_path / "mat.png"
    cv2.imwrite(str(photo), mat_photo(camera_looking_at((0.0, 0.0, 0.0), 700.0, 30.0, 0.0, 50.0, 1280, 720)))
    out = tmp_path / "cal.json"
    assert main(["tokyo", "calibrate", str(photo), "--out", str(out), "--step-mm", "5"]) == 0
    assert "reprojection error" in capsys.readouterr().out
    calib, step = load_calibration(out)
    assert step == 5.0 and calib.camera.width == 1280
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), cv2.imread(str(photo)) * 0)
    assert main(["tokyo", "calibrate", str(blank), "--out", str(out)]) != 0
    assert "0 of the mat's 4 corner markers" in capsys.readouterr().err
    assert main(["tokyo", "calibrate", str(tmp_path / "none.png"), "--out", str(out)]) == 2


def test_a_live_camera_takes_its_calibration_from_the_environment(rendered, tmp_path, monkeypatch):
    frames, calib = rendered
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(calib.to_dict()))
    monkeypatch.setenv("HIGHWAY_TOKYO_CALIBRATION", str(path))
    adapter = TokyoAdapter()
    obs = adapter.read(Frame(frames["started"], 0.0, "camera:0", 0))
    assert obs.items["roads"] == 2 and obs.blocked is None


def crossing_case(top_is_new: bool):
    state = play(*STARTED, "purple s1 -> (-60,-10) h2", "green s2 -> (60,-10) h2", "purple s3 -> (20,40) h3")
    supports = [(-150, -60, 1, False), (150, -60, 1, False), (-60, -10, 2, False), (60, -10, 2, False),
                (20, 40, 3, False), (-31, 42, 1, False)]
    sticks = [*started_sticks(), ((-150.0, -60.0), (-60.0, -10.0), (0, 2), "road"),
              ((150.0, -60.0), (60.0, -10.0), (1, 3), "road"), ((-60.0, -10.0), (20.0, 40.0), (2, 4), "road"),
              ((60.0, -10.0), (-30.0, 40.0), (3, 5), "road")]
    obs = obs_dict(supports, sticks)
    obs["crossings"] = [{"a": 5, "b": 4, "top": 5 if top_is_new else 4, "point_mm": (-3.5, 25.3)}]
    return state, obs


def test_what_the_camera_sees_on_top_at_a_crossing_goes_into_the_move():
    state, obs = crossing_case(top_is_new=False)
    ex = explain(TokyoAdapter(), state, obs)
    assert ex.action.notation() == "green s4 -> (-30,40) h1 under r5"
    verdict = state.judge(ex.action)
    assert verdict.legal and "disagreements" not in verdict.details
    state, obs = crossing_case(top_is_new=True)  # the camera saw the new road on top: heights disagree
    ex = explain(TokyoAdapter(), state, obs)
    assert ex.action.notation() == "green s4 -> (-30,40) h1 over r5"
    assert state.judge(ex.action).details["disagreements"][0]["seen"] == "over"
