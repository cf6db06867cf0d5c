"""Issue 23, the command-line items: what a new user typed in the first hour, through `main` as the
`highway-referee` command runs it (each test failed on the code before the fix)."""

from __future__ import annotations

import csv
import io
import json
import random
import re
import socket
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import engine
from referee_app.cli import main
from referee_app.replay import replay

REPO = Path(__file__).resolve().parents[1]
GRID_DEMO = REPO / "referee_app" / "data" / "matches" / "highway-grid-demo.jsonl"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- 4: the README's sheet name ------------------------------------------------------------------
def test_print_tokyo_highway_is_the_mat_and_tokyo_mat_still_works(capsys, tmp_path):
    for name in ("tokyo-highway", "tokyo-mat"):
        out = tmp_path / name
        code, text, err = run(capsys, "print", name, "--out", str(out), "--dpi", "30")
        assert code == 0, err
        assert (out / "tokyo-mat.svg").read_text().startswith("<svg") and (out / "tokyo-mat.png").stat().st_size
        assert json.loads((out / "tokyo-mat.json").read_text())["sheet"] == "tokyo-highway"


# -- 5 and 11: typed move lists ----------------------------------------------------------------------
def test_dice_moves_in_the_suggested_form_are_read_without_semicolons(capsys, tmp_path):
    log = tmp_path / "d.jsonl"
    code, out, err = run(capsys, "play", "highway-dice", "--moves", "R 1 3 1>W01 R 2 4 2>B01 R 3 5 3>W02 +5",
                         "--log", str(log), "--json")
    assert code == 0, err
    moves = json.loads(out)["moves"]
    assert [m["notation"] for m in moves] == ["R 1 3", "1>W01", "R 2 4", "2>B01", "R 3 5", "3>W02 +5"]
    assert all(m["verdict"]["legal"] for m in moves)
    assert replay(log).ok


def _random_notations(game: engine.Game, seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    state = game.new_state(players=game.min_players)
    out = []
    while len(out) < count and not state.is_terminal():
        actions = list(state.legal_actions())
        if not actions:
            break
        action = rng.choice(actions)
        out.append(action.notation())
        state = state.apply(action)
    return out


@pytest.mark.parametrize("name", [g.name for g in engine.games()])
def test_a_space_separated_list_of_any_game_reads_back_move_by_move(capsys, tmp_path, name):
    """Every game's legal moves, written one after another with spaces only, are judged as those
    moves (multi-word moves such as Railroad Ink's 'roll ...' and 'p0 PIECE B3 SIDES' included)."""
    game = engine.get_game(name)
    for seed in (1, 2):
        notations = _random_notations(game, seed, 14)
        code, out, err = run(capsys, "play", name, "--moves", " ".join(notations),
                             "--log", str(tmp_path / f"{name}-{seed}.jsonl"), "--json")
        assert code in (0, 1), err
        read = [m.get("notation") for m in json.loads(out)["moves"]]
        assert [" ".join(n.lower().split()) for n in read] == [" ".join(n.lower().split()) for n in notations]


def test_an_unreadable_move_is_skipped_and_the_rest_are_judged(capsys, tmp_path):
    log = tmp_path / "g.jsonl"
    code, out, err = run(capsys, "play", "highway-grid", "--moves", "7@b2 zz 3@a1 5@q9 4@d4", "--log", str(log))
    assert code == 2
    assert "--moves, move 2 ('zz'): cannot read 'zz'" in err and "--moves, move 4 ('5@q9')" in err
    assert out.count("SKIPPED") == 2
    assert [c.notation for c in replay(log).checks] == ["7@b2", "3@a1", "4@d4"]


def test_an_unjudgeable_move_is_skipped_and_play_goes_on(capsys, tmp_path):
    log = tmp_path / "r.jsonl"
    roll = "roll railway_curve railway_straight railway_t overpass"
    code, out, err = run(capsys, "play", "railroad-ink", "--names", "Ann", "--moves",
                         f"{roll}; p1 done; p0 railway_straight B0 -R-R", "--log", str(log))
    assert code == 2
    assert "('p1 done'): cannot judge p1 done" in err and "Traceback" not in err
    assert [c.notation for c in replay(log).checks] == [roll, "p0 railway_straight B0 -R-R"]


# -- 12: players by name -------------------------------------------------------------------------------
def test_players_are_typed_and_printed_by_name(capsys, tmp_path):
    log = tmp_path / "r.jsonl"
    code, out, err = run(capsys, "play", "railroad-ink", "--names", "Ann Lee", "--moves",
                         "roll railway_curve railway_straight railway_t overpass "
                         "Ann Lee railway_straight B0 -R-R", "--log", str(log))
    assert code == 0, err
    assert re.search(r"2\. Ann Lee +Ann Lee railway_straight B0 -R-R +legal", out)
    assert "p0" not in out
    assert [c.notation for c in replay(log).checks][1] == "p0 railway_straight B0 -R-R"


GRID_MATCH = "16@a4 1@d1 15@b3 14@d4 13@a3 2@b4 3@a1 12@b1 11@c4 4@c3 10@c2 9@d3 7@d2 8@a2 5@b2 6@c1"


def test_verdicts_and_outcomes_name_the_players_in_every_printout(capsys, tmp_path):
    """The engines' "Player 2 wins" never stands beside "Bo": play, log replay, log export and grid
    name the players as the page does; the log itself keeps the engine's words (replay compares)."""
    log = tmp_path / "m.jsonl"
    code, out, _ = run(capsys, "play", "highway-grid", "--names", "Ann,Bo", "--moves", GRID_MATCH,
                       "--log", str(log))
    assert code == 0 and "outcome: Bo wins with a best path of 50 against 52 (rule grid.win)" in out
    assert "grid.place             Ann places 16 on a4" in out and "Player" not in out
    printouts = [run(capsys, "log", "replay", str(log))[1],
                 run(capsys, "log", "export", str(log), "--format", "text")[1],
                 "\n".join(r["reason"] for r in csv.DictReader(io.StringIO(
                     run(capsys, "log", "export", str(log), "--format", "csv")[1]))),
                 run(capsys, "grid", "show", str(log))[1]]
    for text in printouts:
        assert "Bo wins with a best path of 50" in text and "Player" not in text, text
    assert "Bo places 6 on c1" in printouts[1] and "Bo places 6 on c1" in printouts[2]
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert records[-1]["reason"].startswith("Player 2 wins") and replay(log).ok
    log = tmp_path / "g.jsonl"
    assert run(capsys, "play", "highway-grid", "--names", "Cy,Di", "--moves", "7@b2", "--log", str(log))[0] == 0
    code, out, _ = run(capsys, "grid", "hint", str(log), "--time", "0.3")
    assert code == 0 and out.startswith("Di: play ") and "Player" not in out
    code, out, _ = run(capsys, "grid", "show", str(log))
    assert "Cy best path: 0 so far" in out and "to move: Di, reserve" in out


@pytest.mark.parametrize("game, moves, named, colours", [
    ("highway-dice", "R 1 3 1>W01 R 2 4 2>B01 R 1 1 1>W01",
     ["Ann rolls 1 and 3", "Bo paves a 2 on B01", "W01 already holds Ann's 1"], ("White", "Blue")),
    ("tokyo-highway", "Ann start (0,-57) table (102.1,-57); Bo start (0,57) table (102.1,57)",
     ["Ann lays start road 1", "Bo lays start road 2"], ("purple", "green")),
])
def test_games_that_name_seats_by_colour_print_the_names(capsys, tmp_path, game, moves, named, colours):
    log = tmp_path / "m.jsonl"
    code, out, _ = run(capsys, "play", game, "--names", "Ann,Bo", "--moves", moves, "--log", str(log))
    assert code in (0, 1)
    exported = run(capsys, "log", "export", str(log), "--format", "text")[1]
    for text in (out, exported):
        assert all(n in text for n in named), text
        assert not any(re.search(rf"\b{c}\b", text, re.IGNORECASE) for c in colours), text


def test_names_give_the_number_of_players_and_the_board_rows_stay_aligned(capsys, tmp_path):
    code, out, err = run(capsys, "play", "highway-dice", "--names", "Ann Lee,Bo,Cy", "--moves",
                         "R 1 3 1>W01 R 2 4 2>B01 R 3 3", "--data", str(tmp_path))
    assert code == 0, err
    assert "Cy rolls 3 and 3" in out
    rows = [line for line in out.splitlines() if " pool " in line]
    assert [r[:13] for r in rows] == [" Ann Lee pool", " Bo      pool", "*Cy      pool"]
    code, _, err = run(capsys, "play", "highway-grid", "--names", "Ann,Bo,Cy", "--moves", "1@a1")
    assert code == 2 and "takes 2-2 players, not 3" in err


def test_csv_export_names_the_players(capsys):
    code, out, _ = run(capsys, "log", "export", str(GRID_DEMO), "--format", "csv")
    assert code == 0
    actions = [r for r in csv.DictReader(io.StringIO(out)) if r["type"] == "action"]
    assert {r["player"] for r in actions} == {"Alice", "Bruno"}
    assert {r["seat"] for r in actions} == {"0", "1"}
    code, out, _ = run(capsys, "log", "export", str(GRID_DEMO), "--format", "text")
    assert "   1 Alice      16@a4" in out


# -- 6, 7, 9: wrong files and hints ------------------------------------------------------------------
def test_grid_solve_of_a_missing_file_says_no_such_file(capsys, tmp_path):
    code, _, err = run(capsys, "grid", "solve", str(tmp_path / "nosuchfile.jsonl"))
    assert code == 2 and "nosuchfile.jsonl: no such file" in err and "expected 16" not in err
    code, _, err = run(capsys, "grid", "solve", "nosuchfile.jsonl")
    assert code == 2 and "nosuchfile.jsonl: no such file" in err
    code, _, err = run(capsys, "grid", "solve", "7 . 3")  # a short position is still a position
    assert code == 2 and "expected 16" in err


def test_dice_legal_without_a_roll_suggests_the_flag(capsys):
    code, _, err = run(capsys, "dice", "legal", "new")
    assert code == 2 and "--roll 3 5" in err and "roll=(" not in err
    code, out, _ = run(capsys, "dice", "legal", "new", "--roll", "3", "5")
    assert code == 0 and "White to play with 3 and 5" in out


@pytest.fixture
def dice_log(capsys, tmp_path) -> Path:
    log = tmp_path / "match.jsonl"
    assert run(capsys, "play", "highway-dice", "--moves", "R 1 3; 1>W01", "--log", str(log))[0] == 0
    return log


@pytest.mark.parametrize("argv, expected, instead", [
    (["dice", "legal"], "not a position file", "log replay"),
    (["dice", "show"], "not a position file", "log replay"),
    (["railroad-ink", "score"], "not a sheet file", "log replay"),
    (["railroad-ink", "check"], "not a sheet file", "railroad-ink random --out"),
])
def test_a_match_log_where_a_position_or_sheet_was_expected(capsys, dice_log, argv, expected, instead):
    code, _, err = run(capsys, *argv, str(dice_log))
    assert code == 2
    assert "is a match log (highway-dice match" in err and expected in err and instead in err
    assert "Extra data" not in err


# -- 10: serve -------------------------------------------------------------------------------------------
def test_a_busy_port_says_use_port(capsys, tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code, out, err = run(capsys, "serve", "--port", str(port), "--data", str(tmp_path))
    assert code == 1 and f"127.0.0.1:{port}" in err and "use --port N" in err
    assert "serving" not in out


def test_a_camera_number_with_no_camera_is_an_error_before_serving(capsys, tmp_path):
    code, out, err = run(capsys, "serve", "--camera", "97", "--port", "0", "--data", str(tmp_path))
    assert code == 1 and "cannot open camera 97" in err and "the first camera is 0" in err
    assert "serving" not in out
    assert not list(tmp_path.glob("matches/*.jsonl"))  # no match was started for it


def test_a_camera_number_with_no_camera_says_only_the_referees_words(tmp_path):
    """Through the installed entry point: OpenCV's own warnings used to come first on stderr."""
    proc = subprocess.run([sys.executable, "-m", "referee_app", "serve", "--camera", "97", "--port", "0",
                           "--data", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        "highway-referee: error: cannot open camera 97: no camera answered at that number (is it connected, "
        "and is the number right? the first camera is 0)"], proc.stderr


# -- 12: games, rules documents, calibrate hint --------------------------------------------------------------
def test_games_lists_each_rules_document_and_it_exists(capsys):
    code, out, _ = run(capsys, "games", "--json")
    assert code == 0
    rows = json.loads(out)
    assert {r["name"] for r in rows} == {g.name for g in engine.games()}
    for r in rows:
        assert r["rules_path"] and Path(r["rules_path"]).is_file(), r
    code, out, _ = run(capsys, "games")
    assert out.count("rules: ") == len(rows) and "highway-grid.md" in out


def test_an_installed_copy_ships_every_rules_document():
    """pyproject.toml's data-files put docs/rules into PREFIX/share/highway-referee (where `games`
    looks in an installed copy): every game's document is covered."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    data_files = config["tool"]["setuptools"]["data-files"]
    shipped = {p for target, patterns in data_files.items() if target == "share/highway-referee/docs/rules"
               for pattern in patterns for p in REPO.glob(pattern)}
    for game in engine.games():
        assert REPO / game.rules_doc in shipped, game.rules_doc


def test_rules_documents_cite_no_files_outside_the_repository():
    for doc in sorted((REPO / "docs" / "rules").glob("*.md")):
        text = doc.read_text(encoding="utf-8")
        assert "shared/" not in text, doc.name
        assert not re.search(r"\d{3}_[0-9a-f]{16}\.txt", text), doc.name  # a seed file's name
        for target in re.findall(r"\]\(([^)#]+)", text):
            if "://" not in target:
                assert (doc.parent / target).resolve().is_relative_to(REPO), (doc.name, target)
                assert (doc.parent / target).exists(), (doc.name, target)
