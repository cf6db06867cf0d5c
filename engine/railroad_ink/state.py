"""A match of Railroad Ink: every player's sheet, the rounds, the shared roll and the verdicts.

Flow of one round: the roll (a chance action: one face per die) -> each player, in any order,
resolves the meteor (Blazing Red), draws placements, then says Done. When every player is done the
round number is final, and the next roll is expected (or the game is over).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from engine.core import (
    CHANCE,
    TERMINAL,
    Action,
    Consequence,
    EngineError,
    GameState,
    NotationError,
    Outcome,
    Verdict,
)
from engine.railroad_ink.board import CELLS, Sheet, Square, cell_name, check_square, parse_cell
from engine.railroad_ink.meteor import DIRECTIONS, meteor_walk
from engine.railroad_ink.rules import (
    family,
    forced_water,
    lava_fronts,
    open_lava_squares,
    placement_problem,
)
from engine.railroad_ink.scoring import Score, ranking, score_sheet
from engine.railroad_ink.tiles import (
    BASE_DICE,
    EXPANSION_DICE,
    FACES,
    PIECES,
    SPECIALS,
    check_expansions,
    check_sides,
    orientations,
    transform,
)

MAX_SPECIALS = 3
BASE_ROUNDS = 7
EXPANSION_ROUNDS = 6
_MUST = Consequence.MUST_CORRECT


def dice_for(expansions: tuple[str, ...]) -> tuple[str, ...]:
    return BASE_DICE + tuple(d for e in expansions for d in EXPANSION_DICE[e])


# -- actions ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Roll(Action):
    """The round's roll: one face per die, listed in the game's dice order (see `dice_for`)."""

    faces: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"type": "roll", "faces": list(self.faces)}

    def notation(self) -> str:
        return "roll " + " ".join(self.faces)


@dataclass(frozen=True)
class Place(Action):
    """Player `player` draws `piece` (a die face, a special, or a volcano) as `sides` on a square."""

    player: int
    piece: str
    row: int
    col: int
    sides: str

    def __post_init__(self) -> None:
        cell = check_square(self.row, self.col)
        where = cell_name(cell)
        if self.piece not in PIECES:
            raise EngineError(f"unknown piece {self.piece!r} on {where} (rule rri.face)")
        check_sides(self.sides, where)
        if self.sides not in orientations(self.piece):
            raise EngineError(f"sides {self.sides!r} on {where} are not a rotation or mirror of {self.piece} "
                              f"(drawn as {', '.join(orientations(self.piece))}) (rule rri.face)")
        if not isinstance(self.player, int) or self.player < 0:
            raise EngineError(f"player must be a seat number 0.., got {self.player!r}")

    @property
    def cell(self) -> int:
        return self.row * 7 + self.col

    @classmethod
    def turned(cls, player: int, piece: str, row: int, col: int, rotate_cw_quarter_turns: int = 0,
               mirrored: bool = False) -> Place:
        from engine.railroad_ink.tiles import piece_sides

        return cls(player, piece, row, col, transform(piece_sides(piece), rotate_cw_quarter_turns, mirrored))

    def to_json(self) -> dict[str, Any]:
        return {"type": "place", "player": self.player, "piece": self.piece, "row": self.row,
                "col": self.col, "sides": self.sides}

    def notation(self) -> str:
        return f"p{self.player} {self.piece} {cell_name(self.cell)} {self.sides}"


@dataclass(frozen=True)
class Meteor(Action):
    """Resolve this round's meteor: `direction` when the die shows "any", or spend a special to ignore it."""

    player: int
    direction: str | None = None
    ignore_with: str | None = None

    def __post_init__(self) -> None:
        if self.direction is not None and self.direction not in DIRECTIONS:
            raise EngineError(f"meteor direction must be one of {sorted(DIRECTIONS)}, got {self.direction!r}")
        if self.ignore_with is not None and self.ignore_with not in SPECIALS:
            raise EngineError(f"a meteor is ignored by crossing off a special, not {self.ignore_with!r}")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "meteor", "player": self.player}
        if self.direction:
            out["direction"] = self.direction
        if self.ignore_with:
            out["ignore_with"] = self.ignore_with
        return out

    def notation(self) -> str:
        tail = f" {self.direction}" if self.direction else ""
        if self.ignore_with:
            tail = f" ignore {self.ignore_with}"
        return f"p{self.player} meteor{tail}"


@dataclass(frozen=True)
class Done(Action):
    """The player has drawn everything they will draw this round."""

    player: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "done", "player": self.player}

    def notation(self) -> str:
        return f"p{self.player} done"


def action_from_json(data: dict[str, Any]) -> Action:
    if not isinstance(data, dict):
        raise EngineError(f"not a railroad-ink action: {data!r}")
    kind = data.get("type")
    try:
        if kind == "roll":
            return Roll(tuple(str(f) for f in data["faces"]))
        if kind == "place":
            return Place(int(data["player"]), str(data["piece"]), data["row"], data["col"], data["sides"])
        if kind == "meteor":
            return Meteor(int(data["player"]), data.get("direction"), data.get("ignore_with"))
        if kind == "done":
            return Done(int(data["player"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise EngineError(f"railroad-ink {kind} action is malformed: {exc!r} in {data!r}") from exc
    raise EngineError(f"not a railroad-ink action type: {kind!r}")


_PLACE = re.compile(r"^\s*p(\d+)\s+([a-z0-9_]+)\s+([A-Ga-g][0-6])\s+([-HRWLV]{4})\s*$")


_ALL_FACES = frozenset(face for faces in FACES.values() for face in faces)


def parse_action(text: str) -> Action:
    """Notation: `roll F1 F2 ...`, `p0 railway_curve B3 R--R`, `p0 meteor [DIR|ignore SPECIAL]`, `p0 done`."""
    t = text.strip()
    if t.startswith("roll "):
        faces = tuple(t.split()[1:])
        unknown = [f for f in faces if f not in _ALL_FACES]
        if unknown:  # a typo; also ends a roll where the next move of a typed list begins
            raise NotationError(f"cannot read {text!r}: {unknown[0]!r} is not a face of any "
                                "die")
        return Roll(faces)
    m = _PLACE.match(t)
    if m:
        cell = parse_cell(m.group(3))
        return Place(int(m.group(1)), m.group(2), cell // 7, cell % 7, m.group(4))
    parts = t.split()
    if len(parts) >= 2 and parts[0][:1] == "p" and parts[0][1:].isdigit():
        seat = int(parts[0][1:])
        if parts[1:] == ["done"]:
            return Done(seat)
        if parts[1] == "meteor":
            if len(parts) == 2:
                return Meteor(seat)
            if len(parts) == 3:
                return Meteor(seat, parts[2])
            if len(parts) == 4 and parts[2] == "ignore":
                return Meteor(seat, None, parts[3])
    raise NotationError(f"cannot read {text!r}: write 'roll FACES...', 'p0 PIECE B3 SIDES', 'p0 meteor "
                        f"[DIR]' "
                        "or 'p0 done'")


# -- state --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Progress:
    """What one player has done in the current round."""

    used: frozenset[int] = frozenset()  # indices of the dice drawn
    special: bool = False  # a special was crossed off this round
    meteor: bool = False  # the meteor is resolved
    done: bool = False


@dataclass(frozen=True)
class RailroadInkState(GameState):
    game_name = "railroad-ink"
    sheets: tuple[Sheet, ...] = (Sheet(),)
    expansions: tuple[str, ...] = ()
    round: int = 1
    roll: tuple[str, ...] | None = None
    progress: tuple[Progress, ...] = (Progress(),)
    free_dice: bool = False  # check mode for sheets without recorded rolls: no dice inventory
    finished: bool = False

    @classmethod
    def new(cls, players: int = 1, expansions: tuple[str, ...] | list[str] | str = (),
            free_dice: bool = False) -> RailroadInkState:
        if not isinstance(players, int) or not 1 <= players <= 12:
            raise EngineError(f"railroad-ink takes 1-12 players, got {players!r}")
        exp = check_expansions(expansions)
        sheet = Sheet()
        if "lava" in exp:
            sheet = sheet.put(24, Square("VVVV", "volcano", False,
                                         0))  # the first volcano, rule rri.lava.start
        return cls((sheet,) * players, exp, 1, None, (Progress(),) * players, free_dice)

    # -- turn ------------------------------------------------------------------------------------
    @property
    def rounds(self) -> int:
        return EXPANSION_ROUNDS if self.expansions else BASE_ROUNDS

    @property
    def dice(self) -> tuple[str, ...]:
        return dice_for(self.expansions)

    def current_player(self) -> int:
        if self.finished:
            return TERMINAL
        if self.roll is None:
            return CHANCE
        for seat, p in enumerate(self.progress):
            if not p.done:
                return seat
        return TERMINAL  # not reached: the round ends when the last player is done

    def meteor_pending(self, seat: int) -> bool:
        return "meteor" in self.expansions and not self.free_dice and not self.progress[seat].meteor

    # -- rolls -----------------------------------------------------------------------------------
    def normalise_roll(self, faces: tuple[str, ...] | list[str]) -> tuple[str, ...]:
        """Assign faces given in any order to the game's dice; EngineError when they cannot be."""
        left = list(faces)
        out = []
        for die in self.dice:
            pick = next((f for f in left if f in FACES[die]), None)
            if pick is None:
                raise EngineError(f"the roll {list(faces)} has no face for the {die} die "
                                  f"(dice: {', '.join(self.dice)}) (rule rri.roll)")
            left.remove(pick)
            out.append(pick)
        if left:
            raise EngineError(f"the roll has faces no die shows: {left} (dice: {', '.join(self.dice)}) "
                              "(rule rri.roll)")
        return tuple(out)

    def possible_rolls(self) -> Iterator[Roll]:
        per_die = []
        for die in dict.fromkeys(self.dice):
            n = self.dice.count(die)
            per_die.append(list(itertools.combinations_with_replacement(dict.fromkeys(FACES[die]), n)))
        for combo in itertools.product(*per_die):
            yield Roll(self.normalise_roll([f for group in combo for f in group]))

    # -- rules -----------------------------------------------------------------------------------
    def legal_actions(self) -> Iterator[Action]:
        if self.finished:
            return
        if self.roll is None:
            yield from self.possible_rolls()
            return
        seat = self.current_player()
        if self.meteor_pending(seat):
            for a in self._meteor_options(seat):
                if self.judge(a).legal:
                    yield a
            return
        yield from self.legal_placements(seat)
        if self.judge(Done(seat)).legal:
            yield Done(seat)

    def _meteor_options(self, seat: int) -> list[Meteor]:
        assert self.roll is not None
        direction = self.roll[self.dice.index("meteor_direction")]
        opts = [Meteor(seat, d) for d in DIRECTIONS] if direction == "meteor_any" else [Meteor(seat)]
        return opts + [Meteor(seat, None, s) for s in SPECIALS]

    def _candidate_pieces(self, seat: int) -> list[tuple[str, int | None]]:
        """(piece, die index) pairs the player may still draw this round."""
        prog = self.progress[seat]
        out: list[tuple[str, int | None]] = []
        seen = set()
        if self.free_dice:
            out = [(p, None) for p in PIECES if p not in SPECIALS and p != "lake_full"
                   and (family(p) == "route" or family(p) in self.expansions)]
        elif self.roll is not None:
            for i, face in enumerate(self.roll):
                if i in prog.used or face in seen or face not in PIECES:
                    continue
                seen.add(face)
                out.append((face, i))
                if face.startswith("lava_") and "volcano" not in seen:
                    seen.add("volcano")
                    out.append(("volcano", i))
        sheet = self.sheets[seat]
        if not prog.special and len(sheet.specials) < MAX_SPECIALS:
            out += [(s, None) for s in SPECIALS if s not in sheet.specials]
        return out

    def legal_placements(self, seat: int, pieces: list[str] | None = None) -> Iterator[Place]:
        """Every legal placement for `seat` now (optionally only of the named pieces)."""
        if self.finished or self.roll is None and not self.free_dice or self.progress[seat].done \
                or self.meteor_pending(seat):
            return
        sheet = self.sheets[seat]
        erasable = self._lava_erasable(sheet)
        for piece, _ in self._candidate_pieces(seat):
            if pieces is not None and piece not in pieces:
                continue
            lava = family(piece) == "lava" and piece != "volcano"
            for cell in range(CELLS):
                erase = lava and cell in erasable
                if sheet.cells[cell] is not None and not erase:
                    continue
                for sides in orientations(piece):
                    if placement_problem(sheet, cell, sides, piece, erase) is None:
                        yield Place(seat, piece, cell // 7, cell % 7, sides)

    def unplaceable_dice(self, seat: int) -> list[str]:
        """Rolled route and junction faces `seat` has not drawn and cannot draw anywhere: the dice the
        "if possible" rule lets them skip this round."""
        if self.roll is None or self.free_dice:
            return []
        used = self.progress[seat].used
        return [self.roll[i] for i, die in enumerate(self.dice)
                if die in ("route", "junction") and i not in used
                and next(self.legal_placements(seat, [self.roll[i]]), None) is None]

    def _lava_erasable(self, sheet: Sheet) -> set[int]:
        """Route squares lava may erase: only when no empty square is next to open lava (rri.lava.erase)."""
        if "lava" not in self.expansions or open_lava_squares(sheet):
            return set()
        return lava_fronts(sheet)

    def _die_for(self, seat: int, piece: str) -> int | None:
        assert self.roll is not None
        want = "lava" if piece == "volcano" else piece
        for i, face in enumerate(self.roll):
            if i in self.progress[seat].used:
                continue
            if face == want or (want == "lava" and face.startswith("lava_")):
                return i
        return None

    def _seat_check(self, seat: int, where: dict[str, Any]) -> Verdict | None:
        if not 0 <= seat < len(self.sheets):
            raise EngineError(f"seat {seat} does not exist: this match has {len(self.sheets)} player(s)")
        if self.finished:
            return Verdict.illegal("rri.game-over", "the game is over", _MUST, **where)
        if self.roll is None and not self.free_dice:
            return Verdict.illegal("rri.roll.first", f"round {self.round}: the dice have not been rolled yet",
                                   _MUST, **where)
        if self.progress[seat].done:
            return Verdict.illegal("rri.turn.done", f"player {seat} already finished round {self.round}",
                                   _MUST, **where)
        return None

    def _special_check(self, seat: int, special: str, where: dict[str, Any]) -> Verdict | None:
        sheet = self.sheets[seat]
        if special in sheet.specials:
            return Verdict.illegal("rri.special.once", f"{special} was already used: each special once",
                                   _MUST,
                                   **where)
        if self.progress[seat].special:
            return Verdict.illegal("rri.special.per-round", f"round {self.round}: a special was already used "
                                   "this round (at most one per round)", _MUST, **where)
        if len(sheet.specials) >= MAX_SPECIALS:
            return Verdict.illegal("rri.special.per-game", f"{special} would be special number "
                                   f"{len(sheet.specials) + 1}: at most {MAX_SPECIALS} per game",
                                   _MUST, **where)
        return None

    def judge(self, action: Action) -> Verdict:
        if isinstance(action, Roll):
            return self._judge_roll(action)
        if isinstance(action, Place):
            return self._judge_place(action)
        if isinstance(action, Meteor):
            return self._judge_meteor(action)
        if isinstance(action, Done):
            return self._judge_done(action)
        raise EngineError(f"railroad-ink cannot judge {action!r}")

    def _judge_roll(self, action: Roll) -> Verdict:
        if self.finished:
            return Verdict.illegal("rri.game-over", "the game is over", _MUST)
        if self.roll is not None:
            return Verdict.illegal("rri.roll.once", f"round {self.round} was already rolled", _MUST)
        faces = self.normalise_roll(action.faces)
        return Verdict.ok("rri.roll", f"round {self.round}: rolled {', '.join(faces)}", faces=list(faces))

    def _judge_place(self, a: Place) -> Verdict:
        where = {"square": cell_name(a.cell), "row": a.row, "col": a.col, "piece": a.piece,
                 "player": a.player}
        bad = self._seat_check(a.player, where)
        if bad:
            return bad
        if self.meteor_pending(a.player):
            return Verdict.illegal("rri.meteor.first", f"player {a.player}: resolve this round's meteor "
                                                       f"before "
                                   "drawing", _MUST, **where)
        if a.piece == "lake_full":
            return Verdict.illegal("rri.lake.fill", "full-water squares are filled by the rules, not drawn",
                                   _MUST, **where)
        if a.piece in SPECIALS:
            bad = self._special_check(a.player, a.piece, where)
            if bad:
                return bad
        elif not self.free_dice:
            fam = family(a.piece)
            if fam != "route" and fam not in self.expansions:
                return Verdict.illegal("rri.roll.not-rolled", f"{a.piece} on {where['square']}: this game is "
                                       f"played without the {fam} expansion", _MUST, **where)
            if self._die_for(a.player, a.piece) is None:
                assert self.roll is not None
                want = "a lava die" if a.piece == "volcano" else a.piece
                rolled = a.piece in self.roll or (a.piece == "volcano" and any(f.startswith("lava_")
                                                                                  for f in self.roll))
                if rolled:
                    return Verdict.illegal("rri.roll.die-used", f"{a.piece} on {where['square']}: {want} was "
                                           f"already drawn this round (each rolled route once)",
                                           _MUST, **where)
                return Verdict.illegal("rri.roll.not-rolled", f"{a.piece} on {where['square']} is not "
                                                              f"in round "
                                       f"{self.round}'s roll ({', '.join(self.roll)})", _MUST, **where)
        elif a.piece != "volcano" and family(a.piece) != "route" and family(a.piece) not in self.expansions:
            return Verdict.illegal("rri.roll.not-rolled", f"{a.piece} on {where['square']}: this sheet "
                                                          f"is played "
                                   f"without the {family(a.piece)} expansion", _MUST, **where)
        sheet = self.sheets[a.player]
        erase = family(a.piece) == "lava" and a.piece != "volcano" and a.cell in self._lava_erasable(sheet)
        problem = placement_problem(sheet, a.cell, a.sides, a.piece, erase)
        if problem:
            return Verdict.illegal(problem[0], problem[1], _MUST, **where)
        return Verdict.ok("rri.place", f"player {a.player} draws {a.piece} on {where['square']} in round "
                          f"{self.round}", **where)

    def _judge_meteor(self, a: Meteor) -> Verdict:
        where = {"player": a.player}
        bad = self._seat_check(a.player, where)
        if bad:
            return bad
        if "meteor" not in self.expansions:
            return Verdict.illegal("rri.meteor.none", "this game is played without meteors", _MUST, **where)
        if self.progress[a.player].meteor:
            return Verdict.illegal("rri.meteor.once", f"the meteor of round {self.round} is already resolved",
                                   _MUST, **where)
        if a.ignore_with:
            bad = self._special_check(a.player, a.ignore_with, where)
            return bad or Verdict.ok("rri.meteor.ignore", f"player {a.player} crosses off {a.ignore_with} to "
                                     "ignore the meteor", **where)
        assert self.roll is not None
        rolled = self.roll[self.dice.index("meteor_direction")].removeprefix("meteor_")
        if rolled == "any" and a.direction is None:
            return Verdict.illegal("rri.meteor.direction", "the direction die shows 'any': choose up, down, "
                                   "left or right", _MUST, **where)
        if rolled != "any" and a.direction not in (None, rolled):
            return Verdict.illegal("rri.meteor.direction", f"the direction die shows {rolled}, not "
                                   f"{a.direction}", _MUST, **where)
        path = self._meteor_path(a)
        return Verdict.ok("rri.meteor.walk", f"player {a.player}'s meteor lands on {cell_name(path[-1])}",
                          impact=cell_name(path[-1]), **where)

    def _meteor_path(self, a: Meteor) -> list[int]:
        assert self.roll is not None
        distance = int(self.roll[self.dice.index("meteor_distance")].rsplit("_", 1)[1])
        rolled = self.roll[self.dice.index("meteor_direction")].removeprefix("meteor_")
        direction = a.direction if rolled == "any" else rolled
        assert direction is not None
        sheet = self.sheets[a.player]
        return meteor_walk(sheet.impact, direction, distance, sheet.craters)

    def _judge_done(self, a: Done) -> Verdict:
        where = {"player": a.player}
        bad = self._seat_check(a.player, where)
        if bad:
            return bad
        if self.meteor_pending(a.player):
            return Verdict.illegal("rri.meteor.first", "resolve this round's meteor first", _MUST, **where)
        if self.free_dice:
            return Verdict.ok("rri.round.done", f"player {a.player} ends round {self.round}", **where)
        assert self.roll is not None
        prog = self.progress[a.player]
        for i, die in enumerate(self.dice):
            if die in ("route", "junction") and i not in prog.used:
                face = self.roll[i]
                if next(self.legal_placements(a.player, [face]), None) is not None:
                    return Verdict.illegal("rri.dice.if-possible", f"round {self.round}: {face} can still be "
                                           "drawn: every rolled route must be drawn if possible", _MUST,
                                           face=face, **where)
        if "lava" in self.expansions:
            lava_dice = [i for i, d in enumerate(self.dice) if d == "lava"]
            if not any(i in prog.used for i in lava_dice):
                faces = list(dict.fromkeys(self.roll[i] for i in lava_dice)) + ["volcano"]
                if next(self.legal_placements(a.player, faces), None) is not None:
                    return Verdict.illegal("rri.lava.at-least-one", f"round {self.round}: draw at least one "
                                           "lava die (or a volcano)", _MUST, **where)
        return Verdict.ok("rri.round.done", f"player {a.player} ends round {self.round}", **where)

    # -- applying --------------------------------------------------------------------------------
    def _apply_legal(self, action: Action, verdict: Verdict) -> RailroadInkState:
        if isinstance(action, Roll):
            return replace(self, roll=tuple(verdict.details["faces"]))
        if isinstance(action, Place):
            return self._apply_place(action)
        if isinstance(action, Meteor):
            return self._apply_meteor(action)
        assert isinstance(action, Done)
        progress = list(self.progress)
        progress[action.player] = replace(progress[action.player], done=True)
        if not all(p.done for p in progress):
            return replace(self, progress=tuple(progress))
        if self.round >= self.rounds:
            return replace(self, progress=tuple(progress), finished=True)
        return replace(self, round=self.round + 1, roll=None, progress=(Progress(),) * len(self.sheets))

    def _apply_place(self, a: Place) -> RailroadInkState:
        sheet = self.sheets[a.player]
        square = Square(a.sides, a.piece, PIECES[a.piece][1], self.round, a.piece in SPECIALS)
        sheet = self._fill_water(sheet.put(a.cell, square))
        prog = self.progress[a.player]
        if a.piece in SPECIALS:
            prog = replace(prog, special=True)
        elif not self.free_dice:
            die = self._die_for(a.player, a.piece)
            assert die is not None
            prog = replace(prog, used=prog.used | {die})
        return self._with(a.player, sheet, prog)

    def _apply_meteor(self, a: Meteor) -> RailroadInkState:
        sheet = self.sheets[a.player]
        prog = replace(self.progress[a.player], meteor=True)
        if a.ignore_with:
            sheet = replace(sheet, specials=sheet.specials + (a.ignore_with,))
            prog = replace(prog, special=True)
        else:
            impact = self._meteor_path(a)[-1]
            sheet = replace(sheet.erase(impact), craters=sheet.craters | {impact}, impact=impact)
            sheet = self._fill_water(sheet)
        return self._with(a.player, sheet, prog)

    def _fill_water(self, sheet: Sheet) -> Sheet:
        if "lake" not in self.expansions:
            return sheet
        while True:
            cells = forced_water(sheet)
            if not cells:
                return sheet
            for c in cells:
                sheet = sheet.put(c, Square("LLLL", "lake_full", False, self.round))

    def _with(self, seat: int, sheet: Sheet, prog: Progress) -> RailroadInkState:
        sheets = list(self.sheets)
        progress = list(self.progress)
        sheets[seat], progress[seat] = sheet, prog
        return replace(self, sheets=tuple(sheets), progress=tuple(progress))

    # -- scoring ---------------------------------------------------------------------------------
    def scores(self, longest: str = "trail") -> list[Score]:
        return [score_sheet(s, longest, self.expansions) for s in self.sheets]

    def outcome(self, longest: str = "trail") -> Outcome | None:
        if not self.finished:
            return None
        scores = self.scores(longest)
        order = ranking(scores)
        top = scores[order[0]]
        winners = tuple(i for i in order if (scores[i].total, scores[i].errors) == (top.total, top.errors))
        totals = tuple(float(s.total) for s in scores)
        if len(winners) > 1:
            return Outcome(winners, True, f"players {list(winners)} tie on {top.total} points and "
                                          f"{top.errors} "
                           "errors (rule rri.score.tie-break)", totals)
        return Outcome(winners, False, f"player {winners[0]} wins with {top.total} points (rule "
                                       f"rri.score.total, "
                       "ties broken by fewer errors)", totals)

    # -- views and serialisation -----------------------------------------------------------------
    def table_view(self) -> dict[str, Any]:
        """Plain JSON for the referee app: the roll and every player's squares."""
        players = []
        for seat, (sheet, prog) in enumerate(zip(self.sheets, self.progress, strict=True)):
            players.append({
                "seat": seat,
                "done": prog.done,
                "meteor_resolved": prog.meteor,
                "dice_used": sorted(prog.used),
                "specials": list(sheet.specials),
                "squares": [{"square": cell_name(c), "row": c // 7, "col": c % 7, "sides": sq.sides,
                             "piece": sq.piece, "overpass": sq.overpass, "round": sq.round}
                            for c, sq in sheet.placed()],
                "craters": [cell_name(c) for c in sorted(sheet.craters)],
                "score": score_sheet(sheet, "trail", self.expansions).to_json(),
            })
        return {"game": self.game_name, "round": self.round, "rounds": self.rounds,
                "phase": "over" if self.finished else ("roll" if self.roll is None else "draw"),
                "expansions": list(self.expansions), "dice": list(self.dice),
                "roll": list(self.roll) if self.roll else None, "players": players}

    def to_json(self) -> dict[str, Any]:
        from engine.railroad_ink.sheetfile import sheet_to_json

        return {"game": self.game_name, "expansions": list(self.expansions), "round": self.round,
                "roll": list(self.roll) if self.roll else None, "free_dice": self.free_dice,
                "finished": self.finished,
                "progress": [{"used": sorted(p.used), "special": p.special, "meteor": p.meteor,
                              "done": p.done}
                             for p in self.progress],
                "sheets": [sheet_to_json(s) for s in self.sheets]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RailroadInkState:
        from engine.railroad_ink.sheetfile import sheet_from_json

        if not isinstance(data, dict) or data.get("game") != cls.game_name:
            raise EngineError(f"not a railroad-ink state: {str(data)[:80]!r}")
        try:
            sheets = tuple(sheet_from_json(s).sheet for s in data["sheets"])
            progress = tuple(Progress(frozenset(p["used"]), bool(p["special"]), bool(p["meteor"]),
                                      bool(p["done"])) for p in data["progress"])
            roll = tuple(data["roll"]) if data.get("roll") else None
            return cls(sheets, check_expansions(data.get("expansions", [])), int(data["round"]), roll,
                       progress,
                       bool(data.get("free_dice")), bool(data.get("finished")))
        except (KeyError, TypeError, ValueError) as exc:
            raise EngineError(f"railroad-ink state is malformed: {exc!r}") from exc

