"""The small core every game engine shares.

A game is a `GameState` subclass: an immutable-by-convention value with `legal_actions()`,
a pure `judge(action) -> Verdict` and `apply(action) -> GameState`. Dice rolls are chance
actions (OpenSpiel's chance nodes): the camera or the user reports them like any other action.

Illegal physical actions are still judged, never silently dropped: the verdict's consequence says
what the referee does with them (the turn is lost, the player must correct, a penalty...).
`step()` applies that consequence so a match log can be replayed action by action.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

CHANCE = -1  # current_player() of a chance node (a roll is expected)
TERMINAL = -4  # current_player() of a finished game


class EngineError(ValueError):
    """Bad input to an engine: not an illegal move, but something that cannot be a move at all
    (an unknown cell, a value outside 1-6, malformed notation, an inconsistent board file)."""


class NotationError(EngineError):
    """A move written in a game's notation could not be parsed."""


class Consequence(enum.StrEnum):
    NONE = "none"  # legal: the action takes effect
    TURN_LOST = "turn_lost"  # illegal: nothing happens except that the turn passes
    MUST_CORRECT = "must_correct"  # illegal: the table must be put back; the state does not change
    PENALTY = "penalty"  # a rule-defined penalty is applied (details in the verdict)


@dataclass(frozen=True)
class Verdict:
    """The referee's answer to one action. `rule` is a stable id documented in docs/rules/."""

    legal: bool
    rule: str
    reason: str
    consequence: Consequence = Consequence.NONE
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "legal": self.legal,
            "rule": self.rule,
            "reason": self.reason,
            "consequence": self.consequence.value,
        }
        if self.details:
            out["details"] = self.details
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Verdict:
        try:
            return cls(
                legal=bool(data["legal"]),
                rule=str(data["rule"]),
                reason=str(data["reason"]),
                consequence=Consequence(data.get("consequence", "none")),
                details=dict(data.get("details") or {}),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise EngineError(f"malformed verdict {data!r}: {exc}") from exc

    def same_ruling(self, other: Verdict) -> bool:
        """Equal for replay purposes: legality, rule and consequence (reasons may be reworded)."""
        return (self.legal, self.rule, self.consequence) == (other.legal, other.rule, other.consequence)

    @classmethod
    def ok(cls, rule: str, reason: str, **details: Any) -> Verdict:
        return cls(True, rule, reason, Consequence.NONE, details)

    @classmethod
    def illegal(cls, rule: str, reason: str, consequence: Consequence, **details: Any) -> Verdict:
        return cls(False, rule, reason, consequence, details)


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended. `winners` holds seat indices; empty with draw=True is a draw."""

    winners: tuple[int, ...]
    draw: bool
    reason: str
    scores: tuple[float, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "winners": list(self.winners),
            "draw": self.draw,
            "reason": self.reason,
            "scores": list(self.scores),
        }


class Action(ABC):
    """A game's action. Subclasses are frozen dataclasses with a JSON form and a notation."""

    @abstractmethod
    def to_json(self) -> dict[str, Any]: ...

    @abstractmethod
    def notation(self) -> str: ...

    def __str__(self) -> str:
        return self.notation()


class GameState(ABC):
    """The state of one match of one game. Treat instances as values: `apply` returns a new one."""

    game_name: ClassVar[str]

    @abstractmethod
    def current_player(self) -> int:
        """Seat index to move, CHANCE when a roll is expected, TERMINAL when the game is over."""

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    @abstractmethod
    def legal_actions(self) -> Iterator[Action]:
        """Every legal action here (lazy). For chance nodes: every possible roll."""

    @abstractmethod
    def judge(self, action: Action) -> Verdict:
        """Pure: says whether `action` is legal here, under which rule, with which consequence."""

    @abstractmethod
    def _apply_legal(self, action: Action, verdict: Verdict) -> GameState:
        """The new state after a legal action."""

    def _apply_illegal(self, action: Action, verdict: Verdict) -> GameState:
        """The new state after an illegal action. Default: MUST_CORRECT leaves the state as it is;
        games where an illegal action costs the turn or a penalty override this."""
        if verdict.consequence is Consequence.MUST_CORRECT:
            return self
        raise NotImplementedError(f"{self.game_name} does not implement consequence {verdict.consequence}")

    def apply(self, action: Action, verdict: Verdict | None = None) -> GameState:
        """Apply `action` with the consequence its verdict carries (judged here if not given)."""
        verdict = verdict if verdict is not None else self.judge(action)
        if verdict.legal:
            return self._apply_legal(action, verdict)
        return self._apply_illegal(action, verdict)

    def outcome(self) -> Outcome | None:
        return None

    @abstractmethod
    def to_json(self) -> dict[str, Any]: ...

    @classmethod
    @abstractmethod
    def from_json(cls, data: dict[str, Any]) -> GameState: ...

    def is_legal(self, action: Action) -> bool:
        return self.judge(action).legal


def judge(state: GameState, action: Action) -> Verdict:
    """Module-level form of `state.judge(action)` (the design card's `judge(state, action)`)."""
    return state.judge(action)


def step(state: GameState, action: Action) -> tuple[GameState, Verdict]:
    """Judge and apply in one go: the new state and the verdict that produced it."""
    verdict = state.judge(action)
    return state.apply(action, verdict), verdict


def play(state: GameState, actions: Iterable[Action]) -> tuple[GameState, list[Verdict]]:
    verdicts = []
    for action in actions:
        state, verdict = step(state, action)
        verdicts.append(verdict)
    return state, verdicts
