"""The dice board printed on home paper and taped together, read in 3D tile by tile (vision/tiled3d.py),
and `eval match highway-dice --paper a4|letter`, which plays whole matches on such a board."""

from __future__ import annotations

import json

import numpy as np

from datasets.dice.scenes import render_dice_on_sheet
from datasets.match_sim import Setup
from datasets.match_sim.core import camera_pose
from datasets.match_sim.dice_road import assembled_board
from drawing.dice_board import board_tiles
from engine.dice_road import load_board
from referee_app.cli import main
from referee_app.games.dice import DiceAdapter
from vision.tiled import TiledLocaliser
from vision.tiled3d import TiledFaceReader, TilePoses, owner


def _assembled_view(seed: int, size: tuple[int, int] = (1280, 720)):
    board = load_board()
    tiles = assembled_board(board, "a4", np.random.default_rng(seed))
    camera = camera_pose(Setup(*size, 850.0, 10.0), tiles.size_mm, np.random.default_rng(seed + 1))
    image, _ = render_dice_on_sheet(tiles.image, tiles.size_mm, [], camera, effects=0.0)
    return board, tiles, camera, image


def test_every_tile_gets_the_real_camera_from_its_own_markers():
    """Each tile's pose puts the camera where it is: the focal length from all tiles at once (a plain
    homography through every tile's markers took the gaps for perspective: 776 px for 914), the height
    from each tile's own markers."""
    board, tiles, camera, image = _assembled_view(5)
    located = TiledLocaliser(board_tiles(board)).update(image)
    assert located.status == "located" and len(located.calibration.located) == 6
    poses = TilePoses().update(located.calibration)
    true_f = camera.K[0, 0]
    for name, pose in poses.items():
        assert abs(pose.focal_px - true_f) / true_f < 0.03, (name, pose.focal_px, true_f)
        assert abs(pose.height_mm - 850.0) < 15.0, (name, pose.height_mm)


def test_each_zone_is_read_on_the_tile_that_holds_its_centre():
    board, _tiles, _camera, image = _assembled_view(6)
    adapter = DiceAdapter()
    assert adapter.read(image).items == {}  # the first view teaches the empty board
    assert adapter.read(image).items == {}
    reader = adapter._reader
    assert reader.tiled is True and isinstance(reader._tiled3d, TiledFaceReader)
    windows = reader._tiled3d.windows
    names = [z.name for w in windows for z in w.zones]
    assert sorted(names) == sorted(z.name for z in reader._zone_list)  # each zone once
    plan = reader.tiled_localiser.sheet
    for w in windows:
        for z in w.zones:
            x, y = z.x + w.origin[0] + z.w / 2, z.y + w.origin[1] + z.h / 2
            assert owner(plan, x, y).name == w.tile
    cell = board.cells["W13"]  # beside the seam at x = 198 mm, read on the tile right of it
    assert next(w.tile for w in windows if any(z.name == "cell:W13" for z in w.zones)) == "r1c2"
    assert 198.0 < cell.x - cell.w / 2


def test_eval_match_plays_on_a_board_taped_from_tiles(tmp_path, monkeypatch):
    """Through the CLI: a short match on a tuning seed, the board printed on Letter tiles and laid with
    gaps and turns; the referee finds the tiles by itself (as a user sets it up: nothing to say) and
    reads them tile by tile in 3D."""
    calls = []
    real = TiledFaceReader.read

    def spy(self, image, cal):
        calls.append(len(cal.located))
        return real(self, image, cal)

    monkeypatch.setattr(TiledFaceReader, "read", spy)
    out = tmp_path / "m.json"
    assert main(["eval", "match", "highway-dice", "--seeds", "3", "--paper", "letter", "--camera", "1280x720",
                 "--max-moves", "2", "--quiet", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["setup"]["paper"] == "letter" and report["seed_kind"] == "tuning"
    assert report["errors"] == 0
    assert report["moves"] == 2 and report["moves_right"] == 2, report["per_seed"][0]["failures"]
    # every frame read tile by tile; here the first view missed one tile's markers (it borrowed its
    # neighbour's fit until they were seen: the empty look it learned then is carried to its own fit)
    assert len(calls) == report["frames"] and calls[-1] == 6


def test_paper_for_a_game_not_printed_in_tiles_is_refused_before_anything_runs(tmp_path, capsys):
    out = tmp_path / "m.json"
    assert main(["eval", "match", "highway-grid", "--paper", "a4", "--json", str(out)]) != 0
    assert "--paper" in capsys.readouterr().err
    assert not out.exists()


def _glare(image: np.ndarray, centre: tuple[int, int], axes: tuple[int, int], gain: float) -> np.ndarray:
    """A bright reflection streak (as the match simulator's `_glare_streak`), at a chosen place."""
    import cv2

    mask = np.zeros(image.shape[:2], np.float32)
    cv2.ellipse(mask, centre, axes, 0.0, 0, 360, 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), 12)
    return np.clip(image + gain * mask[..., None], 0, 255).astype(np.uint8)


def test_a_glare_across_the_middle_seam_leaves_the_pools_empty():
    """A glare brightens the table seen through a gap as much as a die over it would: the gap was
    then kept as it looked, a dark line across a pool that lies over the middle seam, read as "a
    large object" (tuning seed 1, A4 tiles: a roll missed). The line is still darker than the paper
    around it, so it is still a gap, and filled."""
    board, tiles, camera, image = _assembled_view(5)
    adapter = DiceAdapter()
    adapter.read(image)
    assert adapter.read(image).items == {}
    seam = np.array([[p.x + p.w / 2, 210.0] for p in board.pools[:2]])  # pools of White and Blue
    px = camera.homography() @ np.column_stack([[tiles.where(*q) for q in seam], np.ones(2)]).T
    px = (px[:2] / px[2]).T
    for (x, y), gain in ((px[0], 60.0), (px[1], 90.0)):
        glared = _glare(image, (int(x), int(y)), (60, 14), gain)
        obs = adapter.read(glared)
        assert obs.items == {} and obs.blocked is None, (gain, obs.blocked)


def test_a_die_the_blob_mask_misses_is_kept_while_its_cell_does_not_look_empty(monkeypatch):
    """A die pushed square into its cell's printed outline differs from the paper at its pips and
    corners only, too little for a blob (tuning seed 3, A4 tiles: a nudged white 1 on B04 read as
    gone, and every move after it a false mismatch). A cell that held a die a frame ago and does not
    look empty asks the crop reader; an emptied cell still reads empty."""
    from datasets.dice.scenes import render_dice_on_sheet
    from vision.zones import ZoneDiceReader

    board, tiles, camera, image = _assembled_view(6)
    cell = board.cells["B04"]
    x, y = tiles.where(cell.x, cell.y)
    die = {"x_mm": x - 1.8, "y_mm": y + 1.5, "value": 1, "color": "white", "size_mm": 16.0, "angle": -6.7}
    with_die = render_dice_on_sheet(tiles.image, tiles.size_mm, [die], camera, effects=0.0)[0]
    adapter = DiceAdapter()
    adapter.read(image)
    assert adapter.read(image).items == {}
    assert adapter.read(with_die).items == {"cell:B04": (1, 0)}
    real = ZoneDiceReader._blobs
    monkeypatch.setattr(ZoneDiceReader, "_blobs", lambda self, a, b, many=True, max_side=None:
                        real(self, a, b, many, max_side) if many else [])  # no cell's die makes a blob
    for _ in range(3):
        assert adapter.read(with_die).items == {"cell:B04": (1, 0)}
    assert adapter.read(image).items == {}


def _match_frames(seed: int, paper: str):
    """Frames as `eval match` films them (1920 x 1080, 850 mm, 10 degrees: the room's lamp, the lens's
    softness, noise, JPEG) of the match of `seed` on `paper` tiles; a function of the dice."""
    from datasets.match_sim import Setup
    from datasets.match_sim.core import Scene
    from datasets.match_sim.dice_road import simulate

    sim = simulate(seed, Setup(paper=paper), turns=1)
    shot = sim.photographer

    def frame(dice: list[dict], index: int) -> np.ndarray:
        return shot.expose(shot.light(sim.draw(dice, shot.pose), Scene(dice, 1), index), index)

    return frame


def test_a_die_across_the_middle_seam_keeps_its_pips_and_its_face():
    """The pools lie across the middle seam, so a pool's die always lies over the gap. A gap pixel
    that looked as at the first look was filled from the paper around it; but a dark pip over the
    dark gap looks as the gap did, the gap's blurred edges as a white die's shaded face, and a blue
    die's body as dark as the gap: tuning seed 5, A4, read a white 6 in White's pool as a 5 (a pip
    filled in) and a blue 5 in Blue's as a 3. Unchanged gap now counts only at the gap's core, in its
    own colour, in runs longer than a pip."""
    frame = _match_frames(5, "a4")
    board = load_board()
    adapter = DiceAdapter()
    for k in range(3):
        assert adapter.read(frame([], k)).items == {}
    # board mm (the simulator lays each die on the tile holding its centre)
    dice = [{"x_mm": 100.3, "y_mm": 210.5, "value": 6, "color": "white", "size_mm": 16.0, "angle": -15.3},
            {"x_mm": 494.3, "y_mm": 209.8, "value": 5, "color": "blue", "size_mm": 16.0, "angle": -12.8}]
    assert all(p.y < 210.0 < p.y + p.h for p in board.pools[:2])
    for k in (10, 11):
        obs = adapter.read(frame(dice, k))
    assert obs.items == {"pool:0": 6, "pool:1": 5}, obs.items


def test_die_blobs_cut_by_a_seam_are_joined_into_one_die():
    """The filled gap breaks a die's outline where its edge or shadow crosses it, and the pool's blob
    falls in two: the upper half alone read a white 2 as a 1 (tuning seed 10, Letter). Two die blobs
    facing each other across the seam, one die's size together, are one; blobs apart, or too large
    together, are not joined."""
    from vision.zones import _joined_across

    seams = np.zeros((88, 88), np.uint8)
    seams[40:48] = 1  # the gap across the window
    halves = [(23, 27, 63, 42, "die"), (24, 47, 64, 73, "die")]
    assert _joined_across(halves, seams, 2.3 * 32) == [(23, 27, 64, 73, "die")]
    assert _joined_across(halves, np.zeros_like(seams), 2.3 * 32) == halves  # no seam between
    assert _joined_across(halves, seams, 40) == halves  # together larger than one die
    apart = [(0, 0, 20, 30, "die"), (30, 0, 50, 30, "die")]  # side by side above the seam
    assert _joined_across(apart, seams, 2.3 * 32) == apart
