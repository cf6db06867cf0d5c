"""Replaying logs through the engine: the bundled demo, tampered logs, damaged logs, every game."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

import engine
from referee_app.cli import main
from referee_app.matchlog import Header, MatchLogWriter
from referee_app.replay import ReplayError, replay


@pytest.fixture()
def demo(repo_dir: Path) -> Path:
    return repo_dir / "referee_app" / "data" / "matches" / "highway-grid-demo.jsonl"


@pytest.fixture()
def copy(tmp_path: Path, demo: Path) -> Path:
    path = tmp_path / "demo.jsonl"
    path.write_bytes(demo.read_bytes())
    return path


def _rewrite(path: Path, edit) -> None:
    lines = path.read_text().splitlines()
    records = [json.loads(x) for x in lines]
    edit(records)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_bundled_demo_replays_exactly(demo):
    report = replay(demo)
    assert report.ok and report.header.players == ["Alice", "Bruno"]
    assert len(report.checks) == 19 and report.corrections == 1
    illegal = [c.engine["rule"] for c in report.checks if not c.engine["legal"]]
    assert illegal == ["grid.piece-in-reserve", "grid.cell-empty"]
    withdrawn = [c for c in report.checks if c.withdrawn]
    assert len(withdrawn) == 1 and withdrawn[0].seq == 10
    assert report.final_state.is_terminal() and report.outcome.winners == (1,)


def test_cli_replay_exit_zero_and_json(capsys, demo):
    assert main(["log", "replay", str(demo)]) == 0
    assert "verdicts reproduce: yes" in capsys.readouterr().out
    assert main(["log", "replay", "--json", str(demo)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] and data["actions"] == 19 and data["outcome"]["winners"] == [1]


def test_tampered_verdicts_are_listed_record_by_record(capsys, copy):
    def edit(records):
        records[3]["verdict"]["legal"] = False  # seq 3 (line 4): a legal move logged as illegal
        records[3]["verdict"]["rule"] = "grid.cell-empty"
        records[5]["verdict"] = {"legal": True, "rule": "grid.place", "reason": "", "consequence": "none"}
    _rewrite(copy, edit)
    before = copy.read_bytes()
    report = replay(copy)
    assert [(c.seq, c.line) for c in report.disagreements] == [(3, 4), (5, 6)]
    assert main(["log", "replay", str(copy)]) == 1
    out = capsys.readouterr().out
    assert "line 4 (seq 3) 15@b3: log says illegal grid.cell-empty" in out
    assert ("line 6 (seq 5) 1@a1: log says legal grid.place/none, "
            "engine says illegal grid.piece-in-reserve") in out
    assert "verdicts reproduce: NO" in out
    assert copy.read_bytes() == before


def test_correction_must_target_the_latest_action_in_force(copy):
    def edit(records):
        for r in records:
            if r.get("type") == "correction":
                r["target"] = 2
    _rewrite(copy, edit)
    report = replay(copy)
    assert not report.ok
    assert any("withdraws seq 2, which is not the latest action still in force (that is seq 10)" in p.message
               for p in report.problems)
    assert any("replaces seq 10, which no earlier correction withdrew" in p.message for p in report.problems)


def test_recorded_outcome_that_disagrees_is_reported(capsys, copy):
    def edit(records):
        records[-1]["outcome"]["winners"] = [0]
    _rewrite(copy, edit)
    assert main(["log", "replay", str(copy)]) == 1
    assert "end record's outcome" in capsys.readouterr().out


@pytest.mark.parametrize("damage,code,message", [
    (lambda b: b.replace(b'"format":1', b'"format":7', 1), 2, "log format 7 is newer than this software"),
    (lambda b: b.replace(b'"game":"highway-grid"', b'"game":"chess"', 1), 2, "unknown game 'chess'"),
    (lambda b: b"", 2, "the log is empty"),
    (lambda b: b"[1,2]\n" + b, 2, "line 1: the first line is not a match log header"),
    (lambda b: b[: b.index(b"\n") + 1] + b"{oops\n" + b[b.index(b"\n") + 1:], 1,
     "line 2: not valid JSON"),
    (lambda b: b[:-25], 0, "truncated record (the writer stopped mid-line"),
])
def test_damaged_logs_fail_clearly_and_stay_untouched(capsys, copy, damage, code, message):
    copy.write_bytes(damage(copy.read_bytes()))
    before = copy.read_bytes()
    assert main(["log", "replay", str(copy)]) == code
    out, err = capsys.readouterr()
    assert message in out + err and "Traceback" not in err
    assert str(copy) in out + err  # the message names the file
    assert copy.read_bytes() == before


def test_missing_log(capsys, tmp_path):
    assert main(["log", "replay", str(tmp_path / "none.jsonl")]) == 2
    assert "no such match log" in capsys.readouterr().err


def test_replay_error_for_unknown_game(tmp_path):
    log = tmp_path / "x.jsonl"
    MatchLogWriter.create(log, Header("no-such-game", ["A"])).close()
    with pytest.raises(ReplayError, match="unknown game"):
        replay(log)


def test_every_registered_game_replays_its_own_log(tmp_path):
    """Generic replay: a few legal actions of each game, logged and re-judged."""
    for game in engine.games():
        state = game.new_state(players=game.min_players)
        log = tmp_path / f"{game.name}.jsonl"
        names = [f"P{i}" for i in range(game.min_players)]
        with MatchLogWriter.create(log, Header(game.name, names)) as w:
            for _ in range(6):
                if state.is_terminal():
                    break
                action = next(iter(state.legal_actions()))
                verdict = state.judge(action)
                w.action(action.to_json(), action.notation(), verdict.to_json(), "manual")
                state = state.apply(action, verdict)
        report = replay(log)
        assert report.ok, (game.name, [c.to_json() for c in report.disagreements], report.problems)
        assert report.final_state.to_json() == state.to_json(), game.name


def test_export_formats(capsys, demo, tmp_path):
    assert main(["log", "export", str(demo), "--format", "text"]) == 0
    text = capsys.readouterr().out
    assert "1@a1       ILLEGAL grid.piece-in-reserve" in text and "withdraws seq 10" in text
    assert main(["log", "export", str(demo), "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 22 and rows[10]["type"] == "correction" and rows[11]["corrects"] == "10"
    out = tmp_path / "e.json"
    assert main(["log", "export", str(demo), "--format", "json", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["header"]["match_id"] == "highway-grid-demo" and len(data["records"]) == 22


def test_export_never_overwrites_the_log(capsys, copy):
    before = copy.read_bytes()
    assert main(["log", "export", str(copy), "--format", "json", "--out", str(copy)]) == 2
    assert "is the log itself" in capsys.readouterr().err and copy.read_bytes() == before


def test_demo_log_ships_as_package_data():
    from importlib.resources import files

    demo = files("referee_app") / "data" / "matches" / "highway-grid-demo.jsonl"
    assert demo.is_file()
    report = replay(Path(str(demo)))
    assert report.ok and report.header.match_id == "highway-grid-demo"


def test_replay_starts_from_a_set_up_position(tmp_path):
    from engine.grid import parse_action, parse_position

    start = parse_position("7 . 3 . / 1 2 4 . / . 12 . . / 5 6 . 16")  # Player 2 to move
    log = tmp_path / "setup.jsonl"
    with MatchLogWriter.create(log, Header("highway-grid", ["A", "B"], initial_state=start.to_json())) as w:
        state = start
        for text in ("8@d1", "8@a3", "15@a3"):
            action = parse_action(text)
            verdict = state.judge(action)
            w.action(action.to_json(), text, verdict.to_json(), "manual")
            state = state.apply(action, verdict)
    report = replay(log)
    assert report.ok and [c.engine["legal"] for c in report.checks] == [True, False, True]
    assert report.final_state == state and report.final_state.placed == 11


def test_export_of_a_damaged_log_warns_with_the_line_and_exits_one(capsys, copy):
    copy.write_bytes(copy.read_bytes()[:-25])  # the end record cut mid-line
    before = copy.read_bytes()
    assert main(["log", "export", str(copy), "--format", "csv"]) == 1
    out, err = capsys.readouterr()
    assert len(list(csv.DictReader(io.StringIO(out)))) == 21  # every readable record is exported
    assert f"{copy}, line 23: truncated record" in err
    assert copy.read_bytes() == before
