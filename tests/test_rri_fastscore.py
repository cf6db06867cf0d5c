"""The bit-packed scorer (engine/railroad_ink/fastscore.py, used by score_sheet) gives exactly the
numbers of the square-by-square scorer on the samples, the shared cases, random complete sheets,
dense loopy sheets and hypothesis-drawn sheets with craters; the packed sides a Sheet carries
always equal a fresh packing of its squares."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from engine.railroad_ink import load_sheet, sheet_from_json, sheet_to_json
from engine.railroad_ink.board import NEIGHBOURS, OPPOSITE, Sheet, Square
from engine.railroad_ink.packed import pack_infos
from engine.railroad_ink.randomgame import random_game
from engine.railroad_ink.scoring import score_sheet, score_sheet_full
from engine.railroad_ink.tiles import PIECES, orientations

SAMPLES = Path(__file__).resolve().parent.parent / "engine" / "railroad_ink" / "samples"
NUMBERS = ("exit_points", "network_exit_counts", "longest_highway", "longest_railway", "center_squares",
           "errors", "expansion_points", "expansion", "total")


def _same(sheet: Sheet) -> None:
    for reading in ("trail", "path"):
        for expansions in ((), ("meteor",)):
            fast, full = score_sheet(sheet, reading, expansions), score_sheet_full(sheet, reading, expansions)
            assert fast == full, (reading, expansions, sheet.diagram())
            for key in NUMBERS:
                assert getattr(fast, key) == getattr(full, key), key
    assert sheet.packed == pack_infos([sq.info if sq else None for sq in sheet.cells])


def test_samples_and_shared_cases(shared_dir: Path) -> None:
    files = sorted(SAMPLES.glob("*.json")) + sorted((shared_dir / "cases" / "railroad_ink").glob("*.json"))
    assert len(files) > 10
    for path in files:
        _same(load_sheet(path).sheet)


def test_random_complete_sheets() -> None:
    for seed in range(15):
        _same(random_game(seed)[0].sheets[0])
    for seed in range(6):
        _same(random_game(seed, expansions=("meteor",))[0].sheets[0])  # craters


def _random_sheet(rng: random.Random, density: float) -> Sheet:
    """Any shapes anywhere (errors, overpasses, stations, lakes, lava), with a few craters."""
    shapes = [p for p in PIECES if p != "lake_full"]
    sheet = Sheet()
    for cell in range(49):
        if rng.random() < density:
            piece = rng.choice(shapes)
            sheet = sheet.put(cell, Square(rng.choice(orientations(piece)), piece, PIECES[piece][1]))
    empty = [c for c in range(49) if sheet.cells[c] is None]
    return replace(sheet, craters=frozenset(rng.sample(empty, min(3, len(empty)))))


def test_random_shapes_everywhere() -> None:
    rng = random.Random(7)
    for i in range(150):
        _same(_random_sheet(rng, (0.3, 0.7, 1.0)[i % 3]))


def test_loops_of_every_size() -> None:
    """Dense highway and railway grids: many cycles, so the search over chains is reached."""
    rng = random.Random(3)
    for _ in range(40):
        kind = rng.choice("HR")
        size = rng.randint(2, 4)  # the path reading is exponential on bigger dense grids
        cells = [r * 7 + c for r in range(size) for c in range(size)]
        sides = {c: ["-"] * 4 for c in cells}
        for c in cells:
            for s in (1, 2):
                n = NEIGHBOURS[c][s]
                if n in sides and rng.random() < 0.8:
                    sides[c][s], sides[n][OPPOSITE[s]] = kind, kind
        sheet = Sheet()
        for c in cells:
            if kind in sides[c]:
                sheet = sheet.put(c, Square("".join(sides[c]), "drawn"))
        _same(sheet)


def test_packed_sides_follow_put_and_erase() -> None:
    rng = random.Random(11)
    sheet = _random_sheet(rng, 0.5)
    for _ in range(60):
        cell = rng.randrange(49)
        if rng.random() < 0.3:
            sheet = sheet.erase(cell)
        else:
            piece = rng.choice(list(PIECES))
            sheet = sheet.put(cell, Square(rng.choice(orientations(piece)), piece, PIECES[piece][1]))
        assert sheet.packed == pack_infos([sq.info if sq else None for sq in sheet.cells])
    _same(sheet)


def test_reading_a_sheet_file_builds_the_same_sheet() -> None:
    """The one-pass build of a file without craters equals placing its squares one by one."""
    for seed in range(5):
        sheet = random_game(seed)[0].sheets[0]
        back = sheet_from_json(json.loads(json.dumps(sheet_to_json(sheet)))).sheet
        assert back == sheet and back.order == sheet.order and back.specials == sheet.specials
        assert back.packed == sheet.packed


def test_bad_squares_are_still_refused_after_good_ones() -> None:
    from engine.core import EngineError

    good = {"placements": [{"row": 0, "col": 0, "sides": "H-H-"}]}
    sheet_from_json(good)
    sheet_from_json(good)
    for bad in ("H-HX", "HHHHH"):
        with pytest.raises(EngineError, match="sides"):
            sheet_from_json({"placements": [{"row": 0, "col": 0, "sides": bad}]})
    with pytest.raises(EngineError, match="rotation or mirror"):
        sheet_from_json({"placements": [{"row": 0, "col": 0, "sides": "H-H-", "piece": "railway_curve"}]})


def test_an_exit_listed_twice_counts_once() -> None:
    """Custom exits are read one per (cell, side), the last listed, as score_sheet_full reads them."""
    from engine.railroad_ink.board import STANDARD_EXITS

    exits = STANDARD_EXITS + STANDARD_EXITS[:4] + ((1, 0, "R"), (3, 0, "H"))
    for seed in range(6):
        _same(replace(random_game(seed)[0].sheets[0], exits=exits))
