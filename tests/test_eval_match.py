"""`highway-referee eval match`: whole simulated matches through the referee loop, scored per move.
Small matches (one seed, two or three turns) so each test stays fast; the numbers themselves are the
benchmark's business (docs/benchmarks/referee-accuracy.md), here the fields must add up against
the simulated match's own script."""

from __future__ import annotations

import json

import pytest

from referee_app.cli import main
from referee_app.commands.eval_match import FIELDS, make_setup, parse_seeds, simulate


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
    setup = make_setup("1280x720", 850, 10)
    sim = simulate("highway-dice", 1, setup, turns=2)
    assert any(m.scripted_illegal and not m.legal for m in sim.moves)  # seed 1 breaks a rule in turn 1
    report = _eval(tmp_path, "highway-dice", "--seeds", "1", "--turns", "2", "--camera", "1280x720")
    _consistent(report, sim)
    assert report["illegal_moves"] >= 1
    assert report["seed_kind"] == "tuning"
    assert report["moves_right"] >= 1  # the referee reads some of it: the frames reach the loop


def test_bad_options_are_refused_with_a_clear_error(capsys):
    assert main(["eval", "match", "highway-dice", "--camera", "wide"]) == 2
    assert "WIDTHxHEIGHT" in capsys.readouterr().err
    assert main(["eval", "match", "highway-dice", "--tilt", "80"]) == 2
    assert main(["eval", "match", "highway-dice", "--quick"]) == 2


def test_seed_lists():
    assert parse_seeds("1-3,7") == [1, 2, 3, 7]
    assert parse_seeds("5") == [5]


def test_grid_match_counts_a_piece_put_on_an_occupied_cell(tmp_path):
    setup = make_setup("1280x720", 450, 10)
    sim = simulate("highway-grid", 1, setup, turns=3)
    stacked = [m for m in sim.moves if m.rule == "grid.cell-empty"]
    assert stacked and all(m.scripted_illegal for m in stacked)  # seed 1: its second piece goes on the first
    report = _eval(tmp_path, "highway-grid", "--seeds", "1", "--turns", "3", "--camera", "1280x720",
                   "--height", "450")
    _consistent(report, sim)
    assert report["illegal_moves"] == len(stacked)
    assert report["moves_right"] >= 1


def test_railroad_ink_match_counts_illegal_drawings(tmp_path):
    setup = make_setup("1280x720", 330, 10)
    sim = simulate("railroad-ink", 1, setup, turns=1)
    assert sum(m.scripted_illegal for m in sim.moves) >= 1  # seed 1 draws a route that was not rolled
    report = _eval(tmp_path, "railroad-ink", "--seeds", "1", "--turns", "1", "--camera", "1280x720",
                   "--height", "330")
    _consistent(report, sim)
    assert report["illegal_moves"] == sum(not m.legal for m in sim.moves) >= 1
    assert report["moves_right"] >= 1
