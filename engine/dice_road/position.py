"""Reading a position (a state's JSON) back, checking it against the board so a hand-written or
damaged position gives a clear error naming what is wrong and where."""

from __future__ import annotations

from typing import Any

from engine.core import EngineError
from engine.dice_road.board import SEAT_NAMES, resolve_board
from engine.dice_road.road import Routes, Stone, next_in_cycle, wrap7
from engine.dice_road.routing import seat_routing

_ROAD_KINDS = ("pave", "block", "unblock", "repair", "hole")


def _die_or_none(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
        raise EngineError(f"position {where} must be a die value 1-6 or null, got {value!r}")
    return value


def _list(data: dict[str, Any], key: str, n: int) -> list[Any]:
    value = data.get(key)
    if not isinstance(value, list) or len(value) != n:
        raise EngineError(f"position '{key}' must be a list with one entry per seat ({n}), got {value!r}")
    return value


def position_fields(data: dict[str, Any]) -> tuple[Any, ...]:
    """The checked fields of a position, in DiceState's order (`DiceState.from_json` builds it)."""
    if not isinstance(data, dict) or data.get("game") != "highway-dice":
        raise EngineError('not a highway-dice position: expected an object with "game": "highway-dice"')
    board = resolve_board(data.get("board"))
    players = data.get("players")
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4:
        raise EngineError(f"position 'players' must be 2, 3 or 4, got {players!r}")
    if players > board.max_players:
        raise EngineError(f"board {board.name!r} has roads for {board.max_players} seats, not {players}")
    routing = seat_routing(board, players)
    turn = data.get("turn")
    if turn not in routing.seats:
        raise EngineError(f"position 'turn' must be a seat in play {list(routing.seats)}, got {turn!r}")
    roll_raw = data.get("roll")
    roll = None
    if roll_raw is not None:
        if not isinstance(roll_raw, list) or len(roll_raw) != 2:
            raise EngineError(f"position 'roll' must be null or two dice, got {roll_raw!r}")
        a, b = (_die_or_none(v, "roll") for v in roll_raw)
        if a is None or b is None:
            raise EngineError(f"position 'roll' must hold two dice, got {roll_raw!r}")
        roll = (min(a, b), max(a, b))
    pools = tuple(_die_or_none(v, f"pools[{s}]") for s, v in enumerate(_list(data, "pools", players)))
    clock = data.get("clock", 0)
    if isinstance(clock, bool) or not isinstance(clock, int) or clock < 0:
        raise EngineError(f"position 'clock' must be a non-negative integer, got {clock!r}")
    bridges = []
    for s, raw in enumerate(_list(data, "bridges", players)):
        bridges.append(_bridge(board.roads[s], raw, s, players))
    trails = []
    for s, raw in enumerate(_list(data, "trails", players)):
        trails.append(_trail(routing.routes[s], raw, s, len(bridges[s]) >= 3, players))
    seen: dict[str, str] = {}
    for group, label in ((trails, "trails"), (bridges, "bridges")):
        for s, stones in enumerate(group):
            for i, st in enumerate(stones):
                if st.t >= clock and clock:
                    raise EngineError(f"position {label}[{s}][{i}].t {st.t} is not before the clock {clock}")
                if st.kind == "hole":
                    continue
                if st.cell in seen:
                    raise EngineError(f"position: cell {st.cell} holds two stones ({seen[st.cell]} and "
                                      f"{label}[{s}][{i}])")
                seen[st.cell] = f"{label}[{s}][{i}]"
    winner = data.get("winner")
    if winner is not None:
        if winner not in routing.seats:
            raise EngineError(f"position 'winner' must be null or a seat in play, got {winner!r}")
        if not trails[winner] or trails[winner][-1].cell != board.centre:
            raise EngineError(f"position 'winner' {winner}: {SEAT_NAMES[winner]}'s road does not reach the "
                              f"centre {board.centre}")
    return board, players, turn, roll, pools, tuple(trails), tuple(bridges), clock, winner


def _bridge(road: Any, raw: Any, seat: int, players: int) -> tuple[Stone, ...]:
    if not isinstance(raw, list) or len(raw) > 3:
        raise EngineError(f"position bridges[{seat}] must be a list of at most 3 stones, got {raw!r}")
    stones = tuple(Stone.from_json(x, f"bridges[{seat}][{i}]") for i, x in enumerate(raw))
    for i, st in enumerate(stones):
        allowed = road.flanks if i < 2 else (road.bridge,)
        if st.cell not in allowed or st.kind != "bridge" or st.seat == seat or st.seat >= players:
            raise EngineError(f"position bridges[{seat}][{i}] must be an opponent's 'bridge' stone on "
                              f"{' or '.join(allowed)}, got {st.to_json()}")
    if len(stones) >= 2 and stones[0].cell == stones[1].cell:
        raise EngineError(f"position bridges[{seat}]: both flank stones lie on {stones[0].cell}")
    return stones


def _trail(routes: Routes, raw: Any, seat: int, detour: bool, players: int) -> tuple[Stone, ...]:
    if not isinstance(raw, list):
        raise EngineError(f"position trails[{seat}] must be a list of stones, got {raw!r}")
    stones: list[Stone] = []
    for k, x in enumerate(raw):
        where = f"trails[{seat}][{k}]"
        st = Stone.from_json(x, where)
        cells, _ = routes.at(k, detour, tuple(stones))
        if st.cell not in cells:
            raise EngineError(f"position {where} lies on {st.cell}, but position {k + 1} of "
                              f"{SEAT_NAMES[seat]}'s road is {' or '.join(cells) or 'past the centre'}")
        if st.kind not in _ROAD_KINDS:
            raise EngineError(f"position {where}.kind must be one of {', '.join(_ROAD_KINDS)}, "
                              f"got {st.kind!r}")
        own = st.kind in ("pave", "unblock", "repair")
        bad_block = st.kind == "block" and st.seat % 2 == seat % 2
        if st.seat >= players or (own and st.seat != seat) or bad_block:
            raise EngineError(f"position {where}: a {st.kind} stone on {SEAT_NAMES[seat]}'s road cannot be "
                              f"{SEAT_NAMES[st.seat] if st.seat < 4 else st.seat}'s")
        stones.append(st)
    _check_values(stones, seat)
    return tuple(stones)


def _check_values(stones: list[Stone], seat: int) -> None:
    """The values must be ones the rules could have produced, position by position: paves follow
    the cycle, a block (or the hole / repair where it lay) is step + 1, and after a block comes its
    unblock (unless the block was reclaimed before the unblock came)."""
    step: int | None = None
    prev: Stone | None = None
    for k, st in enumerate(stones):
        where = f"position trails[{seat}][{k}] ({st.kind} {st.value} on {st.cell})"
        after_block = prev is not None and prev.kind in ("block", "hole", "repair")
        if st.kind == "unblock":
            if not after_block:
                raise EngineError(f"{where}: an unblock must follow a block, a hole or a repair")
            assert prev is not None and step is not None
            expected = wrap7(step - prev.value + 6)
        elif prev is not None and prev.kind in ("block", "hole"):
            raise EngineError(f"{where}: after the {prev.kind} on {prev.cell} the next stone is its unblock")
        elif st.kind == "pave":
            expected = next_in_cycle(seat, step)
        else:  # block, hole, repair
            if step is None:
                raise EngineError(f"{where}: an empty road cannot be blocked")
            expected = wrap7(step + 1)
        if st.value != expected:
            raise EngineError(f"{where}: the value there must be {expected}")
        if st.kind == "pave":
            step = st.value
        elif st.kind != "unblock":
            step = next_in_cycle(seat, step)
        prev = st
