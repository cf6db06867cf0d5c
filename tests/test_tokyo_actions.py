"""Tokyo Highway actions: notation and JSON round trips, and clear errors for malformed input."""

from __future__ import annotations

import pytest

from engine import EngineError, NotationError, get_game
from engine.tokyo import Build, Knock, Skip, Start, action_from_json, parse_action

EXAMPLES = [
    ("purple start (100,-200) table (40,-200)", Start),
    ("green start (0,57) table (-102.1,57) model truck", Start),
    ("purple s1 -> (150,-120) h2", Build),
    ("p2 s4 -> (90,30) h3 junction cars 1 over r2 under r5", Build),
    ("green s5 -> ramp (60,80)", Build),
    ("purple s6 -> s2", Build),
    ("s3 -> (1.5,-2.5) h1 models sedan,bus", Build),
    ("green s2 -> (-40,-60) h2 at 10,30.5", Build),
    ("green skip", Skip),
    ("purple knocks green:2 p3:1 give junction", Knock),
]


@pytest.mark.parametrize(("text", "kind"), EXAMPLES)
def test_notation_and_json_round_trip(text: str, kind: type) -> None:
    a = parse_action(text)
    assert isinstance(a, kind)
    assert parse_action(a.notation()) == a
    assert action_from_json(a.to_json()) == a
    assert kind.from_json(a.to_json()) == a
    assert get_game("tokyo-highway").parse_action(str(a)) == a


def test_notation_is_forgiving_about_case_and_spaces() -> None:
    assert parse_action("  Purple  S1->( 150 , -120 )  H2 ") == parse_action("purple s1 -> (150,-120) h2")


@pytest.mark.parametrize(("text", "match"), [
    ("purple s1 -> (150,-120)", "cannot read"),
    ("purple s1 -> (150,-120) h2 cars", "needs a value"),
    ("purple s1 -> (150,-120) h2 wings 3", "expected cars N"),
    ("purple s1 -> (150,-120) h-1", "at least 1 column"),
    ("purple knocks", "cannot read"),
    ("violet skip", "unknown player"),
    ("purple s1 -> (150,-120) h2 cars 2 models a", "2 cars placed but 1 models"),
])
def test_bad_notation(text: str, match: str) -> None:
    with pytest.raises(NotationError, match=match):
        parse_action(text)


@pytest.mark.parametrize(("data", "match"), [
    ([1, 2], "JSON object"),
    ({"type": "fly"}, "unknown tokyo-highway action type"),
    ({"type": "build", "base": 1}, "exactly one of"),
    ({"type": "build", "base": "s1", "ramp": [0, 0]}, "base must be an id number"),
    ({"type": "build", "base": 1, "support": {"x": 0, "y": 0}}, "new support is"),
    ({"type": "build", "base": 1, "ramp": [0, "far"]}, "ramp table point"),
    ({"type": "start", "table": [0, 0]}, "missing or bad"),
    ({"type": "knock", "victims": []}, "whose pieces fell"),
    ({"type": "knock", "victims": [["green", 0]]}, "whole number >= 1"),
    ({"type": "knock", "victims": [["green", 1]], "give": "car"}, "grey or a junction"),
])
def test_bad_json(data, match: str) -> None:
    with pytest.raises(EngineError, match=match):
        action_from_json(data)
    with pytest.raises(EngineError):
        Skip.from_json({"type": "build", "base": 1, "ramp": [0, 0]})
