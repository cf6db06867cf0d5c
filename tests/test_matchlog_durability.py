"""A writer killed mid-match (SIGKILL, no clean-up) loses nothing it acknowledged, and the log
still replays; a partial last line is reported with its line number and never rewritten."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from referee_app.cli import main
from referee_app.matchlog import MatchLogWriter, read_log
from referee_app.replay import replay

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")

WRITER = textwrap.dedent("""
    import sys, time
    from engine.grid import GridState
    from referee_app.matchlog import Header, MatchLogWriter
    path, pause = sys.argv[1], float(sys.argv[2])
    w = MatchLogWriter.create(path, Header("highway-grid", ["A", "B"]))
    state = GridState()
    n = 0
    while True:
        if not state.is_terminal():
            move = next(state.legal_actions())
            verdict = state.judge(move)
            seq = w.action(move.to_json(), move.notation(), verdict.to_json(), "vision", 0.9, frame=n)
            state = state.apply(move, verdict)
        else:
            seq = w.event("note", "x" * 200, n=n)
        print("ack", seq, flush=True)
        n += 1
        if pause:
            time.sleep(pause)
""")


def _run_and_kill(tmp_path: Path, pause: float, acks_wanted: int) -> tuple[Path, list[int]]:
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    log = tmp_path / "match.jsonl"
    proc = subprocess.Popen([sys.executable, str(script), str(log), str(pause)], stdout=subprocess.PIPE,
                            text=True)
    acked = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            acked.append(int(line.split()[1]))
            if len(acked) >= acks_wanted:
                break
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    return log, acked


def test_killed_mid_match_keeps_every_acknowledged_move(tmp_path):
    log, acked = _run_and_kill(tmp_path, pause=0.01, acks_wanted=9)
    contents = read_log(log)
    seqs = [r["seq"] for r in contents.records]
    assert set(acked) <= set(seqs)
    report = replay(log)
    assert not report.disagreements and len(report.checks) >= 9
    assert report.final_state.placed == len(report.checks)
    assert main(["log", "replay", str(log)]) in (0, 1)  # 1 only if the kill cut a line


def test_killed_while_writing_fast_loses_nothing_acknowledged(tmp_path):
    log, acked = _run_and_kill(tmp_path, pause=0.0, acks_wanted=300)
    contents = read_log(log)
    seqs = {r["seq"] for r in contents.records}
    assert set(acked) <= seqs
    # Anything unreadable can only be the very last line, cut by the kill.
    total_lines = len(log.read_bytes().split(b"\n"))
    assert all(p.line >= total_lines - 1 for p in contents.problems)


def test_partial_last_line_is_reported_then_continued_without_rewriting(tmp_path, capsys):
    log = tmp_path / "m.jsonl"
    from referee_app.matchlog import Header

    with MatchLogWriter.create(log, Header("highway-grid", ["A", "B"])) as w:
        w.action({"type": "place", "piece": 1, "cell": "a1"}, "1@a1",
                 {"legal": True, "rule": "grid.place", "reason": "", "consequence": "none"}, "manual")
    with open(log, "ab") as fh:
        fh.write(b'{"type":"action","seq":2,"action":{"type":"pla')
    before = log.read_bytes()
    assert main(["log", "replay", str(log)]) == 0  # a torn line held nothing acknowledged
    err_out = capsys.readouterr().out
    assert "line 3: truncated record" in err_out and "verdicts reproduce: yes" in err_out
    assert log.read_bytes() == before
    with MatchLogWriter.open(log) as w:
        assert log.read_bytes() == before  # opening writes nothing
        assert w.next_seq == 2
        w.event("resumed", "after a crash")
    after = log.read_bytes()
    assert after.startswith(before)  # appended only
    contents = read_log(log)
    assert [(p.line, p.torn) for p in contents.problems] == [(3, True)]
    assert [r.get("kind") for r in contents.records[-2:]] == ["log-resumed", "resumed"]
    assert contents.records[-2]["torn_line"] == 3
    assert main(["log", "replay", str(log)]) == 0
    assert "verdicts reproduce: yes" in capsys.readouterr().out


def test_play_killed_mid_match_then_replayed(tmp_path):
    log = tmp_path / "typed.jsonl"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "referee_app", "play", "highway-grid", "--log", str(log)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    moves = ["7@b2", "3@a1", "7@c3", "5@c3", "1@d4"]
    try:
        for move in moves:
            proc.stdin.write(move + "\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
            assert move in line, line
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    report = replay(log)
    assert [c.notation for c in report.checks] == moves
    assert [c.engine["rule"] for c in report.checks][2] == "grid.piece-in-reserve"
    assert report.ok and report.final_state.placed == 4
