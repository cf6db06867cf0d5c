"""The numba-compiled scorer (engine/railroad_ink/jitscore.py) gives exactly the numbers of the pure
bit-packed scorer and of the square-by-square scorer, field by field: on complete and partial sheets
of random games with every expansion, any shapes anywhere, dense loops (its hand-over of cyclic
graphs to the pure search), custom exits (more than 12 exit heads, an exit listed twice), the
samples and the shared cases. The comparisons skip where numba is absent; the switching rules
(auto-load after JIT_AFTER sheets, PURE_ENV, the fallback without numba) are checked everywhere."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest
from test_rri_fastscore import NUMBERS, SAMPLES, _random_sheet

from engine.railroad_ink import jitscore, load_sheet, scoring
from engine.railroad_ink.board import NEIGHBOURS, OPPOSITE, STANDARD_EXITS, Sheet, Square
from engine.railroad_ink.randomgame import random_game
from engine.railroad_ink.scoring import score_sheet, score_sheet_full

needs_numba = pytest.mark.skipif(not jitscore.available(), reason="numba (the `fast` extra) is not installed")


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Module state as in a new process: nothing loaded, the countdown full."""
    monkeypatch.setattr(scoring, "_kernel", None)
    monkeypatch.setattr(scoring, "_load", {"left": scoring.JIT_AFTER, "tried": 0})
    monkeypatch.delenv(scoring.PURE_ENV, raising=False)


def _same(sheet: Sheet, expansions: tuple[str, ...] = ()) -> None:
    for reading in ("trail", "path"):
        for exp in {(), ("meteor",), expansions}:
            jit = score_sheet(sheet, reading, exp, compiled=True)
            pure = score_sheet(sheet, reading, exp, compiled=False)
            full = score_sheet_full(sheet, reading, exp)
            for key in NUMBERS + ("longest",):
                assert getattr(jit, key) == getattr(pure, key) == getattr(full, key), (key, reading, exp,
                                                                                        sheet.diagram())
            assert jit == full


def _prefixes(sheet: Sheet, step: int = 3) -> list[Sheet]:
    """The sheet as it stood after every `step`-th square drawn (partial sheets)."""
    out, part = [], replace(Sheet(), exits=sheet.exits, craters=sheet.craters)
    for i, (cell, square) in enumerate(sheet.placed()):
        part = part.put(cell, square)
        if i % step == 0:
            out.append(part)
    return out


@needs_numba
def test_the_compiled_scorer_loads() -> None:
    assert scoring.compiled_kernel() is not None


@needs_numba
def test_complete_and_partial_sheets_of_random_games() -> None:
    for seed in range(12):
        sheet = random_game(seed, greedy=seed % 3 == 0)[0].sheets[0]
        _same(sheet)
        for part in _prefixes(sheet):
            _same(part)


@needs_numba
@pytest.mark.parametrize("expansion", ["meteor", "river", "lake", "lava"])
def test_every_expansion(expansion: str) -> None:
    """The compiled path covers the base game and the meteor; a river, lake or lava score goes to
    the square-by-square scorer whatever `compiled` says, and their tiles are read either way."""
    for seed in range(4):
        state = random_game(seed, players=2, expansions=(expansion,))[0]
        for sheet in state.sheets:
            _same(sheet, (expansion,))
            for part in _prefixes(sheet, 5):
                _same(part, (expansion,))


@needs_numba
def test_random_shapes_everywhere() -> None:
    rng = random.Random(17)
    for i in range(300):
        _same(_random_sheet(rng, (0.2, 0.5, 0.8, 1.0)[i % 4]))


def _grid(rng: random.Random, kind: str, size: int, keep: float) -> Sheet:
    """A size x size block of one kind, each inner connection kept with probability `keep`."""
    cells = [r * 7 + c for r in range(1, size + 1) for c in range(1, size + 1)]
    sides = {c: ["-"] * 4 for c in cells}
    for c in cells:
        for s in (1, 2):
            n = NEIGHBOURS[c][s]
            if n in sides and rng.random() < keep:
                sides[c][s], sides[n][OPPOSITE[s]] = kind, kind
    sheet = Sheet()
    for c in cells:
        if kind in sides[c]:
            sheet = sheet.put(c, Square("".join(sides[c]), "drawn"))
    return sheet


def _longest_out(sheet: Sheet, path: bool) -> tuple[int, int]:
    kernel = scoring.compiled_kernel()
    assert kernel is not None
    out = kernel(sheet.packed, scoring._STANDARD_MASKS, 0, path)
    return out[3], out[4]


@needs_numba
def test_loops_are_searched_compiled() -> None:
    """Dense highway and railway grids have cycles: the compiled depth-first search answers most of
    them (a dense tangle past SEARCH_STEPS goes to the chain search), equal to both readings of it."""
    rng = random.Random(5)
    searched = handed = 0
    for _ in range(60):
        sheet = _grid(rng, rng.choice("HR"), rng.randint(2, 4), 0.8)
        for path in (False, True):
            got = _longest_out(sheet, path)
            searched += max(got) > 0
            handed += min(got) < 0
        _same(sheet)
    assert searched > 40 and handed > 0


@needs_numba
def test_a_dense_tangle_goes_to_the_chain_search() -> None:
    sheet = _grid(random.Random(1), "H", 5, 1.0)  # 40 connections: too many trails to walk
    assert _longest_out(sheet, False)[0] == jitscore.CYCLIC
    full = score_sheet_full(sheet, "trail")
    assert score_sheet(sheet, "trail", compiled=True) == score_sheet(sheet, "trail", compiled=False) == full


def _has_cycle(p: tuple[int, ...], k: int) -> bool:
    """Whether kind k's graph (k: its first mask index) has a cycle: a connection inside a component."""
    parent = list(range(49))

    def find(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    joins = [(c, c + 1) for c in range(49) if c % 7 < 6 and p[k + 1] >> c & 1 and p[k + 3] >> (c + 1) & 1]
    joins += [(c, c + 7) for c in range(42) if p[k + 2] >> c & 1 and p[k] >> (c + 7) & 1]
    for a, b in joins:
        a, b = find(a), find(b)
        if a == b:
            return True
        parent[a] = b
    return False


@needs_numba
def test_sheets_with_loops_from_random_games() -> None:
    """Complete sheets of random and greedy games with a cycle in a route graph (about 1 in 20)."""
    found = 0
    for seed in range(2000, 2100):
        sheet = random_game(seed, greedy=seed % 2 == 0)[0].sheets[0]
        if _has_cycle(sheet.packed, 0) or _has_cycle(sheet.packed, 4):
            found += 1
            assert min(_longest_out(sheet, False) + _longest_out(sheet, True)) > 0  # searched compiled
            _same(sheet)
            if found == 6:
                break
    assert found == 6


@needs_numba
def test_custom_exits() -> None:
    """Exits on edge sides (up to 56: past 12 heads the pure count takes over), an exit listed twice
    and a side listed with both kinds (one exit per side, the last listed, as score_sheet_full reads
    them; the pure packed scorer counted a twice-listed exit twice)."""
    rng = random.Random(9)
    edge = [(c, s, k) for c in range(49) for s in range(4) if NEIGHBOURS[c][s] < 0 for k in "HR"]
    for i in range(60):
        sheet = _random_sheet(rng, (0.6, 1.0)[i % 2])
        exits = tuple(rng.sample(edge, rng.randint(0, len(edge))))
        if i % 5 == 0:
            exits = STANDARD_EXITS + STANDARD_EXITS[:3] + ((1, 0, "R"), (3, 0, "H"))
        _same(replace(sheet, exits=exits))


@needs_numba
def test_samples_and_shared_cases(shared_dir: Path) -> None:
    files = sorted(SAMPLES.glob("*.json")) + sorted((shared_dir / "cases" / "railroad_ink").glob("*.json"))
    assert len(files) > 10
    for path in files:
        sf = load_sheet(path)
        _same(sf.sheet, tuple(sf.expansions))


@needs_numba
def test_the_samples_without_shared_data() -> None:
    for path in sorted(SAMPLES.glob("*.json")):
        sf = load_sheet(path)
        _same(sf.sheet, tuple(sf.expansions))


@needs_numba
def test_auto_load_after_jit_after_sheets(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scoring, "_load", {"left": 3, "tried": 0})
    sheet = random_game(1)[0].sheets[0]
    score_sheet(sheet)
    score_sheet(sheet)
    assert scoring._kernel is None  # two pure sheets: not loaded yet
    score_sheet(sheet)
    assert scoring._kernel is not None


def test_pure_env_keeps_the_pure_scorer(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(scoring.PURE_ENV, "1")
    monkeypatch.setattr(scoring, "_load", {"left": 1, "tried": 0})
    sheet = random_game(2)[0].sheets[0]
    assert score_sheet(sheet) == score_sheet(sheet, compiled=True) == score_sheet_full(sheet)
    assert scoring._kernel is None and scoring.compiled_kernel() is None


def test_without_numba_the_pure_scorer_answers(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jitscore, "available", lambda: False)
    sheet = random_game(3)[0].sheets[0]
    assert score_sheet(sheet, compiled=True) == score_sheet_full(sheet)
    assert scoring._kernel is None
