"""Who plays where, per board and player count: each seat's routes, the seats in turn order and who
owns each flank, bridge and route cell. Computed once per (board, players) and shared by every state
of that match and by the position reader."""

from __future__ import annotations

from dataclasses import dataclass

from engine.dice_road.board import Board
from engine.dice_road.road import Routes


@dataclass(frozen=True)
class SeatRouting:
    """Per board and player count: each seat's routes and the seats in turn order."""

    routes: tuple[Routes, ...]
    seats: tuple[int, ...]
    flank_owner: dict[str, int]
    bridge_owner: dict[str, int]
    route_seats: dict[str, tuple[int, ...]]  # cell -> seats whose stones may ever lie there


_CACHE: dict[tuple[int, int], SeatRouting] = {}


def seat_routing(board: Board, players: int) -> SeatRouting:
    key = (id(board), players)
    r = _CACHE.get(key)
    if r is None:
        seats = tuple(s for s in board.turn_order if s < players)
        routes = tuple(Routes(board, board.roads[s], players) for s in range(players))
        route_seats: dict[str, tuple[int, ...]] = {}
        for s, rt in enumerate(routes):
            for c in {*rt.via_bridge, *rt.via_detour, *(c for lane in rt.lanes for c in lane), rt.centre}:
                route_seats[c] = (*route_seats.get(c, ()), s)
        r = SeatRouting(
            routes,
            seats,
            {f: rd.seat for rd in board.roads[:players] for f in rd.flanks},
            {rd.bridge: rd.seat for rd in board.roads[:players]},
            route_seats,
        )
        _CACHE[key] = r
    return r
