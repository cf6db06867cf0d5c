"""What the rule helpers (building, candidates, views) read of a Tokyo Highway position.

`TokyoState` (engine/tokyo/state.py) answers to this shape and calls the helpers; the helpers name
only this protocol, so the state can import them without them importing the state back.
"""

from __future__ import annotations

from typing import Any, Protocol

from engine.tokyo.checks import Problem, TableIndex
from engine.tokyo.config import TokyoRules
from engine.tokyo.model import Car, Stick, Stock, Support


class TokyoTable(Protocol):
    game_name: str
    rules: TokyoRules
    supports: tuple[Support, ...]
    sticks: tuple[Stick, ...]
    cars: tuple[Car, ...]
    stock: tuple[Stock, ...]
    to_move: int
    out: tuple[int, ...]
    winner: int | None

    @property
    def index(self) -> TableIndex: ...

    @property
    def stick_by_id(self) -> dict[int, Stick]: ...

    @property
    def roads_from(self) -> dict[int, int]: ...

    @property
    def in_setup(self) -> bool: ...

    def support(self, sid: int) -> Support: ...

    def color(self, seat: int) -> str: ...

    def started(self, seat: int) -> bool: ...

    def open_bases(self, seat: int) -> list[Support]: ...

    def current_player(self) -> int: ...

    def game_over_problem(self) -> Problem | None: ...

    def turn_problem(self, seat: int) -> Problem | None: ...

    def same_model_donor(self, seat: int, models: tuple[str, ...]) -> int | None: ...

    def all_crossings(self) -> list[dict[str, Any]]: ...
