"""Step-by-step states of a logged match, for the page's replay view."""

from __future__ import annotations

from typing import Any

import engine
from engine import EngineError, GameState
from referee_app.matchlog import MatchLogContents
from referee_app.replay import ReplayError, initial_state


def states_at(contents: MatchLogContents) -> list[tuple[GameState, dict[str, Any]]]:
    """[(state, info)] with step 0 the start and one step per action or correction record, in
    file order; a correction steps back to the state before the action it withdraws. An action
    the engine cannot read or apply (a damaged record) is a step that changes nothing and says why."""
    try:
        game = engine.get_game(contents.header.game)
    except EngineError as exc:
        raise ReplayError(f"{contents.path}: {exc}") from None
    stack = [initial_state(contents.header)]
    seqs: list[int] = []
    steps: list[tuple[GameState, dict[str, Any]]] = [(stack[0], {"seq": 0, "what": "start"})]
    for rec in contents.records:
        if rec["type"] == "action":
            try:
                action = game.action_from_json(rec["action"])
                verdict = stack[-1].judge(action)
                after = stack[-1].apply(action, verdict)
            except (EngineError, NotImplementedError, TypeError, ValueError, KeyError, IndexError) as exc:
                steps.append((stack[-1], {"seq": rec["seq"], "what": "unreadable",
                                          "reason": f"the engine cannot replay this action: {exc}"}))
                continue
            stack.append(after)
            seqs.append(rec["seq"])
            steps.append((stack[-1], {"seq": rec["seq"], "what": "action", "notation": action.notation(),
                                      "verdict": verdict.to_json(), "source": rec.get("source"),
                                      "recorded_verdict": rec.get("verdict")}))
        elif rec["type"] == "correction" and seqs and seqs[-1] == rec["target"]:
            stack.pop()
            seqs.pop()
            steps.append((stack[-1], {"seq": rec["seq"], "what": "correction", "target": rec["target"]}))
    return steps
