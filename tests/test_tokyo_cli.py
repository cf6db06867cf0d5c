"""The Tokyo Highway commands, drawing and camera-reading matcher, through the user's path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine import EngineError
from engine.tokyo import Build, Start, TableReading, match_build, new_state, parse_action
from referee_app.cli import main
from referee_app.render.tokyo import tokyo_drawing, tokyo_svg

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "engine" / "tokyo" / "examples" / "opening.json"
OPENING = ["purple start (0,-100) table (-100,-100)", "green start (60,-20) table (60,80)", "purple s1 -> (0,0) h2"]


def write_plan(tmp_path: Path, actions: list, **options) -> Path:
    p = tmp_path / "plan.json"
    p.write_text(json.dumps({"game": "tokyo-highway", "players": 2, "options": options, "actions": actions}))
    return p


def test_judge_prints_verdicts_with_rule_ids(tmp_path: Path, capsys) -> None:
    plan = write_plan(tmp_path, [*OPENING, "green s2 -> (-40,-60) h2", "green s2 -> (-40,-60) h4 junction"])
    assert main(["tokyo", "judge", str(plan)]) == 0
    out = capsys.readouterr().out
    assert "ILLEGAL [tokyo.no-contact] green s2 -> (-40,-60) h2" in out
    assert "the new road touches purple road 3 at (0, -44)" in out
    assert "ok      [tokyo.build] green s2 -> (-40,-60) h4 junction" in out
    assert main(["tokyo", "judge", str(plan), "--strict"]) == 1


def test_judge_json_lines(tmp_path: Path, capsys) -> None:
    plan = write_plan(tmp_path, [*OPENING, {"type": "build", "player": "green", "base": 2,
                                            "support": {"x": -40, "y": -60, "height": 4, "junction": True}}])
    assert main(["tokyo", "judge", str(plan), "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["verdict"]["rule"] for r in rows] == ["tokyo.start", "tokyo.start", "tokyo.build", "tokyo.build"]
    assert rows[-1]["verdict"]["details"]["cars"] == 1


def test_bundled_example_judges_and_draws(tmp_path: Path) -> None:
    svg, png = tmp_path / "t.svg", tmp_path / "t.png"
    out = subprocess.run([sys.executable, "-m", "referee_app", "tokyo", "draw", str(EXAMPLE), "--svg", str(svg),
                          "--png", str(png), "--scale", "2"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    text = svg.read_text()
    assert text.startswith("<svg") and 'width="' in text and "mm" in text.split(">")[0]
    assert "4&gt;3" in text  # crossing label: green road 4 over purple road 3
    img = cv2.imdecode(np.frombuffer(png.read_bytes(), np.uint8), cv2.IMREAD_COLOR)
    assert img is not None and img.shape[0] > 100
    greenish = (img[:, :, 1] > 120) & (img[:, :, 0] < 100) & (img[:, :, 2] < 100)
    assert greenish.sum() > 500  # green roads are drawn in green


@pytest.mark.parametrize(("args", "message"), [
    (["tokyo", "judge", "missing.json"], "cannot read plan missing.json"),
    (["tokyo", "draw", "PLAN"], "give --svg FILE and/or --png FILE"),
])
def test_cli_errors_are_clear(tmp_path: Path, capsys, args, message) -> None:
    args = [str(write_plan(tmp_path, OPENING)) if a == "PLAN" else a for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_bad_plan_names_the_action(tmp_path: Path, capsys) -> None:
    plan = write_plan(tmp_path, [*OPENING, "green s2 -> (-40,-60) h2.5"])
    assert main(["tokyo", "judge", str(plan)]) == 2
    assert "action 4" in capsys.readouterr().err
    plan = write_plan(tmp_path, [*OPENING, "green s1 -> (-40,-60) h2"])
    assert main(["tokyo", "judge", str(plan)]) == 2
    assert "s1 is purple's" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text("{not json")
    assert main(["tokyo", "state", str(tmp_path / "bad.json")]) == 2
    assert "not valid JSON" in capsys.readouterr().err


def test_state_prints_the_table_view(tmp_path: Path, capsys) -> None:
    assert main(["tokyo", "state", str(write_plan(tmp_path, OPENING))]) == 0
    view = json.loads(capsys.readouterr().out)
    assert [s["height"] for s in view["supports"]] == [1, 1, 2]
    road = view["sticks"][2]
    assert road["from"] == 1 and road["to"] == 3 and road["ends"] == [[0, -100, 11.5], [0, 0, 21.5]]
    assert view["sticks"][0]["from"] == [-100.0, -100.0]  # the start road climbs from a table point
    assert view["cars"][0] == {"owner": 0, "stick": 1, "model": "sedan", "color": "purple"}


def test_drawing_marks_over_and_under() -> None:
    s = new_state()
    for line in [*OPENING, "green s2 -> (-40,-60) h4 junction"]:
        s = s.apply(parse_action(line))
    svg = tokyo_svg(s)
    assert "4&gt;3" in svg and "r4" in svg and "#289646" in svg  # green road colour
    svg2, png = tokyo_drawing(s, scale=1.0)
    assert svg2 == svg and png[:4] == b"\x89PNG"


# -- camera reading -> action ------------------------------------------------------------------

def reading_after(extra_sticks: list, extra_supports: list, crossings=(), cars=None) -> dict:
    supports = [[0, -100, 1, False], [60, -20, 1, False], [0, 0, 2, False]]
    sticks = [{"a": [-104, -100], "b": [3, -100], "color": "purple"},
              {"a": [60, 84], "b": [60, -23], "color": "green"},
              {"a": [0, -103], "b": [0, 3], "color": "purple"}]
    out = {"supports": supports + extra_supports, "sticks": sticks + extra_sticks, "crossings": list(crossings)}
    if cars is not None:
        out["cars"] = cars
    return out


def opened():
    s = new_state()
    for line in OPENING:
        s = s.apply(parse_action(line))
    return s


def test_match_build_finds_the_new_road_support_cars_and_crossing() -> None:
    reading = reading_after([{"a": [63, -19], "b": [-43, -61], "color": "green"}], [[-40, -60, 4, True]],
                            crossings=[{"a": 3, "b": 2, "point": [0, -44], "top": "a"}],
                            cars=[{"color": "purple", "stick": 0}, {"color": "green", "stick": 1},
                                  {"color": "green", "stick": 3}])
    a = match_build(opened(), reading)
    assert isinstance(a, Build)
    assert (a.base, a.support.height, a.support.junction, a.cars) == (2, 4, True, 1)
    assert a.support.x == -40 and a.observed[0].road == 3 and a.observed[0].over
    v = opened().judge(a)
    assert v.legal and "disagreements" not in v.details


def test_match_build_ramp_and_start_and_errors() -> None:
    a = match_build(opened(), reading_after([{"a": [60, -18], "b": [60, -120], "color": "green"}], []))
    assert isinstance(a, Build) and a.ramp == (60.0, -120.0)
    s0 = new_state()
    a = match_build(s0, {"supports": [[0, -100, 1, False]],
                         "sticks": [{"a": [-100, -100], "b": [2, -100], "color": "purple"}]})
    assert isinstance(a, Start) and a.table == (-100.0, -100.0) and s0.judge(a).legal
    with pytest.raises(EngineError, match="longer|sticks are 114 mm"):
        match_build(opened(), reading_after([{"a": [60, -20], "b": [60, -220], "color": "green"}], []))
    with pytest.raises(EngineError, match="unknown car colour 'red'"):
        TableReading.from_json(reading_after([], [], cars=[{"color": "red", "stick": 0}]))
    with pytest.raises(EngineError, match="nobody plays orange"):
        match_build(opened(), reading_after([{"a": [60, -18], "b": [60, -120], "color": "orange"}], []))
    with pytest.raises(EngineError, match="no new road"):
        match_build(opened(), reading_after([], []))
    with pytest.raises(EngineError, match="half columns"):
        TableReading.from_json(reading_after([], [[5, 5, 1.5, False]]))


def test_match_build_with_plain_wooden_sticks_infers_the_owner() -> None:
    reading = reading_after([{"a": [63, -19], "b": [-43, -61], "color": "natural"}], [[-40, -60, 4, True]])
    for st in reading["sticks"]:
        st["color"] = "natural"
    a = match_build(opened(), reading)
    assert isinstance(a, Build) and a.player == "green" and a.base == 2 and a.cars is None


def test_match_build_from_a_vision_observation() -> None:
    from vision.tokyo.observation import StickReading, SupportReading, TokyoObservation

    def sup(x, y, h, j=False):
        return SupportReading((0, 0), (0, 0, 1, 1), j, 0.9, h, 0.9, x, y)

    def stick(a, b, color="natural", role="road"):
        return StickReading(((0, 0), (1, 1)), 4.0, color, (0, 0, 0), 0.9, role,
                            endpoints_mm=((a[0], a[1], 0.0), (b[0], b[1], 0.0)))

    obs = TokyoObservation(
        sticks=[stick((-104, -100), (3, -100)), stick((60, 84), (60, -23)), stick((0, -103), (0, 3)),
                stick((63, -19), (-43, -61)), stick((200, 200), (260, 200), role="loose")],
        supports=[sup(0, -100, 1), sup(60, -20, 1), sup(0, 0, 2), sup(-40, -60, 4, True)],
        calibrated=True)
    a = match_build(opened(), TableReading.from_observation(obs))
    assert isinstance(a, Build) and a.player == "green" and a.support.junction and opened().judge(a).legal


def test_match_command(tmp_path: Path, capsys) -> None:
    plan = write_plan(tmp_path, OPENING)
    reading = tmp_path / "reading.json"
    reading.write_text(json.dumps(reading_after([{"a": [63, -19], "b": [-43, -61], "color": "green"}],
                                                [[-40, -60, 2, False]])))
    assert main(["tokyo", "match", str(plan), str(reading)]) == 0
    out = capsys.readouterr().out
    assert "green s2 -> (-40,-60) h2" in out and "[tokyo.no-contact]" in out


def test_shared_play_command_with_command_line_options(tmp_path: Path, capsys) -> None:
    moves = "purple start (0,-100) table (-118,-100); green start (60,-20) table (60,80)"
    log = str(tmp_path / "m.jsonl")
    assert main(["play", "tokyo-highway", "--variant", 'geometry={"stick_length_mm": 120}', "--moves", moves,
                 "--log", log]) == 0
    assert "tokyo.start" in capsys.readouterr().out
    log2 = str(tmp_path / "m2.jsonl")
    assert main(["play", "tokyo-highway", "--moves", moves, "--log", log2]) != 0  # 118 mm: too far for 114
    assert "tokyo.reach" in capsys.readouterr().out
