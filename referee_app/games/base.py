"""What the referee needs from each game beyond its engine: how to draw it, what to show beside
it, which cells an action touches (for the LED board), and - where a camera reader exists - how to
read a frame and explain a settled change as an action."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine import Action, GameState


@dataclass
class Observation:
    """What a reader saw in one frame, as comparable items: key (a cell, a tray slot...) -> value.
    `confidence` per key; `blocked` is set when the view is not usable (a hand, glare, no board).
    `beliefs`: per item, a probability distribution over its states (vision.beliefs; None is
    empty); an item not listed was seen empty, unless it is `unseen`. Readers without beliefs leave
    it empty and the decoder takes each item's value with its confidence."""

    items: dict[str, Any]
    confidence: dict[str, float] = field(default_factory=dict)
    blocked: str | None = None
    warnings: list[str] = field(default_factory=list)
    annotated: np.ndarray | None = None  # the frame with what was read drawn on it
    frame_index: int = 0
    timestamp: float = 0.0
    beliefs: dict[str, dict[Any, float]] = field(default_factory=dict)
    # items the camera cannot see in this frame (out of the frame): neither empty nor read; the decoder
    # keeps what it believed of them
    unseen: frozenset[str] = frozenset()

    def min_confidence(self) -> float:
        return min(self.confidence.values(), default=1.0)


@dataclass
class Explanation:
    """The referee's reading of a settled change. Exactly one of: `action` (a confident single
    action), `candidates` (ask the players to confirm), `mismatch` (the table disagrees with the
    match), or nothing changed (all None/empty)."""

    action: Action | None = None
    confidence: float = 1.0
    candidates: list[tuple[Action, float]] = field(default_factory=list)
    mismatch: str | None = None
    cells: list[str] = field(default_factory=list)
    margin: float | None = None  # the decoder's lead of the best candidate over the runner-up (nats)
    flagged: bool = False  # the mismatch is an illegal placement the engine cannot take as an action


class GameAdapter:
    game = ""
    has_reader = False

    def board_svg(self, state: GameState) -> str:
        text = html.escape(json.dumps(state.to_json(), indent=1))
        return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 300"><foreignObject width="400" '
                f'height="300"><pre xmlns="http://www.w3.org/1999/xhtml">{text}</pre></foreignObject></svg>')

    def extras(self, state: GameState) -> dict[str, Any]:
        """Game-specific facts for the page (best paths, scores, legal uses...)."""
        return {}

    def hint(self, state: GameState, time_limit: float | None = None) -> dict[str, Any] | None:
        """A hint for the player to move, or None. A search must stop by `time_limit` seconds."""
        return None

    def action_cells(self, action: Action) -> list[str]:
        return []

    # -- camera side (games with a reader) --------------------------------------------------
    def read(self, frame: Any) -> Observation:
        raise NotImplementedError(f"no camera reader for {self.game} yet: use manual entry")

    def expected(self, state: GameState) -> dict[str, Any]:
        """What the engine believes lies on the table, in the reader's item form."""
        raise NotImplementedError

    def explain(self, state: GameState, seen: Observation) -> Explanation:
        raise NotImplementedError

    def candidates(self, state: GameState, table: dict[str, Any]) -> list[Any] | None:
        """The decoder's candidates (referee_app.decoder.candidates) for the likeliest `table`, or
        None when this game is judged by `explain` on a settled reading instead."""
        return None


class GenericAdapter(GameAdapter):
    def __init__(self, game: str) -> None:
        self.game = game
