"""Seeded random legal games: sample sheets, test material and benchmark input.

Every action is drawn from `legal_actions()` (rolls from the real dice faces), so a game is a legal
record by construction; the same seed always gives the same actions.
"""

from __future__ import annotations

import random

from engine.core import Action, step
from engine.railroad_ink.scoring import score_sheet
from engine.railroad_ink.state import Done, RailroadInkState, Roll
from engine.railroad_ink.tiles import FACES, SPECIALS


def random_game(seed: int, players: int = 1, expansions: tuple[str, ...] = (), special_rate: float = 0.15,
                stop_rate: float = 0.05, greedy: bool = False) -> tuple[RailroadInkState, list[Action]]:
    """Play a whole game at random. Specials are drawn with probability `special_rate` when allowed;
    a player stops early (when the rules allow) with probability `stop_rate` per decision. With
    `greedy`, each placement is the one that raises the player's score most (ties at random), which
    gives sheets that look like a person played them."""
    rng = random.Random(seed)
    state = RailroadInkState.new(players, expansions)
    actions: list[Action] = []
    while not state.is_terminal():
        if state.is_chance_node():
            action: Action = Roll(tuple(rng.choice(FACES[d]) for d in state.dice))
        else:
            options = list(state.legal_actions())
            done = [a for a in options if isinstance(a, Done)]
            moves = [a for a in options if not isinstance(a, Done)]
            plain = [a for a in moves if getattr(a, "piece", None) not in SPECIALS]
            if done and (not moves or rng.random() < stop_rate):
                action = done[0]
            elif plain and (rng.random() >= special_rate or len(plain) == len(moves)):
                action = _best(state, plain, rng) if greedy else rng.choice(plain)
            else:
                action = _best(state, moves, rng) if greedy else rng.choice(moves)
        state, verdict = step(state, action)
        assert verdict.legal, (action, verdict)
        actions.append(action)
    return state, actions


def _best(state: RailroadInkState, moves: list[Action], rng: random.Random) -> Action:
    seat = state.current_player()

    def value(a: Action) -> tuple[int, float]:
        score = score_sheet(state.apply(a).sheets[seat], "trail", state.expansions)
        # the score, plus a pull towards reaching exits (points come once two exits meet)
        return score.total + 2 * sum(score.network_exit_counts), rng.random()

    return max(moves, key=value)
