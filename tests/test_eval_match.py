"""`highway-referee eval match`: whole simulated matches through the referee loop, scored per move.
Each test plays the first few moves of one seed's match (--max-moves) so it stays fast; the numbers
themselves are the benchmark's business (docs/benchmarks/referee-accuracy.md): here the fields must
add up against the simulated match's own script, and a scripted illegal move must be counted."""

from __future__ import annotations

import json

import pytest

from referee_app.cli import main
from referee_app.commands.eval_match import FIELDS, make_setup, parse_seeds, same_move, simulate


def _eval(tmp_path, game: str, *args: str) -> dict:
    out = tmp_path / "report.json"
    assert main(["eval", "match", game, "--quiet", "--json", str(out), *args]) == 0
    return json.loads(out.read_text())


def _consistent(report: dict, sim) -> None:
    for name in FIELDS:
        assert name in report, name
    assert report["moves"] == len(sim.moves)
    assert report["illegal_moves"] == sum(not m.legal for m in sim.moves)
    assert report["frames"] == sim.frame_count()
    assert report["moves_right"] + report["missed_moves"] + report["wrong_verdicts"] == report["moves"]
    assert report["move_accuracy"] == pytest.approx(report["moves_right"] / report["moves"], abs=1e-4)
    assert report["false_mismatches_per_100"] == pytest.approx(100 * report["false_mismatches"] / report["moves"],
                                                               abs=0.01)
    assert 0 <= report["illegal_flagged_right"] <= report["illegal_moves"]
    assert report["wrong_verdicts_confident"] <= report["wrong_verdicts"]
    assert report["seconds_per_move"] > 0
    assert report["errors"] == 0


def test_dice_match_counts_the_scripted_illegal_move(tmp_path):
    sim = simulate("highway-dice", 1, make_setup("1280x720", 850, 10), max_moves=2)
    assert sim.moves[1].scripted_illegal and not sim.moves[1].legal  # seed 1 breaks a rule in turn 1
    report = _eval(tmp_path, "highway-dice", "--seeds", "1", "--max-moves", "2", "--camera", "1280x720",
                   "--height", "850")
    _consistent(report, sim)
    assert report["illegal_moves"] == 1
    assert report["seed_kind"] == "tuning"
    assert report["moves_right"] >= 1  # the frames reach the referee loop: it reads some of the match


def test_grid_match_counts_a_piece_put_on_an_occupied_cell(tmp_path):
    sim = simulate("highway-grid", 1, make_setup("1280x720", 450, 10), max_moves=3)
    stacked = [m for m in sim.moves if m.rule == "grid.cell-empty"]
    assert stacked and all(m.scripted_illegal for m in stacked)  # seed 1: its second piece goes on the first
    report = _eval(tmp_path, "highway-grid", "--seeds", "1", "--max-moves", "3")
    _consistent(report, sim)
    assert report["illegal_moves"] == len(stacked)
    assert report["moves_right"] >= 1


def test_railroad_ink_match_counts_an_illegal_drawing(tmp_path):
    sim = simulate("railroad-ink", 5, make_setup("1280x720", 330, 10), max_moves=2)
    assert sim.moves[1].scripted_illegal  # seed 5's first drawing breaks a rule
    report = _eval(tmp_path, "railroad-ink", "--seeds", "5", "--max-moves", "2")
    _consistent(report, sim)
    assert report["illegal_moves"] == 1
    assert report["moves_right"] >= 1


def test_tokyo_match_plays_through_the_calibrated_loop(tmp_path):
    sim = simulate("tokyo-highway", 21, make_setup("960x540", 550, 40, fov=50), max_moves=2)
    report = _eval(tmp_path, "tokyo-highway", "--seeds", "21", "--max-moves", "2", "--camera", "960x540")
    _consistent(report, sim)
    assert report["moves"] == 2 and report["illegal_moves"] == 0  # the two start roads


def test_bad_options_are_refused_with_a_clear_error(capsys):
    assert main(["eval", "match", "highway-dice", "--camera", "wide"]) == 2
    assert "WIDTHxHEIGHT" in capsys.readouterr().err
    assert main(["eval", "match", "highway-dice", "--tilt", "80"]) == 2
    assert main(["eval", "match", "highway-dice", "--quick"]) == 2
    assert main(["eval", "match", "highway-dice", "--envelope", "--tilt", "5"]) == 2


def test_seed_lists_and_move_comparison():
    import engine

    assert parse_seeds("1-3,7") == [1, 2, 3, 7]
    assert parse_seeds("5") == [5]
    game = engine.get_game("tokyo-highway")
    # the camera does not say whose build it is; the script does: still the same move
    assert same_move(game.parse_action("s1 -> (-60,-10) h2"), game.parse_action("purple s1 -> (-60,-10) h2"))
    assert not same_move(game.parse_action("s1 -> (-60,-10) h2"), game.parse_action("s1 -> (-60,0) h2"))
    # a colour or a seat number: the same player once the state says who is who
    state = game.new_state()
    for move in ("purple start (-150,-60) table (-150,-170)", "green start (150,-60) table (150,-170)"):
        action = game.parse_action(move)
        state = state.apply(action, state.judge(action))
    assert same_move(game.parse_action("purple s1 -> (-60,-10) h2"), game.parse_action("p1 s1 -> (-60,-10) h2"),
                     state)
    assert not same_move(game.parse_action("green s2 -> (60,-10) h2"), game.parse_action("p1 s2 -> (60,-10) h2"),
                         state)
