"""The user's path: `highway-referee railroad-ink score|check|render|faces`, exit codes and JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee_app.cli import main

SAMPLES = Path(__file__).resolve().parents[1] / "engine" / "railroad_ink" / "samples"


def write(tmp_path: Path, data: object, name: str = "sheet.json") -> str:
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(p)


def placement(row: int, col: int, sides: str, **extra) -> dict:
    return {"row": row, "col": col, "sides": sides, **extra}


def test_score_json_has_the_checked_fields(tmp_path: Path, capsys) -> None:
    f = write(tmp_path, {"placements": [placement(0, 1, "H-H-"), placement(1, 1, "H-H-"),
                                        placement(2, 1, "H-H-"), placement(3, 1, "H--H"),
                                        placement(3, 0, "-H-H")]})
    assert main(["railroad-ink", "score", f, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["exit_points"] == 4 and out["longest_highway"] == 5 and out["longest_railway"] == 0
    assert out["center_squares"] == 0 and out["errors"] == 0 and out["total"] == 9


def test_score_longest_reading_is_a_setting(capsys) -> None:
    loop = str(SAMPLES / "loop_reading.json")
    main(["railroad-ink", "score", loop, "--json"])
    trail = json.loads(capsys.readouterr().out)
    main(["railroad-ink", "score", loop, "--longest", "path", "--json"])
    path = json.loads(capsys.readouterr().out)
    assert trail["longest_highway"] == path["longest_highway"] + 1
    assert trail["longest"] == "trail" and path["longest"] == "path"


def test_check_exit_codes(tmp_path: Path, capsys) -> None:
    legal = write(tmp_path, {"placements": [placement(0, 1, "H-H-"), placement(1, 1, "H-R-")]}, "a.json")
    assert main(["railroad-ink", "check", legal]) == 0
    mismatch = write(tmp_path, {"placements": [placement(0, 1, "H-H-"), placement(1, 1, "R-R-")]}, "b.json")
    assert main(["railroad-ink", "check", mismatch]) == 1
    out = capsys.readouterr().out
    assert "B1" in out and "rri.connect.mismatch" in out and "placements[1]" in out
    floating = write(tmp_path, {"placements": [placement(3, 3, "H-H-")]}, "c.json")
    assert main(["railroad-ink", "check", floating, "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["rule"] == "rri.connect.touch"


@pytest.mark.parametrize("data, words", [
    ({"placements": [placement(7, 1, "H-H-")]}, ["outside", "row 7", "rri.board"]),
    ({"placements": [placement(0, 1, "HXH-")]}, ["sides", "A1", "rri.face"]),
    ({"placements": [placement(0, 1, "H---")]}, ["not a tile", "A1", "rri.face"]),
    ({"placements": [placement(0, 1, "H-H-", piece="railway_straight")]}, ["railway_straight", "A1", "rri.face"]),
    ({"placements": "nope"}, ["placements", "rri.format"]),
    ("{not json", ["not JSON"]),
    ({"rounds": [{"round": 1, "roll": ["highway_straight", "railway_curve", "highway_t", "overpass"]}],
      "placements": [placement(0, 1, "H-H-", round=1), placement(0, 5, "H-H-", round=1)]},
     ["A5", "rri.roll.die-used"]),
    ({"rounds": [{"round": 1, "roll": ["highway_straight", "railway_curve", "highway_t", "overpass"]}],
      "placements": [placement(0, 3, "R-R-", round=1, piece="railway_straight")]}, ["A3", "rri.roll.not-rolled"]),
    ({"placements": [placement(0, 1, "HHHH"), placement(0, 3, "RRRR"), placement(3, 0, "HHRH"),
                     placement(1, 0, "HRRR"), placement(5, 0, "HRRH")]}, ["B0", "special number 4", "rri.special.per-game"]),
])
def test_bad_input_is_a_clear_error_with_exit_2(tmp_path: Path, capsys, data, words) -> None:
    f = write(tmp_path, data)
    for cmd in (["check", f], ["score", f, "--json"]) if "rounds" not in str(data) and "HRRH" not in str(data) \
            else (["check", f],):
        assert main(["railroad-ink", *cmd]) == 2
        err = capsys.readouterr().err
        assert err.startswith("highway-referee: error:") and "Traceback" not in err
        for w in words:
            assert w in err, (w, err)


def test_recorded_rolls_check_the_if_possible_rule(capsys) -> None:
    sample = SAMPLES / "two_rounds.json"
    assert main(["railroad-ink", "check", str(sample)]) == 0
    data = json.loads(sample.read_text())
    data["placements"] = [p for p in data["placements"] if not (p["round"] == 2 and p["piece"] == "highway_t")]
    tmp = sample.parent / "__tmp_missing_die.json"
    try:
        tmp.write_text(json.dumps(data))
        assert main(["railroad-ink", "check", str(tmp)]) == 1
        assert "rri.dice.if-possible" in capsys.readouterr().out
    finally:
        tmp.unlink()


def test_every_bundled_sample_scores_and_checks(capsys) -> None:
    samples = sorted(SAMPLES.glob("*.json"))
    assert len(samples) >= 3
    for s in samples:
        assert main(["railroad-ink", "score", str(s), "--json"]) == 0
        assert "total" in json.loads(capsys.readouterr().out)
        code = main(["railroad-ink", "check", str(s)])
        assert code == 0, (s.name, capsys.readouterr())
        capsys.readouterr()


def test_render_writes_svg_and_png(tmp_path: Path) -> None:
    svg, png = tmp_path / "s.svg", tmp_path / "s.png"
    assert main(["railroad-ink", "render", str(SAMPLES / "expansions_game.json"), "--svg", str(svg),
                 "--png", str(png)]) == 0
    text = svg.read_text()
    assert text.startswith("<svg") and "Total" in text
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_faces_lists_every_die() -> None:
    out = subprocess.run([sys.executable, "-m", "referee_app", "railroad-ink", "faces", "--json"],
                         capture_output=True, text=True, check=True)
    faces = json.loads(out.stdout)
    assert faces["junction"].count("station_curve") == 2 and "meteor_any" in faces["meteor_direction"]


def test_free_check_lands_craters_in_their_round(tmp_path: Path) -> None:
    data = {"expansions": ["meteor"],
            "placements": [placement(0, 1, "H-H-", round=1), placement(1, 1, "H-H-", round=1),
                           placement(1, 1, "H-H-", round=3)],
            "craters": [{"row": 1, "col": 1, "round": 2}]}
    assert main(["railroad-ink", "check", write(tmp_path, data)]) == 0
    data["craters"] = []
    assert main(["railroad-ink", "check", write(tmp_path, data)]) == 1  # B1 is still drawn


def test_sheet_svg_colours_networks_and_traces_routes() -> None:
    from drawing.canvas import hex_color
    from engine.railroad_ink import load_sheet
    from referee_app.render.railroad_ink import HIGHWAY_TRACE, NETWORK_COLOURS, sheet_svg

    svg = sheet_svg(load_sheet(SAMPLES / "loop_reading.json").sheet)
    assert hex_color(HIGHWAY_TRACE) in svg and hex_color(NETWORK_COLOURS[0]) not in svg  # one exit only
    two = {"placements": [placement(0, 1, "H-H-"), placement(1, 1, "H-H-"), placement(2, 1, "H-H-"),
                          placement(3, 1, "H--H"), placement(3, 0, "-H-H")]}
    from engine.railroad_ink import sheet_from_json

    svg = sheet_svg(sheet_from_json(two).sheet)
    assert hex_color(NETWORK_COLOURS[0]) in svg and "Total" in svg


def test_a_placement_after_the_last_round_is_illegal(tmp_path: Path, capsys) -> None:
    data = json.loads((SAMPLES / "base_game.json").read_text())
    data["rounds"].append({"round": 8, "roll": data["rounds"][0]["roll"]})
    free = next(r * 7 + c for r in range(7) for c in range(7)
                if not any(p["row"] == r and p["col"] == c for p in data["placements"]))
    data["placements"].append(placement(free // 7, free % 7, "H-H-", round=8, piece="highway_straight"))
    assert main(["railroad-ink", "check", write(tmp_path, data)]) == 1
    assert "rri.game-over" in capsys.readouterr().out
