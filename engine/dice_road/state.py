"""Highway dice road: the state of a match, the referee's verdicts and every legal use of a die.

Rules as implemented, with their ids, are in docs/rules/highway-dice.md. Illegal placements and
reclaims are judged, not refused: they cost the turn (Consequence.TURN_LOST). Actions out of sequence
(a second roll, a play before the roll, another seat's die) must be corrected (MUST_CORRECT).
Input that cannot be a move at all (a die that was not rolled, an unknown cell) raises EngineError.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from engine.core import CHANCE, TERMINAL, Action, Consequence, EngineError, GameState, Outcome, Verdict
from engine.dice_road.actions import Play, Reclaim, Roll
from engine.dice_road.board import SEAT_COLOURS, SEAT_NAMES, Board, load_board, resolve_board
from engine.dice_road.position import position_fields
from engine.dice_road.road import RoadStatus, Stone, road_status
from engine.dice_road.routing import SeatRouting, seat_routing

ALL_ROLLS = tuple(Roll(a, b) for a in range(1, 7) for b in range(a, 7))
_PARITY = ("odd", "even")


@dataclass(frozen=True)
class Use:
    """One legal use of one available die: what the page and the hint mode show."""

    die: int
    source: str  # "roll" or "pool"
    cell: str
    kind: str  # pave, unblock, repair, win, block, bridge-flank, bridge-close
    rule: str
    target_seat: int

    def action(self, store: int | None = None) -> Play:
        return Play(self.die, self.cell, store, self.source == "pool")

    def to_json(self) -> dict[str, Any]:
        return {"die": self.die, "source": self.source, "cell": self.cell, "kind": self.kind,
                "rule": self.rule, "target_seat": self.target_seat, "notation": self.action().notation()}


@dataclass(frozen=True)
class DiceState(GameState):
    """A position. `turn` is the seat whose turn it is; `roll` is None until the dice are rolled.
    `trails[s]` are the stones on seat s's road in road order (holes included); `bridges[s]` the
    stones closing seat s's bridge in the order they were placed."""

    game_name = "highway-dice"
    board: Board
    players: int
    turn: int
    roll: tuple[int, int] | None
    pools: tuple[int | None, ...]
    trails: tuple[tuple[Stone, ...], ...]
    bridges: tuple[tuple[Stone, ...], ...]
    clock: int = 0
    winner: int | None = None
    _memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    # -- construction -----------------------------------------------------------------
    @classmethod
    def new(cls, players: int = 2, board: Board | dict[str, Any] | str | None = None) -> DiceState:
        b = resolve_board(board)
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4:
            raise EngineError(f"highway-dice is played by 2, 3 or 4 players, not {players!r}")
        if players > b.max_players:
            raise EngineError(f"board {b.name!r} has roads for {b.max_players} seats, not {players}")
        seats = seat_routing(b, players).seats
        return cls(b, players, seats[0], None, (None,) * players, ((),) * players, ((),) * players)

    # -- derived views ----------------------------------------------------------------
    @property
    def routing(self) -> SeatRouting:
        rt = self._memo.get("rt")
        if rt is None:
            rt = self._memo["rt"] = seat_routing(self.board, self.players)
        return rt

    def status(self, seat: int) -> RoadStatus:
        """What `seat`'s road needs now (cached: states are values)."""
        key = f"s{seat}"
        st = self._memo.get(key)
        if st is None:
            rt = self.routing
            routes = rt.routes[seat]
            taken = bool(routes.middle) and any(
                s.cell in rt.routes[o].middle
                for o in range(self.players) if o != seat for s in self.trails[o]
            )
            st = road_status(routes, seat, self.trails[seat], len(self.bridges[seat]), taken)
            self._memo[key] = st
        return st

    def occupancy(self) -> dict[str, Stone]:
        """Every stone physically on the board by cell (holes are empty cells)."""
        occ = self._memo.get("occ")
        if occ is None:
            occ = {s.cell: s for t in self.trails for s in t if s.kind != "hole"}
            occ.update((s.cell, s) for b in self.bridges for s in b)
            self._memo["occ"] = occ
        return occ

    def table_view(self) -> dict[str, Any]:
        """What lies on the table, in plain JSON: the referee app compares it with the camera."""
        return {
            "stones": {c: {"value": s.value, "seat": s.seat} for c, s in sorted(self.occupancy().items())},
            "pools": {s: self.pools[s] for s in range(self.players)},
            "roll": list(self.roll) if self.roll else None,
        }

    def next_seat(self) -> int:
        seats = self.routing.seats
        return seats[(seats.index(self.turn) + 1) % len(seats)]

    def oldest_block(self, seat: int) -> Stone | None:
        """`seat`'s oldest block stone still lying on an opponent's road (what a reclaim takes)."""
        blocks = [s for o in range(self.players) if o != seat for s in self.trails[o]
                  if s.kind == "block" and s.seat == seat]
        return min(blocks, key=lambda s: s.t) if blocks else None

    # -- GameState ----------------------------------------------------------------------
    def current_player(self) -> int:
        if self.winner is not None:
            return TERMINAL
        return CHANCE if self.roll is None else self.turn

    def outcome(self) -> Outcome | None:
        if self.winner is None:
            return None
        scores = tuple(1.0 if s == self.winner else 0.0 for s in range(self.players))
        reason = f"{SEAT_NAMES[self.winner]} reached the roundabout centre first (rule dice.win)"
        return Outcome((self.winner,), False, reason, scores)

    def legal_actions(self) -> Iterator[Action]:
        """Before the roll: every roll (chance) and, if possible, the reclaim of the player to move.
        After the roll: every legal play (each legal use with each storing choice, store-only, pass)."""
        if self.winner is not None:
            return
        if self.roll is None:
            yield from ALL_ROLLS
            block = self.oldest_block(self.turn)
            if block is not None:
                yield Reclaim(block.cell)
            return
        st = self.status(self.turn)
        available = (*self.roll, *((self.pools[self.turn],) if self.pools[self.turn] else ()))
        for use in self.legal_uses():
            rest = list(self.roll)
            if use.source == "roll":
                rest.remove(use.die)
            stores = [None, *sorted(set(rest))]
            for store in stores:
                yield use.action(store)
        if st.needed not in available:
            yield Play()
            for v in sorted(set(self.roll)):
                yield Play(store=v)

    def legal_uses(self, roll: tuple[int, int] | list[int] | None = None) -> list[Use]:
        """Every legal use of each die available to the player to move: the rolled dice (this
        state's roll, or `roll` to ask "what if") and the pool die."""
        if self.winner is not None:
            return []
        if roll is None:
            roll = self.roll
            if roll is None:
                raise EngineError("no dice rolled yet: give the roll to list its uses, e.g. roll=(3, 5)")
        else:
            r = Roll(*roll) if len(roll) == 2 else None
            if r is None:
                raise EngineError(f"a roll is two dice, got {list(roll)!r}")
            roll = r.dice
        me = self.turn
        st = self.status(me)
        avail = [(v, "roll") for v in sorted(set(roll))]
        pool = self.pools[me]
        if pool is not None:
            avail.append((pool, "pool"))
        uses = []
        kind = "win" if st.next_kind == "centre" and st.needed_kind != "repair" else st.needed_kind
        for v, src in avail:
            if v == st.needed:
                uses += [Use(v, src, c, kind, f"dice.{kind}", me) for c in st.needed_cells]
        if uses:  # own-road priority: no die may go elsewhere
            return uses
        occ = self.occupancy()
        for o in range(self.players):
            if o == me:
                continue
            so = self.status(o)
            if o % 2 != me % 2 and so.block_value is not None:
                for v, src in avail:
                    if v == so.block_value:
                        free = [c for c in so.next_cells if c not in occ]
                        uses += [Use(v, src, c, "block", "dice.block", o) for c in free]
            for cell, kind in self._bridge_targets(o, so):
                uses += [Use(v, src, cell, kind, f"dice.{kind}", o) for v, src in avail]
        return uses

    def _bridge_targets(self, o: int, so: RoadStatus) -> list[tuple[str, str]]:
        if so.bridge_passed or not so.warning_passed or so.detour:
            return []
        road = self.board.roads[o]
        occ = self.occupancy()
        if len(self.bridges[o]) < 2:
            return [(f, "bridge-flank") for f in road.flanks if f not in occ]
        return [] if road.bridge in occ else [(road.bridge, "bridge-close")]

    # -- judging --------------------------------------------------------------------------
    def judge(self, action: Action) -> Verdict:
        if not isinstance(action, Roll | Reclaim | Play):
            raise EngineError(f"highway-dice cannot judge {action!r}")
        if self.winner is not None:
            return Verdict.illegal("dice.game-over", f"the game is over: {SEAT_NAMES[self.winner]} has won",
                                   Consequence.MUST_CORRECT)
        name = SEAT_NAMES[self.turn]
        if isinstance(action, Roll):
            if self.roll is not None:
                return Verdict.illegal("dice.roll-once", f"{name} has already rolled {self._roll_text()}: "
                                       "play a die, store one, or pass", Consequence.MUST_CORRECT)
            return Verdict.ok("dice.roll",
                              f"{name} rolls {action.a} and {action.b}", dice=[action.a, action.b])
        seat = action.seat
        if seat is not None and seat != self.turn:
            if seat >= self.players:
                raise EngineError(f"seat {seat} is not in this {self.players}-player game")
            return Verdict.illegal("dice.turn", f"it is {name}'s turn, not {SEAT_NAMES[seat]}'s: "
                                   "put the die back", Consequence.MUST_CORRECT)
        if isinstance(action, Reclaim):
            return self._judge_reclaim(action)
        if self.roll is None:
            return Verdict.illegal("dice.roll-first", f"{name} must roll the two dice before playing",
                                   Consequence.MUST_CORRECT)
        return self._judge_play(action)

    def _roll_text(self) -> str:
        return f"{self.roll[0]} and {self.roll[1]}" if self.roll else "nothing"

    def _lost(self, rule: str, reason: str, **details: Any) -> Verdict:
        return Verdict.illegal(rule, reason + "; the turn is lost", Consequence.TURN_LOST, **details)

    def _needed_text(self, st: RoadStatus) -> str:
        where = " or ".join(st.needed_cells)
        what = {"repair": "to repair the hole", "unblock": "to unblock", "pave": "next"}[st.needed_kind]
        return f"a {st.needed} was needed on your own road ({what}, on {where})"

    def _judge_reclaim(self, action: Reclaim) -> Verdict:
        me, name = self.turn, SEAT_NAMES[self.turn]
        self.board.cell(action.cell)
        if action.to is not None:
            self.board.cell(action.to)
        where = {"cell": action.cell}
        if self.roll is not None:
            return self._lost("dice.reclaim-before-roll",
                              f"{name} may reclaim only before rolling", **where)
        stone = self.occupancy().get(action.cell)
        if stone is None or stone.kind != "block" or stone.seat != me:
            return self._lost("dice.reclaim-own-block",
                              f"{action.cell} holds no block stone of {name}'s", **where)
        oldest = self.oldest_block(me)
        assert oldest is not None
        if oldest.cell != stone.cell:
            return self._lost("dice.reclaim-oldest", f"{name} must reclaim the oldest block first: the "
                              f"{oldest.value} on {oldest.cell}", **where)
        st = self.status(me)
        fits = stone.value == st.needed
        if action.to is not None and not (fits and action.to in st.needed_cells):
            why = (f"it must go on {' or '.join(st.needed_cells)}" if fits
                   else f"the reclaimed {stone.value} is not needed there "
                        f"({self._needed_text(st)}): it is lost")
            return self._lost("dice.reclaim-placement", f"{name} cannot put the reclaimed stone on "
                              f"{action.to}: {why}", **where)
        if fits:
            to = action.to or st.needed_cells[0]
            return Verdict.ok("dice.reclaim",
                              f"{name} reclaims the {stone.value} from {action.cell} and puts "
                              f"it on {to}, where it was needed; the turn ends", placed=to, value=stone.value,
                              **where)
        return Verdict.ok("dice.reclaim", f"{name} reclaims the {stone.value} from {action.cell}; it is not "
                          f"needed on {name}'s road (a {st.needed} is), so it is lost; the turn ends",
                          placed=None, value=stone.value, **where)

    def _judge_play(self, action: Play) -> Verdict:
        me, name = self.turn, SEAT_NAMES[self.turn]
        assert self.roll is not None
        pool = self.pools[me]
        rest = list(self.roll)
        if action.die is not None:
            if action.from_pool:
                if pool != action.die:
                    raise EngineError(f"{name}'s pool holds {pool or 'no die'}, not a {action.die}")
            elif action.die not in rest:
                raise EngineError(f"a {action.die} was not rolled (the roll is {self._roll_text()})")
            else:
                rest.remove(action.die)
        if action.store is not None and action.store not in rest:
            used = "" if action.die is None or action.from_pool else f" once the {action.die} is used"
            raise EngineError(f"cannot store a {action.store}: the rolled dice left{used} are "
                              f"{' and '.join(map(str, rest)) or 'none'}")
        st = self.status(me)
        available = (*self.roll, *((pool,) if pool is not None else ()))
        priority = st.needed in available
        if action.die is None:
            if priority:
                return self._lost("dice.own-road-priority", f"{self._needed_text(st)}: it must be placed "
                                  "there, not stored or passed", needed=st.needed)
            if action.store is not None:
                return Verdict.ok("dice.store",
                                  f"{name} stores a {action.store} in the pool and ends the turn")
            return Verdict.ok("dice.pass", f"{name} uses no die and ends the turn")
        cell, v = action.cell, action.die
        assert cell is not None
        self.board.cell(cell)
        details: dict[str, Any] = {"cell": cell, "die": v}
        if cell in st.needed_cells:
            if v == st.needed:
                kind = "win" if st.next_kind == "centre" and st.needed_kind != "repair" else st.needed_kind
                text = {"pave": "paves", "unblock": "unblocks with", "repair": "repairs the hole with",
                        "win": "reaches the roundabout centre with"}[kind]
                return Verdict.ok(f"dice.{kind}", f"{name} {text} a {v} on {cell}", kind=kind, **details)
            rule = {"pave": "dice.cycle", "unblock": "dice.unblock", "repair": "dice.repair"}[st.needed_kind]
            return self._lost(rule, f"{name} cannot put a {v} there: {self._needed_text(st)}",
                              needed=st.needed, **details)
        if st.holes and cell in st.next_cells:
            return self._lost("dice.repair-first", f"{name} must repair the hole on {st.needed_cells[0]} "
                              f"(a {st.needed}) before paving on", needed=st.needed, **details)
        if cell in st.lane_choice and cell not in st.next_cells:
            return self._lost("dice.middle-lane", f"the middle lane is taken: {name} must take the outer "
                              f"lane ({' or '.join(st.needed_cells)})", **details)
        occ = self.occupancy()
        if cell in occ:
            s = occ[cell]
            return self._lost("dice.cell-occupied", f"{cell} already holds {SEAT_NAMES[s.seat]}'s {s.value}",
                              **details)
        target = self._target_of(cell)
        if target is not None and target[0] == me and cell in self.routing.flank_owner:
            return self._lost("dice.own-bridge", f"{name} cannot close their own bridge",
                              **details)
        if target is None or target[0] == me:
            return self._lost("dice.wrong-cell", f"{cell} is not a cell {name} can play on now "
                              f"({self._needed_text(st)})", needed=st.needed, **details)
        o, kind = target
        if priority:
            return self._lost("dice.own-road-priority", f"{self._needed_text(st)}: while a die can pave your "
                              f"own road no die may go elsewhere", needed=st.needed, **details)
        if kind == "bridge":
            return self._judge_bridge(o, cell, details)
        return self._judge_block(o, v, cell, details)

    def _target_of(self, cell: str) -> tuple[int, str] | None:
        """Whose road or bridge a stone on `cell` would concern, and how: (seat, 'block'|'bridge')."""
        rt = self.routing
        for o in rt.route_seats.get(cell, ()):
            so = self.status(o)
            if cell in so.next_cells or cell in so.lane_choice:
                if rt.bridge_owner.get(cell) == o and len(self.bridges[o]) == 2:
                    return o, "bridge"
                return o, "block"
        if cell in rt.flank_owner:
            return rt.flank_owner[cell], "bridge"
        if cell in rt.bridge_owner:
            return rt.bridge_owner[cell], "bridge"
        return None

    def _judge_block(self, o: int, v: int, cell: str, details: dict[str, Any]) -> Verdict:
        me, name, other = self.turn, SEAT_NAMES[self.turn], SEAT_NAMES[o]
        so = self.status(o)
        details = {**details, "target_seat": o}
        if o % 2 == me % 2:
            return self._lost("dice.block-parity", f"{name} and {other} both pave {_PARITY[me % 2]} values: "
                              "they cannot block each other", **details)
        if so.step is None:
            return self._lost("dice.block-empty", f"{other}'s road has no stone yet to block",
                              **details)
        if so.open_block is not None or (self.trails[o] and self.trails[o][-1].kind == "hole"):
            return self._lost("dice.block-on-block", f"{other}'s road already ends in a block",
                              **details)
        if so.next_kind == "detour":
            return self._lost("dice.detour-no-block",
                              f"{other} is on the bridge detour, where no block may be "
                              "placed", **details)
        if so.next_kind == "centre":
            return self._lost("dice.centre-no-block", "no block may be placed on the roundabout centre",
                              **details)
        if cell in so.lane_choice and cell not in so.next_cells:
            return self._lost("dice.middle-lane",
                              f"the middle lane is taken: a block for {other} goes on the "
                              f"outer lane ({' or '.join(so.next_cells)})", **details)
        if v != so.block_value:
            return self._lost("dice.block-value",
                              f"a block after {other}'s {so.step} must be a {so.block_value} "
                              f"({so.step} + 1, 7 counting as 1), not a {v}",
                              needed=so.block_value, **details)
        return Verdict.ok("dice.block", f"{name} blocks {other} with a {v} on {cell}: {other} now needs a 1 "
                          "to unblock", **details)

    def _judge_bridge(self, o: int, cell: str, details: dict[str, Any]) -> Verdict:
        name, other = SEAT_NAMES[self.turn], SEAT_NAMES[o]
        so = self.status(o)
        road = self.board.roads[o]
        details = {**details, "target_seat": o}
        if so.bridge_passed:
            return self._lost("dice.bridge-passed",
                              f"{other} has already passed the bridge on {road.bridge}", **details)
        if not so.warning_passed:
            return self._lost("dice.bridge-warning", f"{other}'s bridge may be closed only after {other} has "
                              f"passed the warning mark on {road.warning}", **details)
        if cell == road.bridge and len(self.bridges[o]) < 2:
            return self._lost("dice.bridge-order",
                              f"both flanks ({road.flanks[0]}, {road.flanks[1]}) must be "
                              f"in place before the stone on the bridge {road.bridge}", **details)
        if cell == road.bridge:
            return Verdict.ok("dice.bridge-close",
                              f"{name} closes {other}'s bridge on {cell}: {other} must take "
                              f"the detour ({', '.join(road.detour)})", **details)
        return Verdict.ok("dice.bridge-flank", f"{name} puts a flank stone beside {other}'s bridge on {cell} "
                          f"({len(self.bridges[o]) + 1} of 3)", **details)

    # -- applying -----------------------------------------------------------------------
    def _replace(self, **changes: Any) -> DiceState:
        fields = {"board": self.board, "players": self.players, "turn": self.turn, "roll": self.roll,
                  "pools": self.pools, "trails": self.trails, "bridges": self.bridges, "clock": self.clock,
                  "winner": self.winner}
        fields.update(changes)
        new = DiceState(**fields)
        self._carry_memo(new)
        return new

    def _carry_memo(self, new: DiceState) -> None:
        """Hand derived road statuses to the next state where its seat's stones did not change, so
        judging the next action recomputes only the roads that moved. Two-player statuses depend on
        the other road too (the middle lane), so they are kept only when nothing moved."""
        memo = self._memo
        if not memo:
            return
        nm = new._memo
        if "rt" in memo:
            nm["rt"] = memo["rt"]
        unchanged = [new.trails[s] is self.trails[s] and new.bridges[s] is self.bridges[s]
                     for s in range(self.players)]
        if all(unchanged):
            nm.update(memo)
            return
        if self.players == 2:
            return
        for s, same in enumerate(unchanged):
            st = memo.get(f"s{s}")
            if same and st is not None:
                nm[f"s{s}"] = st

    def _end_turn(self, **changes: Any) -> DiceState:
        return self._replace(turn=self.next_seat(), roll=None, clock=self.clock + 1, **changes)

    def _apply_illegal(self, action: Action, verdict: Verdict) -> DiceState:
        if verdict.consequence is Consequence.TURN_LOST:
            return self._end_turn()
        return self

    def _apply_legal(self, action: Action, verdict: Verdict) -> DiceState:
        if isinstance(action, Roll):
            return self._replace(roll=action.dice)
        me = self.turn
        trails = list(self.trails)
        winner = None
        if isinstance(action, Reclaim):
            stone = self.occupancy()[action.cell]
            victim = None
            for o in range(self.players):
                t = trails[o]
                for i, s in enumerate(t):
                    if s is stone:
                        victim = o
                        trails[o] = (*t[:i], Stone(s.cell, s.value, s.seat, "hole", self.clock), *t[i + 1:])
                        break
            assert victim is not None
            placed = verdict.details.get("placed")
            if placed:
                winner, _ = self._put_own(trails, stone.value, placed)
            return self._end_turn(trails=tuple(trails), winner=winner)
        assert isinstance(action, Play)
        pools = list(self.pools)
        if action.from_pool:
            pools[me] = None
        if action.store is not None:
            pools[me] = action.store
        bridges = self.bridges
        added = None
        if action.die is not None:
            assert action.cell is not None
            rule = verdict.rule
            added = Stone(action.cell, action.die, me, "bridge", self.clock)
            if rule in ("dice.bridge-flank", "dice.bridge-close"):
                o = verdict.details["target_seat"]
                b = list(bridges)
                b[o] = (*b[o], added)
                bridges = tuple(b)
            elif rule == "dice.block":
                o = verdict.details["target_seat"]
                added = Stone(action.cell, action.die, me, "block", self.clock)
                trails[o] = (*trails[o], added)
            else:
                winner, added = self._put_own(trails, action.die, action.cell)
        new = self._end_turn(trails=tuple(trails), bridges=bridges, pools=tuple(pools), winner=winner)
        occ = self._memo.get("occ")
        if occ is not None and added is not None:  # one stone more on the table
            occ = dict(occ)
            occ[added.cell] = added
            new._memo["occ"] = occ
        return new

    def _put_own(self, trails: list[tuple[Stone, ...]], value: int, cell: str) -> tuple[int | None, Stone]:
        """Put the player's own stone where their road needs it: (the winner if that is the
        centre, the stone)."""
        me = self.turn
        st = self.status(me)
        t = trails[me]
        if st.holes:
            i = st.holes[0]
            stone = Stone(cell, value, me, "repair", self.clock)
            trails[me] = (*t[:i], stone, *t[i + 1:])
            return None, stone
        stone = Stone(cell, value, me, "unblock" if st.needed_kind == "unblock" else "pave", self.clock)
        trails[me] = (*t, stone)
        return (me if cell == self.board.centre else None), stone

    # -- serialisation ----------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        try:
            shipped = self.board == load_board(self.board.name)
        except EngineError:
            shipped = False
        return {
            "game": self.game_name,
            "board": self.board.name if shipped else self.board.to_json(),
            "players": self.players,
            "turn": self.turn,
            "roll": list(self.roll) if self.roll else None,
            "pools": list(self.pools),
            "trails": [[s.to_json() for s in t] for t in self.trails],
            "bridges": [[s.to_json() for s in b] for b in self.bridges],
            "clock": self.clock,
            "winner": self.winner,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DiceState:
        return cls(*position_fields(data))

    def seat_summary(self, seat: int) -> dict[str, Any]:
        st = self.status(seat)
        return {"seat": seat, "name": SEAT_NAMES[seat], "colour": SEAT_COLOURS[seat],
                "pool": self.pools[seat], **st.to_json()}

    def diagram(self) -> str:
        """A few text lines: each road's stones and what it needs."""
        lines = []
        for s in self.routing.seats:
            st = self.status(s)
            stones = " ".join("_" if x.kind == "hole" else (f"{x.value}" if x.seat == s else
                              f"[{x.value}]") for x in self.trails[s])
            mark = "*" if s == self.turn and self.winner is None else " "
            bridge = f" bridge {len(self.bridges[s])}/3" if self.bridges[s] else ""
            lines.append(f"{mark}{SEAT_NAMES[s]:<6} pool {self.pools[s] or '-'} | {stones or '(empty)'} | "
                         f"needs {st.needed} on {' or '.join(st.needed_cells) or '-'}{bridge}")
        if self.winner is not None:
            lines.append(f"{SEAT_NAMES[self.winner]} has won")
        elif self.roll:
            lines.append(f"roll: {self.roll[0]} {self.roll[1]}")
        return "\n".join(lines)

