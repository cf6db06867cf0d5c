"""Plan files: a match set-up and a list of actions (notation strings or JSON objects), used by the
`highway-referee tokyo` commands and tests. Format: docs/formats/tokyo-plan.md."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import jsontext
from engine.core import EngineError, Verdict, step
from engine.tokyo.actions import TokyoAction, action_from_json, parse_action
from engine.tokyo.config import TokyoRules
from engine.tokyo.state import TokyoState


@dataclass(frozen=True)
class Plan:
    start: TokyoState
    actions: tuple[TokyoAction, ...]
    source: str = "plan"

    def replay(self, upto: int | None = None) -> tuple[TokyoState, list[Verdict]]:
        """Judge and apply each action in turn; an illegal build leaves the table as it was."""
        state, verdicts = self.start, []
        for i, action in enumerate(self.actions[:upto]):
            try:
                state, verdict = step(state, action)
            except EngineError as exc:
                raise EngineError(f"{self.source} action {i + 1} ({action.notation()}): {exc}") from None
            verdicts.append(verdict)
        return state, verdicts


def plan_from_json(data: Any, source: str = "plan") -> Plan:
    if not isinstance(data, dict):
        raise EngineError(f"{source}: a plan is a JSON object with 'actions', got {type(data).__name__}")
    game = data.get("game", "tokyo-highway")
    if game != "tokyo-highway":
        raise EngineError(f"{source}: this is a plan for {game!r}, not tokyo-highway")
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise EngineError(f"{source}: 'options' must be an object")
    players = data.get("players", 2)
    if isinstance(players, bool) or not isinstance(players, int):
        raise EngineError(f"{source}: 'players' must be 2, 3 or 4, got {players!r}")
    try:
        start = TokyoState.new(TokyoRules.from_variant(players, **options))
    except EngineError as exc:
        raise EngineError(f"{source}: {exc}") from None
    raw = data.get("actions")
    if not isinstance(raw, list):
        raise EngineError(f"{source}: 'actions' must be a list of notation strings or action objects")
    actions = []
    for i, item in enumerate(raw):
        try:
            actions.append(parse_action(item) if isinstance(item, str) else action_from_json(item))
        except EngineError as exc:
            raise EngineError(f"{source} action {i + 1}: {exc}") from None
    return Plan(start, tuple(actions), source)


def load_plan(path: str | Path) -> Plan:
    p = Path(path)
    try:
        text = jsontext.read_text(p)
    except OSError as exc:
        raise EngineError(f"cannot read plan {p}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise EngineError(f"{p}: {exc.msg}") from None
    try:
        data = jsontext.loads(text)
    except json.JSONDecodeError as exc:
        raise EngineError(f"{p}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    return plan_from_json(data, str(p))
