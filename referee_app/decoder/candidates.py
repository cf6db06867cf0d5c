"""Candidates: the physically possible changes of the table from the engine's state.

Each candidate says how the table would differ from what the engine expects (`delta`: item ->
state, None for emptied) and what it means: an action the engine judges, legal or illegal
(`action`), an illegal placement the engine cannot even take as an action (`flag`: a die of
neither rolled value, a piece on an occupied cell...; the players are told `message`), "nothing
happened" (`nothing`), a half-done move to wait for (`wait`), or "something else happened"
(`other`: the table as the evidence reads it, within `scope`). Illegal candidates are scored exactly
like legal ones; only their prior is a little lower (players err, but rarely).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine import Action, EngineError

ACTION, FLAG, NOTHING, WAIT, OTHER = "action", "flag", "nothing", "wait", "other"
ILLEGAL_PRIOR = -0.7  # log prior of an illegal placement against a legal one


@dataclass
class Candidate:
    kind: str
    delta: dict[str, Any] = field(default_factory=dict)
    action: Action | None = None
    prior: float = 0.0
    message: str = ""
    cells: list[str] = field(default_factory=list)
    scope: frozenset[str] | None = None  # `other`: the items it may change (None: all)
    legal: bool | None = None  # `action`: the engine's verdict, once judged
    covers: int = 0  # judged pieces this move puts another piece on (a misread looks the same)
    loose: bool = False  # `other`: a changed item pays only the presence penalty
    alias: bool = False  # another reading of the same table change (kept, not merged with the first)
    cap: float = 1.0  # the most confidence the adapter gives this reading
    score: float = 0.0
    gain: float = 0.0  # the evidence's part of `score`: how much likelier it makes this change than none

    def label(self) -> str:
        return self.action.notation() if self.action is not None else (self.message or self.kind)


def nothing() -> Candidate:
    return Candidate(NOTHING)


def wait(delta: dict[str, Any] | None = None) -> Candidate:
    return Candidate(WAIT, dict(delta or {}))


def other(scope: set[str] | None = None, loose: bool = False) -> Candidate:
    """`loose`: the items in scope are loose dice judged moments ago (a tray): one that now shows
    another face is news to raise, not a judged piece to protect from misreads."""
    return Candidate(OTHER, scope=frozenset(scope) if scope is not None else None, loose=loose)


def act(action: Action, delta: dict[str, Any], cells: list[str] | None = None, covers: int = 0) -> Candidate:
    return Candidate(ACTION, delta, action, cells=list(cells or []), covers=covers)


def flag(message: str, delta: dict[str, Any], cells: list[str] | None = None, covers: int = 0) -> Candidate:
    return Candidate(FLAG, delta, None, ILLEGAL_PRIOR, message, list(cells or []), covers=covers)


def judge(state: Any, cand: Candidate) -> None:
    """Ask the engine about an action candidate (only the best few are asked: judging is the slow
    part): an illegal one gets the illegal prior, one the engine refuses outright becomes a flag."""
    if cand.kind != ACTION or cand.legal is not None or cand.action is None:
        return
    try:
        cand.legal = bool(state.judge(cand.action).legal)
    except EngineError as exc:
        cand.kind, cand.message, cand.legal = FLAG, str(exc), False
    if not cand.legal:
        cand.prior += ILLEGAL_PRIOR
        cand.score += ILLEGAL_PRIOR
