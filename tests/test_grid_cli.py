"""`highway-referee grid show|solve|hint` through the CLI entry point."""

from __future__ import annotations

import json

import pytest

from engine.grid import parse_position
from engine.grid.solver import brute_force_value
from referee_app.cli import main

POS = "7 . 3 . / 1 2 4 . / . 12 . . / 5 6 . 16"  # 9 placed: Player 2 to move, 7 empty cells
FULL = "7 5 3 9 / 1 2 4 8 / 6 12 11 10 / 15 14 13 16"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_show_prints_both_best_paths_and_the_winner(capsys):
    code, out, _ = run(capsys, "grid", "show", FULL)
    assert code == 0
    assert "Player 1 best path: 48" in out and "Player 2 best path: 40" in out
    assert "d1=9 c1=3 c2=4 b2=2 a2=1 a3=6 a4=15" in out
    assert "Player 2 wins" in out


def test_show_lists_every_tied_path(capsys):
    code, out, _ = run(capsys, "grid", "show", "--json", ". " * 16)
    info = json.loads(out)
    assert code == 0 and len(info["best_paths"][0]["paths"]) == 20 and info["to_move"] == 0


def test_show_draws_svg_and_png(capsys, tmp_path):
    svg, png = tmp_path / "b.svg", tmp_path / "b.png"
    code, _, _ = run(capsys, "grid", "show", FULL, "--svg", str(svg), "--png", str(png))
    assert code == 0
    text = svg.read_text()
    assert text.startswith("<svg") and ">16</text>" in text and text.count("<polyline") >= 2
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_solve_and_hint_agree_with_brute_force(capsys):
    state = parse_position(". 5 3 9 / 1 2 4 8 / 6 12 . . / . 14 13 16")  # 4 empty, Player 1 to move
    code, out, _ = run(capsys, "grid", "solve", "--json", ". 5 3 9 / 1 2 4 8 / 6 12 . . / . 14 13 16")
    result = json.loads(out)
    assert code == 0 and result["exact"] and result["value"] == brute_force_value(state)
    code, out, _ = run(capsys, "grid", "hint", ". 5 3 9 / 1 2 4 8 / 6 12 . . / . 14 13 16")
    assert code == 0 and out.startswith("Player 1: play " + result["best"])


def test_solve_text_output(capsys):
    code, out, _ = run(capsys, "grid", "solve", POS, "--time", "5")
    assert code == 0 and "exact" in out and "best move:" in out and "to move: Player 2" in out


def test_show_reads_a_log_file(capsys, repo_dir):
    demo = repo_dir / "referee_app" / "data" / "matches" / "highway-grid-demo.jsonl"
    code, out, _ = run(capsys, "grid", "show", str(demo))
    assert code == 0 and "result: Bruno wins" in out  # the log's players, by name


@pytest.mark.parametrize("position,expected", [
    ("7 . 3 . / . . . . / . 12 . 7 / . . . 16", "piece 7 is placed twice in the position, at a1 and d3"),
    ("7 . 3 / . . . . / . 12 . . / . . . 16", "row 1 has 3 entries"),
    ("7 . 3 . / . . . . / . 17 . . / . . . 16", "entry 10 (cell b3) is '17'"),
])
def test_bad_positions_give_a_clear_error(capsys, position, expected):
    code, out, err = run(capsys, "grid", "show", position)
    assert code == 2 and expected in err and "Traceback" not in err and out == ""


def test_solving_a_full_board_is_refused(capsys):
    code, _, err = run(capsys, "grid", "solve", FULL)
    assert code == 2 and "full" in err


def test_refuses_to_overwrite_the_input_with_a_drawing(capsys, tmp_path, repo_dir):
    log = tmp_path / "m.jsonl"
    demo = repo_dir / "referee_app" / "data" / "matches" / "highway-grid-demo.jsonl"
    log.write_bytes(demo.read_bytes())
    code, _, err = run(capsys, "grid", "show", str(log), "--svg", str(log))
    assert code == 2 and "input file" in err and log.read_bytes() == demo.read_bytes()
