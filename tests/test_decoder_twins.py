"""A legal reading whose illegal twin holds belief (issue 19, branch tokyoq6): tuning seed 51's third
move at 550/40, two cameras, an h3 junction whose top unit shows as a sliver beside its road, read at
0.53 against 0.34 for the plain column of the same place and height, which the height rule forbids
there. The margin (1.16 nats with the illegal prior) cleared the commit margin, the belief (0.53) did
not clear 0.6, and the move was asked. Synthetic beliefs over one `build` item, as that decision saw
them; the adapter's `twins` pairs a junction with its plain column."""

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
    legal: bool

    def notation(self) -> str:
        return self.name


class Verdict:
    def __init__(self, legal: bool) -> None:
        self.legal = legal


class State:
    def judge(self, action: Put) -> Verdict:
        return Verdict(action.legal)


class Adapter:
    def __init__(self, builds: dict[str, bool], twins: bool) -> None:
        self.builds = builds
        if twins:
            self.twins = lambda a, b: a.name.split(" junction")[0] == b.name.split(" junction")[0]

    def expected(self, state: Any) -> dict[str, Any]:
        return {}

    def candidates(self, state: Any, table: dict[str, Any]) -> list[cand.Candidate]:
        return [cand.nothing()] + [cand.act(Put(k, legal), {KEY: k}, ["s2"]) for k, legal in self.builds.items()]

    def explain(self, state: Any, seen: Observation) -> Explanation:
        return Explanation()


SEED_51 = {"(180,0) h3 junction": 0.533, "(180,0) h3": 0.336, "(180,0) h2": 0.078, "(180,0) h4": 0.015,
           None: 0.001}


def decide(belief: dict[Any, float], legal: dict[str, bool], twins: bool = True) -> list[Explanation]:
    decoder, state = Decoder(Adapter(legal, twins), frames_needed=3), State()
    out = []
    for _ in range(4):
        ex = decoder.push(Observation({}, beliefs={KEY: dict(belief)}), state)
        if ex is not None and (ex.candidates or ex.action is not None or ex.mismatch):
            out.append(ex)
    return out


def test_a_legal_junction_whose_illegal_plain_twin_splits_its_belief_is_committed() -> None:
    legal = {"(180,0) h3 junction": True, "(180,0) h3": False, "(180,0) h2": True, "(180,0) h4": False}
    said = decide(SEED_51, legal)
    assert len(said) == 1 and said[0].action is not None, said  # main: asked
    assert said[0].action.name == "(180,0) h3 junction"
    # the plain twin at its prior odds (1 - e^-0.7 of its belief taken out): 0.533 / (1 - 0.503 * 0.336)
    assert 0.6 < said[0].confidence < 0.65


def test_a_legal_twin_takes_nothing_away() -> None:
    """Both twins legal (the plain column one unit off its base): the colour is the pixels' alone."""
    legal = {"(180,0) h3 junction": True, "(180,0) h3": True, "(180,0) h2": True, "(180,0) h4": False}
    said = decide(SEED_51, legal)
    assert len(said) == 1 and said[0].action is None  # asked, as on main


def test_an_illegal_reading_of_another_height_is_no_twin() -> None:
    belief = {"(180,0) h3 junction": 0.533, "(180,0) h4": 0.336, "(180,0) h2": 0.078, None: 0.001}
    legal = {"(180,0) h3 junction": True, "(180,0) h4": False, "(180,0) h2": True}
    said = decide(belief, legal)
    assert len(said) == 1 and said[0].action is None


def test_an_illegal_best_keeps_its_belief() -> None:
    """An illegal build read (the referee must flag it) is not made surer or less sure by its twin."""
    belief = {"(180,0) h3": 0.533, "(180,0) h3 junction": 0.336, "(180,0) h2": 0.078, None: 0.001}
    legal = {"(180,0) h3": False, "(180,0) h3 junction": False, "(180,0) h2": True}
    said = decide(belief, legal)
    assert len(said) == 1 and said[0].action is None


def test_without_the_adapters_twins_nothing_changes() -> None:
    legal = {"(180,0) h3 junction": True, "(180,0) h3": False, "(180,0) h2": True, "(180,0) h4": False}
    said = decide(SEED_51, legal, twins=False)
    assert len(said) == 1 and said[0].action is None
