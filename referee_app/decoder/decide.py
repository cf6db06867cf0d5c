"""Decide: score every candidate against the accumulated evidence and commit, ask, flag or wait.

A candidate's score is its log prior plus, for every item it changes, how much likelier the evidence
makes the new state than the one the engine expects there (averaged log-probabilities, see
evidence.py). "Something else happened" pays a penalty per item it changes, larger for a judged
piece read as another than for a piece that appeared or vanished: a piece already on the table keeps
its judged state unless strong evidence says otherwise, and even then a mismatch is raised only when
"something else" leads strongly or has led for `persist` frames running.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

from referee_app.decoder.candidates import ACTION, FLAG, NOTHING, OTHER, WAIT, Candidate, judge
from referee_app.decoder.evidence import Evidence, beliefs_from_items
from referee_app.games.base import Explanation, Observation

PENALTY_CHANGED = 3.5  # "something else": a judged piece now reads as another (turned, swapped)
PENALTY_PRESENCE = 1.0  # "something else": a piece appeared or vanished
STRONG = 1.0  # nats by which "something else" must lead to be raised at once; less must persist
COMMIT_MARGIN = 1.0  # nats the best candidate must lead the runner-up by to be committed unasked
JUDGE_TOP = 6  # how many of the best action candidates the engine is asked about
ALPHA = 0.7  # weight of the newest frame in the evidence: a change shows in the likeliest table at once


class Decodable(Protocol):
    def expected(self, state: Any) -> dict[str, Any]: ...

    def candidates(self, state: Any, table: dict[str, Any]) -> list[Candidate] | None: ...

    def explain(self, state: Any, seen: Observation) -> Explanation: ...


@dataclass
class Ranked:
    best: Candidate
    ranked: list[Candidate]
    margin: float
    confidence: float


def rank(evidence: Evidence, expected: dict[str, Any], table: dict[str, Any],
         cands: list[Candidate], state: Any, hand_seen: bool = True) -> Ranked | None:
    """Score and order `cands` (the engine judges the best few actions); None without candidates.
    Without a hand over the table since the last decision, a move that puts a piece where a judged
    one lies pays as much as "something else" does for it: the likelier story is a misread."""
    def gain(key: str, new: Any) -> float:
        return evidence.score(key, new) - evidence.score(key, expected.get(key))


    scored: list[Candidate] = []
    seen: set[tuple] = set()
    for c in [c for c in cands if c.kind != OTHER]:
        if c.kind != NOTHING:
            # two moves that leave the same table (storing a 5 over a pooled 5, or passing) cannot be
            # told apart by the camera: the first listed (the simpler) stands for both
            c.delta = {k: v for k, v in c.delta.items() if v != expected.get(k)}
            sig = _signature(c.delta)
            if not c.delta or (sig in seen and not c.alias):
                continue
            seen.add(sig)
        c.score = c.prior + sum(gain(k, v) for k, v in c.delta.items())
        if not hand_seen:
            c.score -= PENALTY_CHANGED * c.covers
        scored.append(c)
    for c in [c for c in cands if c.kind == OTHER]:
        keys = (set(table) | set(expected)) if c.scope is None else set(c.scope)
        diff = {k: table.get(k) for k in keys if table.get(k) != expected.get(k)}
        if not diff or _signature(diff) in seen:
            continue  # the table as read is "nothing" or one of the candidates: nothing else
        c.delta = diff
        c.score = sum(gain(k, v) - (PENALTY_CHANGED if v is not None and expected.get(k) is not None
                                    and not c.loose else PENALTY_PRESENCE) for k, v in diff.items())
        scored.append(c)
    if not scored:
        return None
    scored.sort(key=lambda c: -c.score)
    asked = 0
    for c in scored:  # the engine's verdict changes the prior of an illegal action
        if c.kind == ACTION:
            judge(state, c)
            asked += 1
            if asked >= JUDGE_TOP:
                break
    scored.sort(key=lambda c: -c.score)
    best = scored[0]
    margin = best.score - scored[1].score if len(scored) > 1 else math.inf
    # how sure the evidence is of what the best candidate says lies on the table: the (geometric
    # mean over frames) probability of its least sure item
    sure = math.exp(min((evidence.score(k, v) for k, v in best.delta.items()), default=0.0))
    return Ranked(best, scored, margin, min(1.0, sure, best.cap))


def _signature(delta: dict[str, Any]) -> tuple:
    return tuple(sorted(delta.items(), key=lambda kv: kv[0]))


class Decoder:
    """Per frame: add the observation's beliefs to the evidence; once the likeliest table has been
    the same for `frames_needed` usable frames and differs from the last one decided, rank the
    adapter's candidates and turn the best into an Explanation for the loop."""

    def __init__(self, adapter: Decodable, frames_needed: int = 3, persist: int | None = None,
                 commit_margin: float = COMMIT_MARGIN, alpha: float = ALPHA,
                 confirm_below: float = 0.6) -> None:
        self.adapter = adapter
        self.confirm_below = confirm_below
        self.frames_needed = max(1, frames_needed)
        self.persist = persist if persist is not None else self.frames_needed + 3
        self.commit_margin = commit_margin
        self.evidence = Evidence(alpha)
        self._table: dict[str, Any] | None = None
        self._stable = 0
        self._other_run = 0
        self._hand = True  # a hand (a blocked view) since the last decision
        self.last_decided: dict[str, Any] | None = None
        self.last: Ranked | None = None  # the latest ranking, for the page and tests

    def reset(self) -> None:
        """A hand over the table: what was seen before it says nothing about what lies there now."""
        self.evidence.reset()
        self._table, self._stable, self._other_run = None, 0, 0
        self._hand = True

    def push(self, obs: Observation, state: Any) -> Explanation | None:
        if obs.blocked:
            self.reset()
            return None
        self.evidence.add(obs.beliefs or beliefs_from_items(obs.items, obs.confidence))
        table = self.evidence.table()
        if table == self._table:
            self._stable += 1
        else:
            self._table, self._stable, self._other_run = table, 1, 0
        if self._stable < self.frames_needed or table == self.last_decided:
            return None
        cands = self.adapter.candidates(state, table)
        if cands is None:
            return None
        expected = self.adapter.expected(state)
        ranked = rank(self.evidence, expected, table, cands, state, self._hand)
        self.last = ranked
        if ranked is None:
            self._decided(table)
            return Explanation()
        best = ranked.best
        if best.kind == WAIT:
            return None
        if best.kind == OTHER:
            self._other_run += 1
            if ranked.margin < STRONG and self._other_run < self.persist:
                return None
            self._decided(table)
            return Explanation(mismatch=self._describe(state, table, best), cells=self._cells(best.delta),
                               margin=ranked.margin)
        self._other_run = 0
        self._decided(table)
        if best.kind == NOTHING:
            return Explanation(margin=ranked.margin)
        if best.kind == FLAG and ranked.margin >= self.commit_margin:
            return Explanation(mismatch=best.message, cells=best.cells or self._cells(best.delta),
                               margin=ranked.margin, flagged=True)
        clear = ranked.margin >= self.commit_margin
        if best.kind == ACTION and clear and ranked.confidence >= self.confirm_below:
            return Explanation(best.action, ranked.confidence, cells=best.cells, margin=ranked.margin)
        # not clear: the players choose among the best actions the engine can judge
        top = math.exp(ranked.best.score)
        total = sum(math.exp(c.score) for c in ranked.ranked) / top
        options = [(c.action, math.exp(c.score) / top / total) for c in ranked.ranked
                   if c.kind == ACTION and c.action is not None][:3]
        if not options:
            return None
        cells = sorted({cell for c in ranked.ranked[:3] for cell in c.cells})
        return Explanation(candidates=options, cells=cells, margin=ranked.margin)

    def _decided(self, table: dict[str, Any]) -> None:
        self.last_decided, self._hand = table, False

    def _describe(self, state: Any, table: dict[str, Any], best: Candidate) -> str:
        """What "something else" is, in the adapter's own words where it has them."""
        try:
            said = self.adapter.explain(state, Observation(dict(table))).mismatch
        except Exception:  # noqa: BLE001 - the generic description below is always right
            said = None
        if said:
            return said
        parts = [f"{k} reads {'empty' if v is None else v}" for k, v in sorted(best.delta.items())]
        return "the table disagrees with the match: " + "; ".join(parts)

    @staticmethod
    def _cells(delta: dict[str, Any]) -> list[str]:
        return sorted(k.split(":", 1)[-1] for k in delta)
