"""The dice road's board reader and decoder at the edges of the camera envelope (issues 19 and 20):
a neighbour's empty-zone refresh must not learn a die as paper, a re-localised view brings the learned
empty sheet with it, zones out of the frame are "not seen" (neither read nor blocking), and the
Localiser follows a camera knock seen by two markers on one edge."""

from __future__ import annotations

import numpy as np
import pytest
from decoder_loop import run_loop, scripted
from test_decoder_dice import HAND, first_cell, table
from test_vision_zones import board_camera

from datasets.camera import Pose
from referee_app import events
from referee_app.games.dice import TRAY, BoardDiceReader, DiceAdapter, cell_key


@pytest.fixture(scope="module")
def camera():
    return board_camera()


def die(board, cell, value, colour="white"):
    c = board.cells[cell]
    return {"x_mm": c.x, "y_mm": c.y, "value": value, "color": colour, "size_mm": 16.0, "angle": 12.0}


def moved(pose: Pose, dx: float, dy: float) -> Pose:
    return Pose(pose.K, pose.R, pose.C + np.array([dx, dy, 0.0]), pose.out_size, pose.light_dir)


def test_a_die_is_never_learned_as_empty_paper_by_its_neighbours(camera):
    """Each empty cell's window (3 mm wider than the cell) is blended into the reference; it used to
    take a standing die's sides and edge with it, frame after frame, until the die read as empty."""
    board, _pose, shoot = camera
    reader = BoardDiceReader(board)
    reader.read(shoot([]))
    frames = [shoot([die(board, "W02", 1)], noise=n) for n in range(4)]
    reader.read(frames[0])
    zr = reader.zones
    c = board.cells["W02"]
    px = zr.px
    x0, y0, x1, y1 = (int(v * px) for v in (c.x - c.w / 2 - 1, c.y - c.h / 2 - 1, c.x + c.w / 2 + 1,
                                             c.y + c.h / 2 + 1))
    before = zr.reference[y0:y1, x0:x1].copy()
    for f in frames[1:]:
        assert reader.read(f).items.get(cell_key("W02"), (None,))[0] == 1
    assert np.array_equal(zr.reference[y0:y1, x0:x1], before)


def test_a_relocalised_view_registers_the_learned_sheet(camera):
    """The reference learned through one calibration is moved onto the view of the next."""
    import cv2

    board, _pose, shoot = camera
    reader = BoardDiceReader(board)
    reader.read(shoot([]))
    zr = reader.zones
    top = reader.localiser.calibration.rectify(shoot([], noise=6), reader.px_per_mm)
    shifted = cv2.warpAffine(top, np.float32([[1, 0, 1.6], [0, 1, -1.2]]), top.shape[1::-1],
                             borderMode=cv2.BORDER_REPLICATE)
    from vision.zones import _prep

    def misfit():
        return float(np.mean(np.abs(_prep(shifted, zr.px) - zr.reference)))

    worse = misfit()
    moved_mm = zr.register(shifted)
    assert moved_mm is not None and 0.5 < moved_mm * zr.px < 3.0
    assert misfit() < 0.8 * worse


def _stretched_view(reader, frame, scale=1.008):
    """The frame rectified through a calibration that places the sheet `scale` times longer in x (two
    calibrations disagree so: tuning seed 6 at 600 mm / 20 degrees, over 3 mm at the far corner)."""
    import cv2

    top = reader.localiser.calibration.rectify(frame, reader.px_per_mm)
    return cv2.warpAffine(top, np.float32([[scale, 0, 0], [0, 1, 0]]), top.shape[1::-1],
                          borderMode=cv2.BORDER_REPLICATE)


def _tray_dice(board):
    t = board.tray
    cx, cy = t.x + t.w / 2, t.y + t.h / 2
    return [{"x_mm": cx - 20, "y_mm": cy, "value": 3, "color": "white", "size_mm": 16.0, "angle": 10.0},
            {"x_mm": cx + 20, "y_mm": cy - 4, "value": 5, "color": "blue", "size_mm": 16.0, "angle": 50.0}]


def test_a_registration_of_a_few_mm_is_believed(camera):
    """Seed 6's fit moved the learned sheet 3.0 mm at its far corner, where a 3 mm limit refused it."""
    from vision.zones import _prep

    board, _pose, shoot = camera
    reader = BoardDiceReader(board)
    reader.read(shoot([]))
    zr = reader.zones
    view = _stretched_view(reader, shoot([], noise=6))
    worse = float(np.mean(np.abs(_prep(view, zr.px) - zr.reference)))
    moved_mm = zr.register(view)
    assert moved_mm is not None and 3.0 < moved_mm < 6.0
    assert float(np.mean(np.abs(_prep(view, zr.px) - zr.reference))) < 0.8 * worse


def test_a_refused_registration_relearns_the_sheet_but_not_the_dice_just_rolled(camera, monkeypatch):
    """A registration that is not believed used to leave the misfit reference in place: the tray read
    "a large object" for the rest of the match. Now the view is taken as the empty sheet, but not
    where it shows dice the old sheet cannot explain (a roll made as the camera was knocked)."""
    import vision.zones

    board, _pose, shoot = camera
    reader = BoardDiceReader(board)
    reader.read(shoot([]))
    zr = reader.zones
    monkeypatch.setattr(vision.zones, "MAX_REGISTER_MM", 0.0)  # no fit is believed
    view = _stretched_view(reader, shoot(_tray_dice(board), noise=6))
    assert zr.register(view) is None
    reading = zr.read(view)
    assert not reading.unreadable and sorted(d.value for d in reading.dice["tray"]) == [3, 5]
    empty = zr.read(_stretched_view(reader, shoot([], noise=7)))
    assert not empty.unreadable and not any(empty.dice.values())


def test_a_refused_registration_relearns_the_paper_round_a_pool_die(camera, monkeypatch):
    """Tuning seed 1 at 1280x720 / 1000 mm / 20 degrees: after the camera bump the fit (5 % better, not
    the 10 % asked) was refused and the view re-learned, but the die-side margin round the pool die's
    own pixels kept the old, misfit paper round it; a pool die stays all match, so its zone is never
    seen empty and refreshed, and the pool's printed outline, a pixel or two off, read "a large object"
    (6 of 24 moves missed). Only new dice get that margin now; a die already seen is left out by its box."""
    import cv2

    import vision.zones

    board, _pose, shoot = camera
    reader = BoardDiceReader(board)
    reader.read(shoot([]))
    zr = reader.zones
    pool = next(z for z in zr.zones if z.name == "pool:1")
    six = [{"x_mm": pool.x + pool.w / 2, "y_mm": pool.y + pool.h / 2 + 2, "value": 6, "color": "blue",
            "size_mm": 16.0, "angle": 8.0}]
    assert reader.read(shoot(six)).items == {"pool:1": 6}
    monkeypatch.setattr(vision.zones, "MAX_REGISTER_MM", 0.0)  # no fit is believed

    def bumped(noise):  # the same table seen through a calibration 1.5 px off in x and y
        top = reader.localiser.calibration.rectify(shoot(six, noise=noise), reader.px_per_mm)
        return cv2.warpAffine(top, np.float32([[1, 0, 1.5], [0, 1, -1.5]]), top.shape[1::-1],
                              borderMode=cv2.BORDER_REPLICATE)

    assert zr.register(bumped(6)) is None
    for noise in (7, 8, 9):
        reading = zr.read(bumped(noise))
        assert not reading.unreadable
        assert [d.value for d in reading.dice["pool:1"]] == [6]


def test_a_refused_registration_relearns_a_pool_outline_learned_faded(camera, monkeypatch):
    """Tuning seed 6 at 1280x720 / 1000 mm / 20 degrees: empty pool 2's top outline was learned washed
    out by a glare just before the camera bump; the bumped view shows it dark again, a line that
    differs from the old sheet, and the die-side margin round it kept the faded sheet over the whole
    pool: "a large object" there for the rest of the match (16 moves missed). A line is no die."""
    import cv2

    import vision.zones

    board, _pose, shoot = camera
    reader = BoardDiceReader(board)
    reader.read(shoot([]))
    zr = reader.zones
    pool = next(z for z in zr.zones if z.name == "pool:2")
    x0, y0, x1, y1 = zr._window(pool, 0.0)
    zr.reference[max(0, y0 - 4):y0 + 5, x0:x1] = np.median(zr.reference[y0 + 10:y1 - 10, x0:x1])
    monkeypatch.setattr(vision.zones, "MAX_REGISTER_MM", 0.0)  # no fit is believed

    def bumped(noise):
        top = reader.localiser.calibration.rectify(shoot([], noise=noise), reader.px_per_mm)
        return cv2.warpAffine(top, np.float32([[1, 0, 1.5], [0, 1, -1.5]]), top.shape[1::-1],
                              borderMode=cv2.BORDER_REPLICATE)

    assert zr.register(bumped(6)) is None
    for noise in (7, 8, 9):
        reading = zr.read(bumped(noise))
        assert not reading.unreadable and not reading.dice["pool:2"]


def test_a_believed_registration_relearns_the_paper_the_bumped_camera_draws(monkeypatch):
    """Tuning seed 6 at 1920x1080 / 1000 mm / 30 degrees: the camera gives about 1 px per mm there, half
    the view's, so the printed lines are jagged and their jags move with the camera. After the bump
    the fit of the learned sheet was believed (10.5 % better), but no fit moves the jags: the tray's
    outline read "a large object" with the roll's dice and, the tray being refreshed only when it
    holds nothing, for the rest of the match (16 of 24 moves missed). The view is now re-learned
    round the dice after a believed fit too."""
    import vision.zones
    from referee_app.commands.eval_match import make_setup, simulate

    monkeypatch.setattr(vision.zones, "REGISTER_GAIN", 1.0)  # any better fit is believed (seed 6's was)
    sim = simulate("highway-dice", 6, make_setup("1920x1080", 1000, 30))
    ph = sim.photographer
    bump = next(k for k, s in enumerate(sim.scenes) if s.bump)  # the roll of 4 and 4, the tray empty before

    def frames(k, n):
        scene = sim.scenes[k]
        still = ph.light(sim.draw(scene.content, ph.pose), scene, k)
        return [ph.expose(still, 10 * k + j) for j in range(n)]

    reader = BoardDiceReader()
    for f in frames(0, 2) + frames(bump - 1, 2):
        reader.read(f)
    ph.bump()
    rolled = [reader.read(f) for f in frames(bump, 2)]
    assert reader.registered_mm is not None  # the fit was believed
    assert all(o.blocked is None and o.items[TRAY] == (4, 4) for o in rolled)
    after = [reader.read(f) for f in frames(bump + 1, 3)]
    assert all(o.blocked is None and TRAY not in o.items for o in after)


def test_zones_out_of_the_frame_are_unseen_not_read_and_do_not_block(camera):
    """The camera slid so far that the board's right third and its two right markers left the frame:
    the board is followed from the two left ones, and the cells cut off are "not seen"."""
    board, pose, shoot = camera
    before = BoardDiceReader(board)
    before.read(shoot([]))
    reader = BoardDiceReader(board)
    reader.localiser.calibration = before.localiser.calibration  # the table's calibration, kept
    away = moved(pose, -150, 40)
    reader.read(shoot([], at=away))  # the empty board, as this camera now sees it
    out_cell = max(board.cells, key=lambda k: board.cells[k].x)  # the rightmost cell
    obs = reader.read(shoot([die(board, "W01", 3), die(board, out_cell, 5)], at=away))
    assert reader.localiser.calibration.markers_used == [0, 3]
    assert obs.blocked is None
    assert cell_key(out_cell) in obs.unseen and cell_key(out_cell) not in obs.items
    assert cell_key("W01") not in obs.unseen and obs.items[cell_key("W01")][0] == 3


def test_the_localiser_follows_a_knock_seen_by_two_markers_on_one_edge(camera):
    """Two markers on one edge cannot place the sheet alone (refused); with the calibration kept from
    before they still say how the picture moved."""
    board, pose, shoot = camera
    reader = BoardDiceReader(board)
    reader.read(shoot([]))
    away = moved(pose, 0, -45)  # the board moves down: its bottom markers leave the frame
    result = reader.localiser.update(shoot([], at=away))
    assert result.status == "moved" and len(result.markers_seen) == 2
    corners = np.array([[0, 0], [594, 0], [594, 420], [0, 420], [297, 210]], float)
    truth = np.c_[corners, np.ones(len(corners))] @ away.homography().T
    truth = truth[:, :2] / truth[:, 2:]
    err = np.abs(result.calibration.to_sheet(truth) - corners).max()
    assert err < 3.0  # mm, across the whole sheet


def _run(tmp_path, moves, script):
    return run_loop(tmp_path, "highway-dice", ["Ann", "Bo"], scripted(DiceAdapter, script), len(script), moves, 3)


def test_a_judged_die_out_of_the_frame_is_kept_and_play_goes_on(tmp_path):
    """The camera moved and a judged die's cell left the frame: it is not "missing" (no mismatch,
    even after a hand wiped the evidence), and the next roll is read."""
    cell = first_cell([])
    moves = ["R 1 4", f"1>{cell} +4"]
    board = {cell_key(cell): (1, 0), "pool:0": 4}
    blind = table({"pool:0": 4})
    blind.unseen = frozenset({cell_key(cell)})
    roll = table({"pool:0": 4, TRAY: (2, 6)})
    roll.unseen = blind.unseen
    script = [table(board)] * 3 + [blind] * 3 + [HAND] + [blind] * 3 + [roll] * 4
    session, said = _run(tmp_path, moves, script)
    assert [e.kind for e in said] == []
    assert [p.action.notation() for p in session.played][-1] == "R 2 6"


def test_without_unseen_the_same_die_is_missing(tmp_path):
    """The control: the same frames with the cell seen empty raise the mismatch."""
    cell = first_cell([])
    moves = ["R 1 4", f"1>{cell} +4"]
    board = {cell_key(cell): (1, 0), "pool:0": 4}
    script = [table(board)] * 3 + [table({"pool:0": 4})] * 10
    _session, said = _run(tmp_path, moves, script)
    assert events.MISMATCH in [e.kind for e in said]


def test_three_markers_that_leave_a_homography_loose_place_the_sheet_as_a_camera_pose():
    """Tuning seed 4 at 1280x720 / 600 mm / 20 degrees: the A2 board's marker 1 is out of the frame. The
    three others fit a homography too loosely to trust (refused before); as a camera pose they place
    the whole sheet within a millimetre or two of the camera's truth."""
    from referee_app.camera_setup import board_geometry
    from referee_app.commands.eval_match import make_setup, simulate
    from vision.localise import localise

    spec, _cells, _name = board_geometry("highway-dice")
    sim = simulate("highway-dice", 4, make_setup("1280x720", 600, 20))
    image = next(iter(sim.frames())).image
    cal = localise(image, spec)
    assert cal.markers_used == [0, 2, 3]
    corners = np.array([[0, 0], [594, 0], [594, 420], [0, 420], [297, 210]], float)
    truth = np.c_[corners, np.ones(len(corners))] @ sim.photographer.pose.homography().T
    truth = truth[:, :2] / truth[:, 2:]
    assert np.abs(cal.to_sheet(truth) - corners).max() < 2.0


def test_camera_check_does_not_refuse_a_marker_merely_out_of_view(tmp_path):
    """Tuning seed 4 at 600 mm / 20 degrees: marker 1 is outside the frame, every cell inside it; the
    referee places the board from the other three, so the check names the marker as out of view but
    does not count it against the set-up. With marker 3 hidden as well, two are left: no board."""
    import cv2

    from referee_app.cli import main
    from referee_app.commands.eval_match import make_setup, simulate

    sim = simulate("highway-dice", 4, make_setup("1280x720", 600, 20))
    image = next(iter(sim.frames())).image
    path, out = tmp_path / "frame.png", tmp_path / "check.json"
    cv2.imwrite(str(path), image)
    main(["camera", "check", "--image", str(path), "--game", "highway-dice", "--json", str(out)])
    import json

    report = json.loads(out.read_text())
    assert report["localised"] and report["markers_missing"] == [1] and report["markers_out_of_view"] == [1]
    assert report["cells_out_of_view"] == 0
    assert not any("not seen" in r for r in report["reasons"])
    # the same frame with marker 3 (inside the frame) painted over
    from vision.localise import detect_markers

    corners = detect_markers(image)[3]
    cv2.fillConvexPoly(image, corners.astype(np.int32), (200, 200, 200))
    cv2.imwrite(str(path), image)
    main(["camera", "check", "--image", str(path), "--game", "highway-dice", "--json", str(out)])
    report = json.loads(out.read_text())
    assert not report["inside_envelope"] and "was not found" in report["reasons"][0]


ONE_CELLS = ("B-D1", "B03", "B09", "B12", "B15", "W02", "W05")


@pytest.mark.parametrize("angle", [0.0, -6.7])
def test_a_white_one_off_its_cells_centre_is_read(camera, angle):
    """A white die showing 1 differs from white paper at its one pip, and where its edges lie along
    the printed cell outline at little else: the blob mask found nothing on the cell's centre to
    close the pip into, and half of these dice, nudged 2 mm in their cells, read as empty cells."""
    board, _pose, shoot = camera
    reader = BoardDiceReader(board)
    reader.read(shoot([]))
    dice = [{**die(board, c, 1), "x_mm": board.cells[c].x - 1.8, "y_mm": board.cells[c].y + 1.5,
             "angle": angle} for c in ONE_CELLS]
    items = reader.read(shoot(dice)).items
    assert {c: items.get(cell_key(c)) for c in ONE_CELLS} == {c: (1, 0) for c in ONE_CELLS}


@pytest.mark.parametrize("gap", [22.0, 24.0])
def test_two_dark_dice_a_few_mm_apart_in_the_tray_are_both_read(camera, gap):
    """Between two dark dice a few mm apart the 20 mm normalisation makes the paper read lighter
    than printed; the closing bridged the dice and that halo into one object and a die was lost
    (the roll was never seen)."""
    board, _pose, shoot = camera
    reader = BoardDiceReader(board)
    reader.read(shoot([]))
    t = board.tray
    cx, cy = t.x + t.w / 2, t.y + t.h / 2
    dice = [{"x_mm": cx - gap / 2, "y_mm": cy - 3, "value": 1, "color": "blue", "size_mm": 16.0, "angle": 8.0},
            {"x_mm": cx + gap / 2, "y_mm": cy + 3, "value": 2, "color": "blue", "size_mm": 16.0,
             "angle": 82.0}]
    obs = reader.read(shoot(dice))
    assert obs.items.get(TRAY) == (1, 2) and obs.blocked is None


@pytest.fixture(scope="module")
def tilted():
    """Tuning seed 1's 1920x1080 camera 850 mm up, tilted 30 degrees: (board, shoot(dice, frame))."""
    from datasets.match_sim.core import Scene
    from engine.dice_road import load_board
    from referee_app.commands.eval_match import make_setup, simulate

    sim = simulate("highway-dice", 1, make_setup("1920x1080", 850, 30), max_moves=1)
    ph = sim.photographer

    def shoot(dice, frame=0):
        return ph.expose(ph.light(sim.draw(dice, ph.pose), Scene(dice, 1), 0), frame)

    return load_board(), shoot


def tray_die(board, dx, dy, value, angle):
    t = board.tray
    return {"x_mm": t.x + t.w / 2 + dx, "y_mm": t.y + t.h / 2 + dy, "value": value, "color": "white",
            "size_mm": 16.0, "angle": angle}


@pytest.mark.parametrize("angle", [20.0, 40.0, 65.0])
def test_a_white_one_in_the_tray_at_30_degrees_is_read_in_every_frame(tilted, angle):
    """The crop reader's chance that a white 1 (a nearly blank face) is a die swings 0.09-0.87 between
    frames at a 30 degree camera; below 0.5 it was taken for a shadow and the roll never seen. Its pip
    on a light face at its blob is the presence test now; its shadow next to it is no second die."""
    board, shoot = tilted
    reader = BoardDiceReader()
    reader.read(shoot([]))
    dice = [tray_die(board, 12, -4, 1, angle), tray_die(board, -18, 5, 2, 90 - angle)]
    for frame in range(1, 4):
        assert reader.read(shoot(dice, frame)).items.get(TRAY) == (1, 2)


@pytest.mark.parametrize("angle", [10.0, 50.0])
def test_a_lone_white_one_and_its_shadow_read_as_one_die(tilted, angle):
    """The pip counter looks 1.5 dice round a blob, so a 1's shadow also counts its pip: the shadow
    must not become a second die (taking any sure one-pip count did that)."""
    board, shoot = tilted
    reader = BoardDiceReader()
    reader.read(shoot([]))
    assert reader.read(shoot([tray_die(board, 5, 3, 1, angle)], 1)).items.get(TRAY) == (1,)


@pytest.mark.parametrize("pair", [
    ((1, -4.8, 19.4, 84), (4, 4.4, -3.8, 32), 8),  # the 1's crop read drawn onto the 4's face
    ((1, -15.1, -1.1, 52), (4, 5.5, -15.2, 27), 13),  # one blob, read as the 4
    ((1, -9.8, -0.2, 50), (3, 11.6, 12.6, 26), 27),
    ((2, -1.4, 18.0, 62), (4, 17.3, 1.3, 59), 6),  # no 1: the 2's pips, counted beside the 4's
])
def test_two_white_dice_25_mm_apart_in_the_tray_at_30_degrees_are_both_read(tilted, pair):
    """Two white dice about 9 mm apart join into one blob (each die's blob is mostly its side and
    shadow, leaning the same way), or one die's crop read is drawn onto its neighbour's face: the pair
    was read as one die and the roll never seen (tuning seed 1's 30 degree camera; a scan of such
    pairs of a 1 and another die read 34 of 40 right before). The 1's pip, or a face's pips counted
    with the read die's masked out, is a second die where it lies a die or more from the first."""
    (v1, x1, y1, a1), (v2, x2, y2, a2), frame = pair
    board, shoot = tilted
    reader = BoardDiceReader()
    reader.read(shoot([]))
    dice = [tray_die(board, x1, y1, v1, a1), tray_die(board, x2, y2, v2, a2)]
    assert reader.read(shoot(dice, frame)).items.get(TRAY) == tuple(sorted((v1, v2)))
