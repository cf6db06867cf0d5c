"""A tray's or pool's closed difference mask travels from `_zone_blobs` to `_ones_in_pieces` as a value
(issue #24, branch dicefps7): the reader keeps no `_last_mask` side channel that another `_blobs` call
could overwrite in between. Results only."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from referee_app.demo import bundled_demos
from referee_app.games.dice import DiceAdapter


def test_the_pieces_are_looked_for_on_the_zones_own_mask() -> None:
    demo = next(d for d in bundled_demos() if d.game == "highway-dice")
    frames = [f.image for f in itertools.islice(demo.frames(realtime=False), 13)]
    adapter = DiceAdapter()
    adapter.read(frames[0])
    zr = adapter._reader.zones
    made: dict[str, np.ndarray] = {}
    given: list[tuple[str, bool]] = []
    zone_blobs, ones = zr._zone_blobs, zr._ones_in_pieces

    def watched_blobs(z: Any, obs: np.ndarray) -> Any:
        blobs, mask = zone_blobs(z, obs)
        made[z.name] = mask
        x0, y0, x1, y1 = zr._window(z, 0.0 if z.many else 3.0)
        assert mask.shape == (y1 - y0, x1 - x0) and mask.dtype == np.uint8
        return blobs, mask

    def watched_ones(z: Any, faces: Any, mask: np.ndarray, where: Any, dice: Any) -> None:
        given.append((z.name, mask is made.get(z.name)))
        ones(z, faces, mask, where, dice)

    zr._zone_blobs, zr._ones_in_pieces = watched_blobs, watched_ones
    for f in frames[1:]:
        adapter.read(f)
    assert len(given) >= 4 and all(same for _name, same in given)  # each zone's own, just made
    assert not hasattr(zr, "_last_mask")
