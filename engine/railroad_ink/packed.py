"""Bit-packed sides of a 7x7 sheet: one 49-bit integer per (kind, side) pair.

Bit `cell` (row * 7 + col) of mask `KIND_INDEX[k] * 4 + side` is set when that cell's square shows
kind `k` on `side` (N, E, S, W = 0..3). Three more masks follow: occupied squares, overpasses and
squares that count for the centre (a highway, railway or river side). A `Sheet` keeps this tuple up
to date as squares are put and erased, so scoring reads whole rows of sides with a few integer
operations instead of visiting squares one by one (engine/railroad_ink/fastscore.py).
"""

from __future__ import annotations

from engine.railroad_ink.tiles import TileInfo

KIND_INDEX = {"H": 0, "R": 1, "W": 2, "L": 3, "V": 4}
OCCUPIED, OVERPASS, ROUTE = 20, 21, 22
EMPTY_PACK: tuple[int, ...] = (0,) * 23

# For each shape: the mask indices its bit goes into (sides, then occupied / overpass / route).
_SLOTS: dict[tuple[str, bool], tuple[int, ...]] = {}


def slots(info: TileInfo) -> tuple[int, ...]:
    key = (info.sides, info.overpass)
    got = _SLOTS.get(key)
    if got is None:
        out = [KIND_INDEX[k] * 4 + s for s, k, _ in info.ports]
        out.append(OCCUPIED)
        if info.overpass:
            out.append(OVERPASS)
        if info.route:
            out.append(ROUTE)
        got = _SLOTS[key] = tuple(out)
    return got


def pack_infos(infos: list[TileInfo | None]) -> tuple[int, ...]:
    """The masks of a whole sheet given each cell's shape (None = empty)."""
    masks = [0] * 23
    for cell, info in enumerate(infos):
        if info is not None:
            bit = 1 << cell
            for i in slots(info):
                masks[i] |= bit
    return tuple(masks)


def pack_put(packed: tuple[int, ...], cell: int, info: TileInfo, old: TileInfo | None) -> tuple[int, ...]:
    """The masks after drawing `info` on `cell` (replacing `old`, if any)."""
    masks = list(packed)
    bit = 1 << cell
    if old is not None:
        for i in slots(old):
            masks[i] &= ~bit
    for i in slots(info):
        masks[i] |= bit
    return tuple(masks)


def pack_erase(packed: tuple[int, ...], cell: int, old: TileInfo | None) -> tuple[int, ...]:
    if old is None:
        return packed
    masks = list(packed)
    bit = ~(1 << cell)
    for i in slots(old):
        masks[i] &= bit
    return tuple(masks)
