"""Highway 4x4 (André Cabannes, 1998): rules, verdicts and best paths.

Rules-as-implemented, with rule ids, are in docs/rules/highway-grid.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from engine.core import (
    TERMINAL,
    Action,
    Consequence,
    EngineError,
    GameState,
    NotationError,
    Outcome,
    Verdict,
)
from engine.grid.paths import CELLS, PATHS, cell_name, parse_cell

PIECES = range(1, 17)
PLAYER_NAMES = ("Player 1", "Player 2")


@dataclass(frozen=True)
class Place(Action):
    """Put piece `piece` (1..16) on cell index `cell` (0..15). `player` is the seat that placed it
    when known (the camera may not know; None means "the player to move")."""

    piece: int
    cell: int
    player: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.piece, int) or self.piece not in PIECES:
            raise EngineError(f"piece must be a number 1..16, got {self.piece!r}")
        if not isinstance(self.cell, int) or not 0 <= self.cell < CELLS:
            raise EngineError(f"cell index must be 0..15, got {self.cell!r}")
        if self.player not in (None, 0, 1):
            raise EngineError(f"player must be 0 or 1, got {self.player!r}")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "place", "piece": self.piece, "cell": cell_name(self.cell)}
        if self.player is not None:
            out["player"] = self.player
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Place:
        if not isinstance(data, dict) or data.get("type") != "place":
            raise EngineError(f"not a highway-grid action: {data!r}")
        try:
            return cls(int(data["piece"]), parse_cell(str(data["cell"])), data.get("player"))
        except KeyError as exc:
            raise EngineError(f"highway-grid action lacks {exc}") from exc

    def notation(self) -> str:
        return f"{self.piece}@{cell_name(self.cell)}"


_NOTATION = re.compile(r"^\s*(\d{1,2})\s*@\s*([a-dA-D][1-4])\s*$")


def parse_action(text: str) -> Place:
    """'7@b2' puts piece 7 on cell b2 (columns a-d left to right, rows 1-4 top to bottom)."""
    m = _NOTATION.match(text)
    if not m:
        raise NotationError(f"cannot read {text!r}: write PIECE@CELL, e.g. 7@b2 (cells a1..d4)")
    piece = int(m.group(1))
    if piece not in PIECES:
        raise NotationError(f"cannot read {text!r}: pieces are numbered 1..16")
    return Place(piece, parse_cell(m.group(2)))


@dataclass(frozen=True)
class PathValue:
    """A player's best (lowest) path: its value and every path reaching it (ties kept)."""

    value: int  # sum of the pieces on the path (empty cells count 0 while the board fills)
    paths: tuple[tuple[int, ...], ...]
    complete: bool  # every cell of the best paths is filled

    def to_json(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "complete": self.complete,
            "paths": [[cell_name(c) for c in p] for p in self.paths],
        }


# One C-level getter per path: picking a path's 7 pieces is the hot part of scoring a board.
_PATH_GETTERS = tuple(tuple(itemgetter(*p) for p in PATHS[seat]) for seat in (0, 1))


def best_path(board: tuple[int, ...], seat: int) -> PathValue:
    sums = [sum(get(board)) for get in _PATH_GETTERS[seat]]
    best = min(sums)
    paths = tuple(p for s, p in zip(sums, PATHS[seat], strict=True) if s == best)
    complete = all(board[c] for p in paths for c in p)
    return PathValue(best, paths, complete)


@dataclass(frozen=True)
class GridState(GameState):
    game_name = "highway-grid"
    board: tuple[int, ...] = (0,) * CELLS  # piece number per cell, 0 = empty

    def __post_init__(self) -> None:
        if len(self.board) != CELLS:
            raise EngineError(f"a 4x4 board has 16 cells, got {len(self.board)}")
        placed = [p for p in self.board if p]
        if any(p not in PIECES for p in placed) or len(set(placed)) != len(placed):
            raise EngineError(f"board holds an unknown or repeated piece: {self.board}")

    # -- turn ---------------------------------------------------------------------------
    @property
    def placed(self) -> int:
        return sum(1 for p in self.board if p)

    def current_player(self) -> int:
        if self.placed == CELLS:
            return TERMINAL
        return self.placed % 2  # Player 1 (seat 0) starts

    def reserve(self) -> list[int]:
        on_board = set(self.board)
        return [p for p in PIECES if p not in on_board]

    def empty_cells(self) -> list[int]:
        return [i for i, p in enumerate(self.board) if not p]

    # -- rules --------------------------------------------------------------------------
    def legal_actions(self) -> Iterator[Place]:
        if self.is_terminal():
            return
        seat = self.current_player()
        for piece in self.reserve():
            for cell in self.empty_cells():
                yield Place(piece, cell, seat)

    def judge(self, action: Action) -> Verdict:
        if not isinstance(action, Place):
            raise EngineError(f"highway-grid cannot judge {action!r}")
        where = {"cell": cell_name(action.cell), "piece": action.piece}
        if self.is_terminal():
            return Verdict.illegal(
                "grid.game-over", "the board is full: the game is over", Consequence.MUST_CORRECT, **where
            )
        seat = self.current_player()
        if action.player is not None and action.player != seat:
            return Verdict.illegal(
                "grid.turn",
                f"it is {PLAYER_NAMES[seat]}'s turn, not {PLAYER_NAMES[action.player]}'s: "
                "take the piece back",
                Consequence.MUST_CORRECT,
                **where,
            )
        if action.piece in self.board:
            at = cell_name(self.board.index(action.piece))
            return Verdict.illegal(
                "grid.piece-in-reserve",
                f"piece {action.piece} is already on the board at {at}: take a piece from the reserve",
                Consequence.MUST_CORRECT,
                **where,
            )
        if self.board[action.cell]:
            return Verdict.illegal(
                "grid.cell-empty",
                f"cell {cell_name(action.cell)} already holds piece {self.board[action.cell]}: "
                "choose an empty cell",
                Consequence.MUST_CORRECT,
                **where,
            )
        return Verdict.ok(
            "grid.place",
            f"{PLAYER_NAMES[seat]} places {action.piece} on {cell_name(action.cell)}",
            **where,
        )

    def _apply_legal(self, action: Action, verdict: Verdict) -> GridState:
        assert isinstance(action, Place)
        board = list(self.board)
        board[action.cell] = action.piece
        return GridState(tuple(board))

    # -- scoring ------------------------------------------------------------------------
    def best_paths(self) -> tuple[PathValue, PathValue]:
        return best_path(self.board, 0), best_path(self.board, 1)

    def outcome(self) -> Outcome | None:
        if not self.is_terminal():
            return None
        p1, p2 = self.best_paths()
        scores = (float(p1.value), float(p2.value))
        if p1.value == p2.value:
            # Project decision (the seed is silent): equal best paths are a draw.
            return Outcome((), True, f"both best paths are worth {p1.value}: draw (rule grid.draw)", scores)
        winner = 0 if p1.value < p2.value else 1
        return Outcome(
            (winner,),
            False,
            f"{PLAYER_NAMES[winner]} wins with a best path of {min(p1.value, p2.value)} "
            f"against {max(p1.value, p2.value)} (rule grid.win)",
            scores,
        )

    # -- serialisation ------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {"game": self.game_name, "board": list(self.board)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GridState:
        if not isinstance(data, dict) or data.get("game") != cls.game_name:
            raise EngineError(f"not a highway-grid state: {data!r}")
        board = data.get("board")
        if not isinstance(board, list) or not all(isinstance(p, int) for p in board):
            raise EngineError("highway-grid state: 'board' must be a list of 16 integers")
        return cls(tuple(board))

    def diagram(self) -> str:
        rows = []
        for r in range(4):
            rows.append(" ".join(f"{self.board[r * 4 + c] or '.':>2}" for c in range(4)))
        return "\n".join(rows)
