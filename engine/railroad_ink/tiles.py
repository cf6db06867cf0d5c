"""Railroad Ink pieces: dice faces, specials and expansion tiles as four sides (N, E, S, W).

A side is one character: H highway, R railway, W river, L lake water, V lava, '-' nothing.
Inside one tile, sides of the same kind always join. Highway and railway join only on a station
(any non-overpass tile holding both); lake water joins the routes on its tile (piers); rivers and
lava never join anything else (a bridge crosses a river, lava lies beside a road).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from engine.core import EngineError

SIDE_NAMES = ("N", "E", "S", "W")
KINDS = "HRWLV"  # highway, railway, river, lake, lava
ROUTE_KINDS = "HR"
BLANK = "-"

# name -> (canonical sides in N,E,S,W order, overpass). Canonical orientations of the base pieces
# follow the neutral case format (shared/cases/railroad_ink/README.md).
PIECES: dict[str, tuple[str, bool]] = {
    # route dice (three identical dice)
    "railway_curve": ("R--R", False),
    "railway_straight": ("R-R-", False),
    "railway_t": ("RRR-", False),
    "highway_t": ("HHH-", False),
    "highway_straight": ("H-H-", False),
    "highway_curve": ("H--H", False),
    # junction die
    "station_straight": ("H-R-", False),
    "station_curve": ("HR--", False),
    "overpass": ("HRHR", True),
    # the six specials printed on every sheet
    "special_station_3h_1r": ("HHRH", False),
    "special_station_1h_3r": ("HRRR", False),
    "special_highway_cross": ("HHHH", False),
    "special_railway_cross": ("RRRR", False),
    "special_station_2h_2r_adjacent": ("HRRH", False),
    "special_station_2h_2r_opposite": ("HRHR", False),
    # Deep Blue: river die (bridges cross the river without joining it)
    "river_straight": ("W-W-", False),
    "river_curve": ("W--W", False),
    "river_bridge_highway": ("WHWH", False),
    "river_bridge_railway": ("WRWR", False),
    # Deep Blue: lake die (water sides; piers join a route to the lake)
    "lake_half": ("LL--", False),
    "lake_three_quarter": ("LLL-", False),
    "lake_quarter": ("L---", False),
    "lake_half_pier_highway_railway": ("LLRH", False),
    "lake_quarter_pier_highway": ("L-H-", False),
    "lake_quarter_pier_railway": ("L-R-", False),
    "lake_full": ("LLLL", False),  # the forced water fill, never rolled
    # Blazing Red: lava die and volcanoes
    "lava_half_diagonal": ("VV--", False),
    "lava_half_opposite": ("V-V-", False),
    "lava_three_quarter": ("VVV-", False),
    "lava_quarter_highway": ("VH-H", False),
    "lava_quarter_railway": ("VR-R", False),
    "volcano": ("VVVV", False),
}

SPECIALS: tuple[str, ...] = tuple(n for n in PIECES if n.startswith("special_"))

# Every die and its six faces (repeats are real: the junction die shows each junction twice).
FACES: dict[str, tuple[str, ...]] = {
    "route": ("railway_curve", "railway_straight", "railway_t", "highway_t", "highway_straight",
              "highway_curve"),
    "junction": ("station_straight", "station_straight", "station_curve", "station_curve", "overpass",
                 "overpass"),
    "special": SPECIALS,
    "river": ("river_straight", "river_curve", "river_curve", "river_curve", "river_bridge_highway",
              "river_bridge_railway"),
    "lake": ("lake_half", "lake_three_quarter", "lake_quarter", "lake_half_pier_highway_railway",
             "lake_quarter_pier_highway", "lake_quarter_pier_railway"),
    "lava": ("lava_half_diagonal", "lava_half_diagonal", "lava_half_opposite", "lava_three_quarter",
             "lava_quarter_highway", "lava_quarter_railway"),
    "meteor_distance": ("meteor_distance_1", "meteor_distance_1", "meteor_distance_1", "meteor_distance_2",
                        "meteor_distance_2", "meteor_distance_3"),
    "meteor_direction": ("meteor_left", "meteor_right", "meteor_up", "meteor_down", "meteor_any",
                         "meteor_any"),
}

# Which dice each game rolls, in roll order. The special "die" is the sheet's printed specials.
BASE_DICE = ("route", "route", "route", "junction")
EXPANSION_DICE: dict[str, tuple[str, ...]] = {
    "river": ("river", "river"),
    "lake": ("lake", "lake"),
    "meteor": ("meteor_distance", "meteor_direction"),
    "lava": ("lava", "lava"),
}
EXPANSIONS = tuple(EXPANSION_DICE)
DIE_OF_FACE: dict[str, str] = {face: die for die,
                               faces in FACES.items() for face in faces if die != "special"}


def rotate_cw(sides: str, turns: int = 1) -> str:
    """A quarter turn clockwise sends the N side to E: new[(i + 1) % 4] = old[i]."""
    turns %= 4
    return sides[-turns:] + sides[:-turns] if turns else sides


def mirror(sides: str) -> str:
    """Reflect in the vertical axis: E and W swap."""
    return sides[0] + sides[3] + sides[2] + sides[1]


def transform(sides: str, rotate_cw_quarter_turns: int = 0, mirrored: bool = False) -> str:
    """The neutral format's transform: mirror first, then rotate clockwise."""
    return rotate_cw(mirror(sides) if mirrored else sides, rotate_cw_quarter_turns)


@cache
def orientations(piece: str) -> tuple[str, ...]:
    """The distinct side strings a piece can be drawn as (rotations and mirrors), in a fixed order."""
    base = piece_sides(piece)
    seen: list[str] = []
    for m in (False, True):
        for r in range(4):
            s = transform(base, r, m)
            if s not in seen:
                seen.append(s)
    return tuple(seen)


def piece_sides(piece: str) -> str:
    try:
        return PIECES[piece][0]
    except KeyError:
        raise EngineError(f"unknown piece {piece!r} (known: {', '.join(PIECES)})") from None


def is_overpass(piece: str) -> bool:
    return PIECES[piece][1]


def check_sides(text: object, where: str = "") -> str:
    at = f" at {where}" if where else ""
    if not isinstance(text, str) or len(text) != 4 or any(ch not in KINDS + BLANK for ch in text):
        raise EngineError(f"sides{at} must be 4 characters N,E,S,W from {KINDS + BLANK!r}, got {text!r} "
                          "(rule rri.face)")
    return text


@cache
def pieces_for(sides: str, overpass: bool) -> tuple[str, ...]:
    """Every piece that can be drawn as `sides` (a special and a die face may share a shape)."""
    return tuple(n for n, (_, op) in PIECES.items() if op == overpass and sides in orientations(n))


def identify(sides: str, overpass: bool = False, where: str = "") -> str:
    """The piece drawn as `sides`: dice faces before specials, base before expansions."""
    found = pieces_for(sides, overpass)
    if not found:
        at = f" at {where}" if where else ""
        kind = "an overpass" if overpass else "a tile"
        raise EngineError(f"sides {sides!r}{at} are not {kind} of any die face, special or expansion piece "
                          "(rule rri.face)")
    return found[0]


@dataclass(frozen=True)
class TileInfo:
    """Precomputed facts about one drawn shape, shared by every square that shows it."""

    sides: str
    overpass: bool
    group: tuple[int, int, int, int]  # connected part of each side (-1 for a blank side)
    route: bool  # shows a highway, railway or river (counts for the centre)
    ports: tuple[tuple[int, str, int], ...] = ()  # (side, kind, part) of every non-blank side


@cache
def tile_info(sides: str, overpass: bool) -> TileInfo:
    group = [-1, -1, -1, -1]
    for i, k in enumerate(sides):
        if k == BLANK:
            continue
        for j in range(i):
            if sides[j] != BLANK and _joins(sides[j], k, overpass):
                group[i] = group[j]
                break
        else:
            group[i] = i
    # joins are transitive through a shared kind only when every pair is checked: merge leftovers
    changed = True
    while changed:
        changed = False
        for i in range(4):
            for j in range(4):
                if group[i] >= 0 and group[j] >= 0 and group[i] != group[j] and _joins(sides[i], sides[j],
                                                                                       overpass):
                    low = min(group[i], group[j])
                    high = max(group[i], group[j])
                    group = [low if g == high else g for g in group]
                    changed = True
    route = any(k in "HRW" for k in sides)
    ports = tuple((i, k, group[i]) for i, k in enumerate(sides) if k != BLANK)
    return TileInfo(sides, overpass, (group[0], group[1], group[2], group[3]), route, ports)


def _joins(a: str, b: str, overpass: bool) -> bool:
    if a == b:
        return True
    pair = {a, b}
    if pair == {"H", "R"}:
        return not overpass
    return "L" in pair and bool(pair & {"H", "R"})  # a pier joins its route to the lake


def check_expansions(expansions: object) -> tuple[str, ...]:
    if isinstance(expansions, str):
        expansions = [e for e in expansions.split(",") if e]
    if not isinstance(expansions, (list, tuple)) or not all(isinstance(e, str) for e in expansions):
        raise EngineError(f"expansions must be a list of names from {EXPANSIONS}, got {expansions!r}")
    bad = [e for e in expansions if e not in EXPANSIONS]
    if bad:
        raise EngineError(f"unknown expansion {bad[0]!r} (known: {', '.join(EXPANSIONS)})")
    return tuple(e for e in EXPANSIONS if e in expansions)  # canonical order, no repeats
