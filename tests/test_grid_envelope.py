"""Highway 4x4 at the envelope's steepest set-up (1280x720, 600 mm, 30 degrees): frames of tuning
seeds' simulated matches, filmed exactly as `eval match highway-grid` films them, that main's reader
could not read (each cost a move of the match)."""

from __future__ import annotations

import cv2
import numpy as np

from datasets.match_sim.core import Setup
from datasets.match_sim.grid import simulate
from referee_app.games.grid import GridAdapter
from vision.tiles import reader as R
from vision.tiles import split

STEEP = Setup(1280, 720, 600.0, 30.0)


def scene_frame(seed: int, note: str, shot: int = 0) -> np.ndarray:
    """Frame `shot` of the first still scene whose note starts with `note`, in `seed`'s match."""
    sim = simulate(seed, STEEP)
    index = 0
    for k, scene in enumerate(sim.scenes):
        if scene.bump:
            sim.photographer.bump()
        if scene.note.startswith(note):
            still = sim.photographer.light(sim.draw(scene.content, sim.photographer.pose), scene, k)
            return sim.photographer.expose(still, index + shot)
        index += scene.hold
    raise AssertionError(f"no scene {note!r} in seed {seed}")


def test_a_stack_among_touching_pieces_is_read_as_its_top_piece() -> None:
    """Tuning seed 2's move 15: 12 put on the 10 at c3, whose neighbours b2, c2 and b3 touch it
    corner to corner. Seen at 30 degrees the stack covers 1.2 flat pieces, one more than a part of
    a split object might: the four stayed one object, four cells "off their cell", and the illegal
    move was never seen."""
    adapter = GridAdapter()
    adapter.read(scene_frame(2, "after 6@a2"))  # the camera was bumped: its markers are found here
    obs = adapter.read(scene_frame(2, "illegal 12@c3"))
    assert obs.blocked is None
    assert {c: obs.items.get(c) for c in ("b2", "c2", "b3", "c3")} == {"b2": 9, "c2": 7, "b3": 8, "c3": 12}


def test_a_speck_at_the_views_corner_is_not_part_of_a_piece() -> None:
    """Tuning seed 1, frame 47 (move 6, 5@c2, under a glare streak): a sliver of the corner marker
    left in the top view had no core and was joined to the nearest piece, a3's; a3 then read "odd
    shape", the view was blocked in the middle of the move's frames and the move was missed."""
    view, _ = R.grid_view(scene_frame(1, "after 5@c2", 2))
    fg = R.foreground(view.image, view.px_per_mm)
    labels, _ = R.split_touching(fg, view.px_per_mm)
    _, objects = cv2.connectedComponents(fg, connectivity=8)
    for k in range(1, int(labels.max()) + 1):  # no label reaches over two objects
        assert len(np.unique(objects[labels == k])) <= 1
    cells = R.read_cells_in_view(view)
    assert cells["a3"].status == "piece" and cells["a3"].number == 6
    assert cells["c2"].number == 5


def test_pieces_are_labelled_within_their_own_object() -> None:
    """Two squares joined by a neck (one object, two cores) and a small square apart with no core:
    the small one keeps its own label, the two are split."""
    fg = np.zeros((120, 200), np.uint8)
    fg[20:80, 10:70] = 1
    fg[40:60, 70:80] = 1
    fg[20:80, 80:140] = 1
    fg[100:110, 150:160] = 1
    core = cv2.erode(fg, np.ones((31, 31), np.uint8))
    labels = split._nearest_core(fg, core)
    assert labels[50, 30] != labels[50, 110]
    small = labels[105, 155]
    assert small and small not in (labels[50, 30], labels[50, 110])
    assert (labels > 0).sum() == fg.sum()


def test_a_cell_that_cannot_be_read_is_unseen_and_the_others_are_read() -> None:
    """Tuning seed 7, after the camera bump: b3 (a 5) reads "outline neither a square nor a circle"
    for the whole scene of 11@c3, and two moves later six crowded cells at the bottom right merge
    into one object ("piece off its cell"). Each such frame blocked the whole view, so 11@c3 and
    9@a2 (far from the jam) were missed. Now those cells alone are unseen and the rest is read."""
    obs = GridAdapter().read(scene_frame(7, "after 11@c3"))
    assert obs.blocked is None and obs.unseen == {"b3"} and obs.items["c3"] == 11
    obs = GridAdapter().read(scene_frame(7, "after 9@a2"))
    assert obs.blocked is None and obs.items["a2"] == 9
    assert obs.unseen == {"b3", "c3", "d3", "b4", "c4", "d4"}


def test_a_hand_reaching_over_the_board_still_blocks_the_view() -> None:
    """Tuning seed 1 at 450 mm / 10 degrees with hands: the hand merges with the pieces it passes
    over, but it reaches in from beyond the grid, so the frame is not used at all."""
    sim = simulate(1, Setup(1280, 720, 450.0, 10.0, "normal", True))
    k = next(k for k, s in enumerate(sim.scenes) if s.hand)
    index = sum(s.hold for s in sim.scenes[:k])
    frame = sim.photographer.expose(sim.photographer.light(sim.draw(sim.scenes[k].content,
                                                                    sim.photographer.pose), sim.scenes[k], k), index)
    obs = GridAdapter().read(frame)
    assert obs.blocked is not None and "cannot read" in obs.blocked and not obs.unseen
