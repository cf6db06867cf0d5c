"""`highway-referee play`: typed moves judged, printed with their rule ids, logged durably."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from referee_app.cli import main
from referee_app.matchlog import read_log
from referee_app.replay import replay


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_full_match_from_moves(capsys, tmp_path):
    log = tmp_path / "m.jsonl"
    moves = "16@a4 1@d1 15@b3 14@d4 13@a3 2@b4 3@a1 12@b1 11@c4 4@c3 10@c2 9@d3 7@d2 8@a2 5@b2 6@c1"
    code, out, _ = run(capsys, "play", "highway-grid", "--moves", moves, "--log", str(log))
    assert code == 0
    assert "  1. Player 1   16@a4    legal   grid.place" in out
    assert "outcome: Player 2 wins with a best path of 50 against 52 (rule grid.win)" in out
    contents = read_log(log)
    assert [r["type"] for r in contents.records] == ["action"] * 16 + ["end"]
    assert all(r["source"] == "manual" and r["confidence"] == 1.0 for r in contents.records[:16])
    assert contents.records[-1]["outcome"]["winners"] == [1]
    assert replay(log).ok


def test_illegal_moves_are_logged_flagged_and_exit_one(capsys, tmp_path):
    log = tmp_path / "m.jsonl"
    code, out, err = run(capsys, "play", "highway-grid", "--moves", "7@b2 3@a1 7@c3 5@b2", "--log", str(log))
    assert code == 1
    assert "ILLEGAL grid.piece-in-reserve  piece 7 is already on the board at b2" in out
    assert "ILLEGAL grid.cell-empty        cell b2 already holds piece 7" in out
    assert "2 illegal move(s)" in err
    verdicts = [r["verdict"] for r in read_log(log).records]
    assert [v["legal"] for v in verdicts] == [True, True, False, False]


def test_illegal_moves_append_to_an_existing_log_without_rewriting_it(capsys, tmp_path):
    log = tmp_path / "m.jsonl"
    assert run(capsys, "play", "highway-grid", "--moves", "7@b2 3@a1", "--log", str(log))[0] == 0
    before = log.read_bytes()
    code, out, _ = run(capsys, "play", "highway-grid", "--moves", "7@c3;3@d4", "--log", str(log))
    assert code == 1 and "grid.piece-in-reserve" in out
    assert log.read_bytes().startswith(before)
    report = replay(log)
    assert report.ok and len(report.checks) == 4 and report.final_state.placed == 2


@pytest.mark.parametrize("moves,expected", [
    ("7@b2 3a1", "--moves, move 2 ('3a1'): cannot read '3a1': write PIECE@CELL"),
    ("7@b2 17@a1", "--moves, move 2 ('17@a1'): cannot read '17@a1': pieces are numbered 1..16"),
    ("7@b2 3@e9", "--moves, move 2 ('3@e9')"),
])
def test_a_malformed_move_is_skipped_and_named_and_the_others_are_judged(capsys, tmp_path, moves, expected):
    log = tmp_path / "m.jsonl"
    assert run(capsys, "play", "highway-grid", "--moves", "1@a1", "--log", str(log))[0] == 0
    code, out, err = run(capsys, "play", "highway-grid", "--moves", moves + " 4@d4", "--log", str(log))
    assert code == 2 and expected in err and "Traceback" not in err
    assert "SKIPPED" in out and "4@d4     legal" in out
    report = replay(log)  # the moves before and after the bad one are judged and logged
    assert [c.notation for c in report.checks] == ["1@a1", "7@b2", "4@d4"] and report.ok


def test_a_new_match_whose_only_move_is_malformed_writes_no_log(capsys, tmp_path):
    code, _, err = run(capsys, "play", "highway-grid", "--moves", "x", "--data", str(tmp_path))
    assert code == 2 and "move 1 ('x')" in err
    assert not list(tmp_path.glob("matches/*.jsonl"))


def test_unknown_game_and_bad_options(capsys, tmp_path):
    code, _, err = run(capsys, "play", "chess", "--moves", "e4", "--data", str(tmp_path))
    assert code == 2 and "unknown game 'chess' (known games:" in err and "highway-grid" in err
    code, _, err = run(capsys, "play", "highway-grid", "--players", "3", "--moves", "1@a1")
    assert code == 2 and "takes 2-2 players, not 3" in err
    code, _, err = run(capsys, "play", "highway-grid", "--variant", "nothing", "--moves", "1@a1")
    assert code == 2 and "--variant 'nothing': write KEY=VALUE" in err
    code, _, err = run(capsys, "play", "highway-grid", "--variant", "x=1", "--moves", "1@a1",
                       "--data", str(tmp_path))
    assert code == 2 and "has no variants" in err


def test_continuing_a_log_of_another_game_or_a_damaged_log_is_refused(capsys, tmp_path, repo_dir):
    log = tmp_path / "m.jsonl"
    assert run(capsys, "play", "highway-grid", "--moves", "1@a1", "--log", str(log))[0] == 0
    with open(log, "ab") as fh:
        fh.write(b'{"type":"act')
    torn = log.read_bytes()
    # a last line cut by a crash is continued after (docs/formats/match-log.md), not refused
    code, _, err = run(capsys, "play", "highway-grid", "--moves", "2@b1", "--log", str(log))
    assert code == 0, err
    assert log.read_bytes().startswith(torn)
    code, out, _ = run(capsys, "log", "replay", str(log))
    assert code == 0 and "verdicts reproduce: yes" in out and "line 3: truncated record" in out
    # a damaged middle line is refused: the player should look first
    lines = log.read_bytes().split(b"\n")
    lines[1] = lines[1].replace(b'"seq"', b'"s\xffq"')
    log.write_bytes(b"\n".join(lines))
    before = log.read_bytes()
    code, _, err = run(capsys, "play", "highway-grid", "--moves", "3@c1", "--log", str(log))
    assert code == 2 and "damaged lines (line 2: not valid UTF-8" in err
    assert log.read_bytes() == before


def test_undo_writes_a_correction_and_the_next_move_replaces_it(capsys, tmp_path):
    log = tmp_path / "m.jsonl"
    code, out, _ = run(capsys, "play", "highway-grid", "--moves", "7@b2 3@a1 undo 3@a2", "--log", str(log))
    assert code == 0 and "undo: the move logged as seq 2 is withdrawn" in out
    records = read_log(log).records
    assert records[2] == {**records[2], "type": "correction", "target": 2}
    assert records[3]["corrects"] == 2
    report = replay(log)
    assert report.ok and report.final_state.board[4] == 3 and report.final_state.board[0] == 0


def test_store_and_json_output(capsys, tmp_path):
    code, out, _ = run(capsys, "play", "highway-grid", "--moves", "7@b2 3@a1", "--data", str(tmp_path),
                       "--json", "--names", "Ann,Bob")
    data = json.loads(out)
    assert code == 0 and [m["verdict"]["rule"] for m in data["moves"]] == ["grid.place", "grid.place"]
    assert data["log"].startswith(str(tmp_path / "matches"))
    code, out, _ = run(capsys, "log", "list", "--data", str(tmp_path), "--json")
    rows = json.loads(out)
    assert rows[0]["match_id"] == data["match_id"] and rows[0]["actions"] == 2
    assert rows[0]["players"] == ["Ann", "Bob"]


def test_moves_from_stdin_with_a_bad_line_skip_only_that_line(tmp_path):
    log = tmp_path / "m.jsonl"
    proc = subprocess.run([sys.executable, "-m", "referee_app", "play", "highway-grid", "--log", str(log)],
                          input="7@b2\n# a comment\n\n3@a1\n9-c3\n4@d4\n", capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2
    assert "stdin line 5 ('9-c3'): cannot read" in proc.stderr and "Traceback" not in proc.stderr
    report = replay(log)  # the bad line is skipped; the moves around it are judged and durable
    assert [c.notation for c in report.checks] == ["7@b2", "3@a1", "4@d4"] and report.ok


def test_computer_opponent_plays_legal_moves_and_is_logged(capsys, tmp_path, monkeypatch):
    log = tmp_path / "c.jsonl"

    class Human:
        """Stdin that types the first legal move of the position the log has reached."""

        def __iter__(self):
            return self

        def __next__(self) -> str:
            state = replay(log).final_state
            if state.is_terminal():
                raise StopIteration
            return next(iter(state.legal_actions())).notation() + "\n"

    monkeypatch.setattr(sys, "stdin", Human())
    code, out, _ = run(capsys, "play", "highway-grid", "--computer", "1", "--think", "0.2", "--log", str(log))
    assert code == 0 and out.count("(computer,") == 8 and "outcome:" in out
    records = [r for r in read_log(log).records if r["type"] == "action"]
    assert [r.get("by") for r in records] == ["computer", None] * 8
    report = replay(log)
    assert report.ok and report.final_state.is_terminal()


def test_computer_opponent_only_for_the_grid(capsys):
    code, _, err = run(capsys, "play", "highway-dice", "--computer", "1", "--moves", "pass")
    assert code == 2 and "no computer player for highway-dice" in err
    code, _, err = run(capsys, "play", "highway-grid", "--computer", "3", "--moves", "1@a1")
    assert code == 2 and "--computer must be 1 or 2" in err


def test_typed_at_a_terminal_the_user_is_told_what_to_type_and_each_move_is_judged_at_once(tmp_path):
    """`play GAME` with no --moves at a terminal used to wait in silence."""
    import os
    import pty
    import select

    main_fd, child_fd = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "referee_app", "play", "highway-grid", "--data", str(tmp_path)],
                            stdin=child_fd, stdout=child_fd, stderr=child_fd, close_fds=True)
    os.close(child_fd)
    seen = b""

    def until(text: bytes) -> None:
        nonlocal seen
        while text not in seen:
            ready, _, _ = select.select([main_fd], [], [], 60)
            assert ready, seen
            seen += os.read(main_fd, 4096)

    try:
        until(b"Ctrl-D ends")
        assert b"Type one move a line in highway-grid's notation" in seen
        os.write(main_fd, b"7@b2\n")
        until(b"Player 1 places 7 on b2")  # judged before the input ends
        os.write(main_fd, b"\x04")
        assert proc.wait(120) == 0
    finally:
        proc.kill()
        os.close(main_fd)
