"""Every shared Railroad Ink case reproduces its expected values under the reading it names, its
legality verdict, and reads back identically after export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.railroad_ink import check_sheet, score_sheet, sheet_from_json, sheet_to_json

READING = {"edge_trail": "trail", "simple_path": "path"}


def _cases(shared_dir: Path) -> list[Path]:
    files = sorted((shared_dir / "cases" / "railroad_ink").glob("*.json"))
    if not files:
        pytest.skip("no railroad_ink cases in ../shared")
    return files


def _reading(case: dict) -> str:
    definition = case.get("longest_route_definition", "")
    for name, reading in READING.items():
        if name in definition:
            return reading
    return "trail"  # "not discriminating": both readings agree on the board


def test_every_case_scores_as_expected(shared_dir: Path) -> None:
    checked = 0
    for path in _cases(shared_dir):
        case = json.loads(path.read_text())
        score = score_sheet(sheet_from_json(case).sheet, _reading(case)).to_json()
        for key, want in case["expected"].items():
            if key == "network_exit_counts":
                assert [n for n in score[key] if n >= 2] == [n for n in want if n >= 2], path.name
            elif key in score:
                assert score[key] == want, f"{path.name}: {key} {score[key]} != {want}"
                checked += 1
    assert checked > 40


def test_both_readings_match_the_independent_check(shared_dir: Path) -> None:
    for path in _cases(shared_dir):
        case = json.loads(path.read_text())
        comp = case["independent_check"]["computed"]
        sheet = sheet_from_json(case).sheet
        for suffix, reading in (("edge_trail", "trail"), ("simple_path", "path")):
            score = score_sheet(sheet, reading)
            assert score.longest_highway == comp[f"longest_highway_{suffix}"], (path.name, reading)
            assert score.longest_railway == comp[f"longest_railway_{suffix}"], (path.name, reading)
            assert score.total == comp[f"total_{suffix}"], (path.name, reading)
        for sensitive, values in case.get("definition_sensitive", {}).items():
            assert getattr(score_sheet(sheet, "path"), sensitive) == values["simple_path"]
            assert getattr(score_sheet(sheet, "trail"), sensitive) == values["edge_trail"]


def test_case_legality_reproduces(shared_dir: Path) -> None:
    verdicts = {}
    for path in _cases(shared_dir):
        case = json.loads(path.read_text())
        result = check_sheet(sheet_from_json(case))
        assert (result.code == 0) == case["legality"]["placement_sequence_legal"], (path.name, result.message)
        verdicts[path.stem] = result.rule
    assert verdicts["dxm_longest_tricky_loop_with_rail"] == "rri.special.once"


def test_export_reads_back_identically(shared_dir: Path) -> None:
    for path in _cases(shared_dir):
        sf = sheet_from_json(json.loads(path.read_text()))
        again = sheet_from_json(json.loads(json.dumps(sheet_to_json(sf.sheet))))
        assert again.sheet == sf.sheet, path.name
        assert [(e.cell, e.square) for e in again.entries] == [(e.cell, e.square) for e in sf.entries]
