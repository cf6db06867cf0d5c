"""The dice commands through the user's path: referee_app.cli.main and a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee_app.cli import main


def test_play_new_game_writes_a_position_that_legal_and_show_read(tmp_path: Path, capsys) -> None:
    pos = tmp_path / "p.json"
    rc = main(["dice", "play", "new", "R 1 3", "1>W01", "R 2 5", "5>W02", "R 1 3", "3>W02", "--out", str(pos)])
    out = capsys.readouterr().out
    assert rc == 0
    assert "dice.own-road-priority" in out and "a 2 was needed on your own road" in out
    assert json.loads(pos.read_text())["trails"][0][1]["cell"] == "W02"
    assert main(["dice", "legal", str(pos), "--roll", "1", "2", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing["seat"] == 1 and [u["notation"] for u in listing["uses"]] == ["2>B01"]
    assert main(["dice", "legal", str(pos), "--roll", "5", "5"]) == 0
    text = capsys.readouterr().out
    assert "5>B01" not in text and "block" not in text  # Blue has nothing to do with two 5s
    assert main(["dice", "show", str(pos), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["table"]["stones"]["W02"] == {"value": 3, "seat": 0} and shown["seats"][0]["needed"] == 5


@pytest.mark.parametrize("argv, message", [
    (["dice", "legal", "new", "--roll", "9", "2"], "die value 1-6"),
    (["dice", "legal", "new"], "give the roll, e.g. `--roll 3 5`"),
    (["dice", "play", "new", "R 1 3", "4>W01"], "a 4 was not rolled"),
    (["dice", "play", "new", "R 1 3", "1>Q77"], "not on board"),
    (["dice", "play", "new", "move it"], "cannot read"),
    (["dice", "show", "/nonexistent/p.json"], "cannot read position file"),
    (["dice", "show", '{"game": "highway-dice", "players": 2}'], "bad position"),
    (["dice", "new", "--players", "5"], "2, 3 or 4"),
])
def test_bad_input_gives_a_clear_error_not_a_traceback(argv: list[str], message: str, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_print_board_and_check_a_board_file_in_a_subprocess(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "referee_app", "print", "highway-dice", "--out", str(tmp_path),
                          "--dpi", "40"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    meta = json.loads((tmp_path / "highway-dice-default.markers.json").read_text())
    assert set(meta["markers"]) == {"0", "1", "2", "3"}
    assert (tmp_path / "highway-dice-default.png").read_bytes()[:4] == b"\x89PNG"
    assert 'width="594mm"' in (tmp_path / "highway-dice-default.svg").read_text()
    board = json.loads(subprocess.run([sys.executable, "-m", "referee_app", "dice", "board"], capture_output=True,
                                      text=True, timeout=120, check=True).stdout)
    board["roads"]["0"]["bridge"]["flanks"] = ["W-F1", "W15"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(board))
    run = subprocess.run([sys.executable, "-m", "referee_app", "dice", "board", "--board", str(bad)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "bridge flank W15 is not beside bridge cell W16" in run.stderr
