"""The decoder against a build whose belief is split over readings of one place (issue 19, tuning seed
31's fourth move): synthetic beliefs over one `build` item, every build illegal (so each pays the
illegal prior against "nothing"). A question must offer the build when its readings together beat a
narrow "nothing", or when the build comes to lead after a silent "nothing" on the same likeliest
table; a single weak candidate, builds at different places, or a still table stay silent."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from referee_app.decoder import candidates as cand
from referee_app.decoder.decide import Decoder
from referee_app.games.base import Explanation, Observation

KEY = "build"


@dataclass(frozen=True)
class Put:
    name: str

    def notation(self) -> str:
        return self.name


class Verdict:
    legal = False


class State:
    def judge(self, action: Any) -> Verdict:
        return Verdict()


class Adapter:
    """Every build the beliefs name is a candidate; `places` gives each its cells (its place)."""

    def __init__(self, places: dict[str, str]) -> None:
        self.places = places

    def expected(self, state: Any) -> dict[str, Any]:
        return {}

    def candidates(self, state: Any, table: dict[str, Any]) -> list[cand.Candidate]:
        return [cand.nothing()] + [cand.act(Put(k), {KEY: k}, [cell]) for k, cell in self.places.items()]

    def explain(self, state: Any, seen: Observation) -> Explanation:
        return Explanation()


def decide(places: dict[str, str], frames: list[dict[Any, float]]) -> list[Explanation]:
    decoder, state = Decoder(Adapter(places), frames_needed=3), State()
    out = []
    for belief in frames:
        ex = decoder.push(Observation({}, beliefs={KEY: dict(belief)}), state)
        if ex is not None and (ex.candidates or ex.action is not None or ex.mismatch):
            out.append(ex)
    return out


SPLIT = {None: 0.15, "h2 (150,-170)": 0.27, "h2 (150,-160)": 0.25, "h1 (150,-160)": 0.20, "h1 (150,-170)": 0.13}
ONE_PLACE = {k: "s2" for k in SPLIT if k is not None}


def test_builds_at_one_place_that_together_beat_a_narrow_nothing_are_asked():
    said = decide(ONE_PLACE, [SPLIT] * 5)
    assert len(said) == 1 and said[0].action is None
    offered = [a.notation() for a, _ in said[0].candidates]
    assert offered[0] == "h2 (150,-170)" and len(offered) == 3


def test_the_same_split_over_different_places_is_not_asked():
    places = {k: f"s{i}" for i, k in enumerate(ONE_PLACE)}
    assert decide(places, [SPLIT] * 5) == []


def test_a_single_weak_build_is_not_asked():
    weak = {None: 0.15, "h2 (150,-170)": 0.27}
    assert decide({"h2 (150,-170)": "s2"}, [weak] * 5) == []


def test_a_still_table_is_not_asked():
    still = {None: 0.9, "h2 (150,-170)": 0.03, "h2 (150,-160)": 0.03, "h1 (150,-160)": 0.02}
    assert decide(ONE_PLACE, [still] * 6) == []


def test_a_build_that_comes_to_lead_after_a_silent_nothing_is_asked():
    """The likeliest table reads the build from the first frame, but "nothing" leads (the illegal
    prior) until the evidence grows: decided silently, the same table was never ranked again."""
    early = {None: 0.2, "h2 (150,-170)": 0.35}
    later = {None: 0.1, "h2 (150,-170)": 0.5}
    said = decide({"h2 (150,-170)": "s2"}, [early] * 3 + [later] * 4)
    assert len(said) == 1 and [a.notation() for a, _ in said[0].candidates] == ["h2 (150,-170)"]


def test_readings_the_evidence_puts_below_nothing_do_not_make_a_group():
    """Faint evidence spreads the belief almost evenly over a place's readings and "nothing" (tuning
    seed 38's take-back scene: pixels of 0-19 nats, where a column built shows hundreds): three readings
    summed beat "nothing" by the log of their number, though two of them are less likely than it."""
    faint = {None: 0.26, "h1 (-150,-110)": 0.30, "h1 (-150,-120)": 0.20, "h1 (-150,-100)": 0.18}
    assert decide({k: "s1" for k in faint if k is not None}, [faint] * 5) == []
