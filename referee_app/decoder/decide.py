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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from referee_app.decoder.candidates import ACTION, FLAG, NOTHING, OTHER, WAIT, Candidate, judge, wait
from referee_app.decoder.evidence import Evidence, beliefs_from_items
from referee_app.games.base import Explanation, Observation

PENALTY_CHANGED = 3.5  # "something else": a judged piece now reads as another (turned, swapped)
PENALTY_PRESENCE = 1.0  # "something else": a piece appeared or vanished
STRONG = 1.0  # nats by which "something else" must lead to be raised at once; less must persist
COMMIT_MARGIN = 1.0  # nats the best candidate must lead the runner-up by to be committed unasked
JUDGE_TOP = 6  # how many of the best action candidates the engine is asked about
SEEN_AS_EXPECTED = 0.9  # the belief given to an unseen item the evidence holds nothing about
ALPHA = 0.85  # weight of the newest frame in the evidence: a change shows in the likeliest table at once
GROUP_SPAN = 5.0  # nats below a group's best member past which a member adds nothing worth judging
GROUP = "group"  # the vote key's kind for a group of actions that together beat "nothing"


class Decodable(Protocol):
    def expected(self, state: Any) -> dict[str, Any]: ...

    def candidates(self, state: Any, table: dict[str, Any]) -> list[Candidate] | None: ...

    def explain(self, state: Any, seen: Observation) -> Explanation: ...


def same_place(adapter: Any, a: Candidate, b: Candidate) -> bool:
    """Whether two actions are readings of one change at one place: the adapter's `near` where it has
    one (Tokyo Highway: a new column a grid step or two apart, from the same base), else the same cells."""
    near = getattr(adapter, "near", None)
    if near is not None:
        return bool(near(a.action, b.action))
    return bool(a.cells) and set(a.cells) == set(b.cells)


def group_lead(adapter: Any, ranked: Ranked, state: Any, margin: float) -> list[Candidate] | None:
    """"Nothing" leads, but only narrowly (by less than `margin`) ahead of the best action, and the
    actions at that action's place (two or more), taken as one change ("a build stands there"),
    outscore it: the evidence says something was put there, split over readings of the same build (a
    grid step off, a unit lower, a junction twin). Each alone losing to "nothing" is how an illegal
    build's prior hid it. The group is then the best change but not a clear one (its members split
    it), so, as for any best move that is not clear, the players are asked. Returns the group, best
    first, or None. (Scores are averaged log-probabilities: their log-sum-exp under-counts the summed
    belief, so the group is not favoured.)"""
    if ranked.best.kind != NOTHING:
        return None
    actions = [c for c in ranked.ranked if c.kind == ACTION and c.action is not None]
    if not actions:
        return None
    top = max(actions, key=lambda c: c.score)
    if ranked.best.score - top.score >= margin:
        return None
    # a member is a reading the evidence itself prefers to "nothing" (its gain, the prior aside): where
    # the evidence is faint the belief spreads almost evenly over the readings of a place and "nothing",
    # and K such readings summed would beat "nothing" by log K whatever the pixels say (tuning seed 38's
    # take-back scene: three readings a grid step apart along a road, two of them below "nothing" on
    # the evidence, asked about a column nobody built)
    group = [c for c in actions if c.score > top.score - GROUP_SPAN and c.gain > 0.0
             and same_place(adapter, top, c)]
    for c in group:  # judged like the best few: an illegal member's prior counts
        judge(state, c)
    group = sorted((c for c in group if c.kind == ACTION), key=lambda c: -c.score)
    if len(group) < 2:
        return None
    peak = group[0].score
    summed = peak + math.log(sum(math.exp(c.score - peak) for c in group))
    return group if summed > ranked.best.score else None


@dataclass
class Ranked:
    best: Candidate
    ranked: list[Candidate]
    margin: float
    confidence: float


def rank(evidence: Evidence, expected: dict[str, Any], table: dict[str, Any],
         cands: list[Candidate], state: Any, hand_seen: bool = True,
         twins: Callable[[Any, Any], bool] | None = None) -> Ranked | None:
    """Score and order `cands` (the engine judges the best few actions); None without candidates.
    Without a hand over the table since the last decision, a move that puts a piece where a judged
    one lies pays as much as "something else" does for it: the likelier story is a misread.
    `twins`: the adapter's test for two actions the pictures can barely tell apart, whose legality is
    evidence too (`_with_twins`)."""
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
        c.gain = sum(gain(k, v) for k, v in c.delta.items())
        c.score = c.prior + c.gain
        if not hand_seen:
            c.score -= PENALTY_CHANGED * c.covers
        scored.append(c)
    for c in [c for c in cands if c.kind == OTHER]:
        keys = (set(table) | set(expected)) if c.scope is None else set(c.scope)
        diff = {k: table.get(k) for k in keys if table.get(k) != expected.get(k)}
        # "something else" changes only the items whose evidence outweighs their penalty
        net = {k: gain(k, v) - (PENALTY_CHANGED if v is not None and expected.get(k) is not None
                                and not c.loose else PENALTY_PRESENCE) for k, v in diff.items()}
        diff = {k: v for k, v in diff.items() if net[k] > 0}
        if not diff or _signature(diff) in seen:
            continue  # the table as read is "nothing" or one of the candidates: nothing else
        c.delta = diff
        c.score = sum(net[k] for k in diff)
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
    if twins is not None:
        sure = _with_twins(evidence, best, scored, twins, sure)
    return Ranked(best, scored, margin, min(1.0, sure, best.cap))


def _with_twins(evidence: Evidence, best: Candidate, scored: list[Candidate],
                twins: Callable[[Any, Any], bool], sure: float) -> float:
    """The best legal action's confidence where an illegal twin of it (the adapter's `twins`: the same
    change but for a detail the pictures show in a few pixels, Tokyo Highway's junction top against
    a plain one) holds belief: the twin's belief counts at its prior odds against the best, as the
    margin already counts it. The evidence's belief in the reading alone split the two (tuning seed 51's
    third move at 550/40, two cameras: an h3 junction, its top a sliver beside its road, 0.53 against
    0.34 for the plain column the height rule forbids there; margin 1.16 with the illegal prior, asked
    for want of 0.6). The beliefs are taken to sum to one (they sum to at most that: averaged
    log-probabilities), so the raised confidence is never more than the posterior."""
    if best.kind != ACTION or best.legal is not True or best.action is None or len(best.delta) != 1:
        return sure
    (key,) = best.delta
    spare = 0.0  # belief the twins' priors take away from the rivals of the best
    for c in scored:
        if (c is not best and c.kind in (ACTION, FLAG) and c.legal is False and c.action is not None
                and set(c.delta) == {key} and c.prior < best.prior and twins(best.action, c.action)):
            spare += math.exp(evidence.score(key, c.delta[key])) * (1.0 - math.exp(c.prior - best.prior))
    return sure / max(1.0 - spare, sure)


def _signature(delta: dict[str, Any]) -> tuple:
    return tuple(sorted(delta.items(), key=lambda kv: kv[0]))


class Decoder:
    """Per usable frame: add the observation's beliefs to the evidence, rank the adapter's
    candidates against it, and once the same candidate has been the best in `frames_needed` frames
    since the last decision, turn it into an Explanation for the loop (once per state and candidate)."""

    def __init__(self, adapter: Decodable, frames_needed: int = 3, persist: int | None = None,
                 commit_margin: float = COMMIT_MARGIN, alpha: float = ALPHA,
                 confirm_below: float = 0.6) -> None:
        self.adapter = adapter
        self.confirm_below = confirm_below
        self.frames_needed = max(1, frames_needed)
        self.persist = persist if persist is not None else self.frames_needed + 3
        self.commit_margin = commit_margin
        self.evidence = Evidence(alpha)
        self._votes: dict[tuple, int] = {}  # candidate -> frames it was the best since the last decision
        self._votes_state: Any = None  # the state of the match those frames were ranked against
        self._led: dict[tuple, tuple[int, int]] = {}  # candidate -> (first, last) frame it was the best
        self._frame = 0  # usable frames pushed, to order the leads
        self._hand = True  # a hand (a blocked view) since the last decision
        self._decided_at: tuple[Any, tuple | None, dict[str, Any] | None] = (None, None, None)
        self._linger: dict[str, Any] = {}  # what an illegal move left on the table, until it goes
        self._grouped: dict[tuple, int] = {}  # a place -> frames its group beat a narrow "nothing"
        self.last: Ranked | None = None  # the latest ranking, for the page and tests

    def reset(self) -> None:
        """A hand over the table: what was seen before it says nothing about what lies there now."""
        self.evidence.reset()
        self._votes, self._led, self._hand, self._grouped = {}, {}, True, {}

    def push(self, obs: Observation, state: Any) -> Explanation | None:
        if obs.blocked:
            self.reset()
            return None
        beliefs = obs.beliefs or beliefs_from_items(obs.items, obs.confidence)
        unseen = obs.unseen
        if unseen:
            # an item out of the frame with no evidence yet (since a hand, or ever) is taken to be as the
            # match has it: not seeing a die is no evidence that it went
            expected = self.adapter.expected(state)
            known = self.evidence.keys()
            beliefs = dict(beliefs)
            for k in unseen:
                if k not in known and expected.get(k) is not None:
                    beliefs[k] = {expected[k]: SEEN_AS_EXPECTED}
            unseen = frozenset(k for k in unseen if k not in beliefs)
        self.evidence.add(beliefs, unseen)
        table = self.evidence.table()
        decided_state, decided_key, decided_table = self._decided_at
        # nothing new since the last decision. But a silent "nothing" decided on a table that reads a
        # change (the likeliest build is one, "nothing" ahead only by the illegal prior) is no reason to
        # stop looking: the same table's evidence keeps growing, and the build may come to lead it (or
        # its readings together outscore it: the group rule). Tuning seed 31's fourth move: "nothing"
        # decided in the build's first frame, the build then led four frames unseen
        same = state is decided_state and table == decided_table
        regroup = same and decided_key is not None and decided_key[0] == NOTHING
        if same and not (regroup and table != self.adapter.expected(state)):
            return None
        cands = self.adapter.candidates(state, table)
        if cands is None:
            return None
        if self._linger and state is decided_state:
            cands.insert(0, wait(self._linger))  # listed first: it stands for the same change
        ranked = rank(self.evidence, self.adapter.expected(state), table, cands, state, self._hand,
                      getattr(self.adapter, "twins", None))
        self.last = ranked
        if ranked is None:
            return None
        best = ranked.best
        if regroup and best.kind == OTHER:
            return None  # looking again is for the moves "nothing" hid, not a still table's misreads
        key = (best.kind, best.label(), _signature(best.delta))
        if state is not self._votes_state:
            # the match moved on without this decoder deciding (the players confirmed a question, typed
            # a missed move or corrected one): a lead counted against the old state is no rival of a
            # candidate of the new one (the frames after a question, still voting for its best, made
            # the next move a question too)
            self._votes, self._led, self._votes_state, self._grouped = {}, {}, state, {}
        # frames it led, not frames running: one misread frame delays a move, it does not hide it
        votes = self._votes[key] = self._votes.get(key, 0) + 1
        self._frame += 1
        self._led[key] = (self._led.get(key, (self._frame, 0))[0], self._frame)
        asked = self._group_question(state, table, ranked)
        if asked is not None:
            return asked
        if votes < self.frames_needed or best.kind == WAIT:
            return None
        if state is decided_state and key == decided_key:
            self._decided_at = (state, key, table)
            return None  # already said
        if best.kind == OTHER and ranked.margin < STRONG and votes < self.persist:
            return None
        # another change led nearly as often (a reading flickering between two): not clear. Not rivals:
        # "wait" (a column standing ready for its road is the build's own first half), and "something
        # else" of other items than the best's (a misread loose stick that never persisted says nothing
        # about which build stands; it made every Tokyo build after it a question), the best's own
        # first half, seen only before it (the hand has taken the dice from the tray and not yet put
        # one down: the table reads as a pass; it made every die placed under a hand a question), and a
        # superseded lead: one whose every lead ended before the best first led and which the current
        # ranking puts at least the commit margin below the best (the evidence moved on; a flicker leads
        # again after the best took over. A start road camera 2 alone saw before the move was made
        # made a clear Tokyo move a question)
        rival = max(2, self.frames_needed - 1)
        items = {i for i, _ in key[2]}
        if any(v >= rival and k != key and k[0] not in (NOTHING, WAIT)
               and (k[0] != OTHER or items & {i for i, _ in k[2]})
               and not self._first_half(k, key) and not self._superseded(k, key, ranked)
               for k, v in self._votes.items()):
            if best.kind == OTHER:
                return None
            ranked.margin = min(ranked.margin, 0.0)
        return self._decide(state, key, table, ranked)

    def _decide(self, state: Any, key: tuple, table: dict[str, Any], ranked: Ranked) -> Explanation | None:
        best = ranked.best
        clear = ranked.margin >= self.commit_margin
        self._hand, self._votes, self._led = False, {}, {}
        if best.kind != NOTHING:
            self._grouped = {}  # a silent "nothing" does not end the frames its group outscored it in
        self._decided_at = (state, key, table)
        if best.kind == NOTHING:
            self._linger = {}
            return Explanation(margin=ranked.margin)
        if best.kind == OTHER:
            return Explanation(mismatch=self._describe(state, best), cells=self._cells(best.delta),
                               margin=ranked.margin)
        if best.kind == FLAG and clear:
            self._after_illegal(state, best)
            return Explanation(mismatch=best.message, cells=best.cells or self._cells(best.delta),
                               margin=ranked.margin, flagged=True)
        if best.kind == ACTION and clear and ranked.confidence >= self.confirm_below:
            if best.legal is False:
                self._after_illegal(state, best)
            return Explanation(best.action, ranked.confidence, cells=best.cells, margin=ranked.margin)
        # not clear: the players choose among the best actions the engine can judge
        top = ranked.best.score
        total = sum(math.exp(c.score - top) for c in ranked.ranked)
        options = [(c.action, math.exp(c.score - top) / total) for c in ranked.ranked
                   if c.kind == ACTION and c.action is not None][:3]
        if not options:
            return None
        cells = sorted({cell for c in ranked.ranked[:3] for cell in c.cells})
        return Explanation(candidates=options, cells=cells, margin=ranked.margin)

    def _group_question(self, state: Any, table: dict[str, Any], ranked: Ranked) -> Explanation | None:
        """"Nothing" narrowly ahead of a group of builds at one place that together beat it clearly, in
        `frames_needed` frames since the last decision: ask the players with the group's best
        (instead of the silent "nothing" it would become). Counted per place (the group's cells and its
        best member's notation a frame may differ: the place is the group's best's cells)."""
        group = group_lead(self.adapter, ranked, state, self.commit_margin)
        if group is None:
            return None
        place = (GROUP, tuple(sorted(group[0].cells)) or group[0].label())
        votes = self._grouped[place] = self._grouped.get(place, 0) + 1
        if votes < self.frames_needed:
            return None
        if state is self._decided_at[0] and place == self._decided_at[1]:
            return None  # already asked
        self._hand, self._votes, self._led, self._grouped = False, {}, {}, {}
        self._decided_at = (state, place, table)
        peak = group[0].score
        total = sum(math.exp(c.score - peak) for c in group)
        options = [(c.action, math.exp(c.score - peak) / total) for c in group[:3]]
        cells = sorted({cell for c in group[:3] for cell in c.cells})
        return Explanation(candidates=options, cells=cells, margin=ranked.best.score - peak)

    def _first_half(self, rival: tuple, best: tuple) -> bool:
        """`rival` changes part of what `best` changes, the same way, and led only before `best` first
        did: the move half done, then done (not a reading flickering between the two)."""
        part, whole = set(rival[2]), set(best[2])
        return bool(part) and part < whole and self._led[rival][1] < self._led[best][0]

    def _superseded(self, rival: tuple, best: tuple, ranked: Ranked) -> bool:
        """`rival` led only before `best` first did, and the evidence now puts it at least the commit
        margin below `best` (or no longer proposes it): a lead the table moved on from, not a reading
        flickering between two changes (a flicker leads again after the best took over)."""
        if self._led[rival][1] >= self._led[best][0]:
            return False
        score = next((c.score for c in ranked.ranked
                      if (c.kind, c.label(), _signature(c.delta)) == rival), -math.inf)
        return ranked.best.score - score >= self.commit_margin

    def _after_illegal(self, state: Any, best: Candidate) -> None:
        """An illegal placement stays on the table until the players take it back: while it does,
        it is a thing already said, not news (the state the engine moves to does not hold it)."""
        self._linger = dict(best.delta)
        self._decided_at = (None, None, None)  # the engine's next state is the one to compare with
        # the adapter forgets what it kept of the illegal pieces (Tokyo Highway: the new column's
        # place): their take-back is expected, and the bare table there is no new build
        judged = getattr(self.adapter, "judged_illegal", None)
        if judged is not None and best.action is not None:
            judged(state, best.action)

    def note_state(self, state: Any) -> None:
        """The state the loop's last explanation led to (after the engine applied it)."""
        if self._linger and self._decided_at[0] is None:
            self._decided_at = (state, None, None)

    def _describe(self, state: Any, best: Candidate) -> str:
        """What "something else" is, in the adapter's own words where it has them."""
        seen = {k: v for k, v in {**self.adapter.expected(state), **best.delta}.items() if v is not None}
        try:
            said = self.adapter.explain(state, Observation(seen)).mismatch
        except Exception:  # noqa: BLE001 - the generic description below is always right
            said = None
        if said:
            return said
        parts = [f"{k} reads {'empty' if v is None else v}" for k, v in sorted(best.delta.items())]
        return "the table disagrees with the match: " + "; ".join(parts)

    @staticmethod
    def _cells(delta: dict[str, Any]) -> list[str]:
        return sorted(k.split(":", 1)[-1] for k in delta)
