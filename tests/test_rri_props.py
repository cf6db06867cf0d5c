"""Properties: scores do not depend on how the sheet is turned (exits carried along); random legal
games never crash and replay identically; the fast longest-route search equals exhaustive search."""

from __future__ import annotations

import json
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import play
from engine.railroad_ink import (
    PIECES,
    RailroadInkState,
    Sheet,
    Square,
    action_from_json,
    parse_action,
    score_sheet,
    transform_sheet,
)
from engine.railroad_ink.board import NEIGHBOURS
from engine.railroad_ink.randomgame import random_game
from engine.railroad_ink.reference import naive_longest, route_graph
from engine.railroad_ink.tiles import EXPANSIONS, orientations

SHAPES = list(PIECES)
ALL = tuple(EXPANSIONS)


@st.composite
def sheets(draw) -> Sheet:
    sheet = Sheet()
    for cell in draw(st.lists(st.integers(0, 48), max_size=40, unique=True)):
        piece = draw(st.sampled_from(SHAPES))
        sides = draw(st.sampled_from(orientations(piece)))
        sheet = sheet.put(cell, Square(sides, piece, PIECES[piece][1]))
    craters = draw(st.sets(st.integers(0, 48), max_size=3))
    return replace(sheet, craters=frozenset(c for c in craters if sheet.cells[c] is None))


def _numbers(sheet: Sheet, reading: str) -> dict:
    out = score_sheet(sheet, reading, ALL).to_json()
    for k in ("longest_highway_route", "longest_railway_route", "error_sides"):
        out.pop(k)
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sheets(), st.integers(0, 3), st.booleans())
def test_turned_or_mirrored_sheet_scores_the_same(sheet: Sheet, turns: int, mirrored: bool) -> None:
    turned = transform_sheet(sheet, turns, mirrored)
    for reading in ("trail", "path"):
        assert _numbers(turned, reading) == _numbers(sheet, reading)


def test_turning_maps_exits_onto_the_standard_layout_only_for_symmetric_turns() -> None:
    base = Sheet()
    assert transform_sheet(base, 2).exits == tuple(sorted(base.exits))  # half turn: the printed layout again
    assert transform_sheet(base, 1).exits != tuple(sorted(base.exits))  # quarter turn swaps H and R exits


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(1, 2), st.sets(st.sampled_from(EXPANSIONS), max_size=2))
def test_random_legal_games_replay_identically(seed: int, players: int, expansions: set[str]) -> None:
    exp = tuple(e for e in EXPANSIONS if e in expansions)
    end, actions = random_game(seed, players, exp)
    again, verdicts = play(RailroadInkState.new(players, exp), actions)
    assert all(v.legal for v in verdicts)
    assert again.to_json() == end.to_json()
    # actions survive their JSON and their notation
    assert [action_from_json(json.loads(json.dumps(a.to_json()))) for a in actions] == actions
    assert [parse_action(a.notation()) for a in actions] == actions
    assert RailroadInkState.from_json(json.loads(json.dumps(end.to_json()))).to_json() == end.to_json()
    assert end.outcome() is not None and len(end.outcome().scores) == players
    view = json.loads(json.dumps(end.table_view()))
    assert view["phase"] == "over" and len(view["players"]) == players


@st.composite
def grid_graphs(draw) -> Sheet:
    cells = [r * 7 + c for r in range(3) for c in range(4)]
    sides = {c: ["-"] * 4 for c in cells}
    for c in cells:
        for s in (1, 2):
            n = NEIGHBOURS[c][s]
            if n in sides and draw(st.booleans()):
                sides[c][s] = "H"
                sides[n][(s + 2) % 4] = "H"
    sheet = Sheet()
    for c in cells:
        if "H" in sides[c]:
            sheet = sheet.put(c, Square("".join(sides[c]), "drawn"))
    return sheet


@settings(max_examples=60, deadline=None)
@given(grid_graphs())
def test_fast_longest_route_equals_exhaustive_search(sheet: Sheet) -> None:
    adj = route_graph(sheet, "H")
    for reading in ("trail", "path"):
        score = score_sheet(sheet, reading, trace=True)
        assert score.longest_highway == naive_longest(adj, reading)
        route = score.highway_route
        if score.longest_highway >= 2:  # the traced route is a real route of that length
            assert len(route) == score.longest_highway
            assert all(b in adj[a] for a, b in zip(route, route[1:], strict=False))
