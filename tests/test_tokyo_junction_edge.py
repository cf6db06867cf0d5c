"""A junction's top unit at its edge: only yellow tells it from the plain column (issue 19, branch
tokyojx2, vision.tokyo.piece_evidence `Footprint.edge`). A blurred pixel beside the road resting on
the top, the unit below or the table blends the top's colour with its neighbour's; junction yellow
blended with a blue mat reads grey (tuning seed 32's fifth move, camera 2: the junction's top showed
only as slivers beside its road, 0 yellow and 20 grey pixels, and scored 65 nats for its plain twin)."""

from __future__ import annotations

import cv2
import numpy as np
from tokyo_poses import looking_calibration


def _edge(top: np.ndarray) -> np.ndarray:
    """The top pixels with a 4-neighbour that is not one (drawn here, not read from the code)."""
    inner = cv2.erode(top.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3)),
                      borderType=cv2.BORDER_CONSTANT, borderValue=0)
    return top & (inner == 0)


def _scored(grey: float, yellow: float, thin: bool = False, blue: bool = True):
    from vision.tokyo.piece_evidence import PieceMaps, footprint, footprint_scores

    calib = looking_calibration(640, 360)
    shape = (calib.camera.height, calib.camera.width)
    maps = PieceMaps(np.full(shape, grey, np.float32), np.full(shape, -2.0, np.float32),
                     np.full(shape, yellow, np.float32), np.full(shape, blue))
    known = np.zeros(shape, np.uint8)
    fp = footprint(calib, known, 0.0, 60.0, 3, (False, True), np.array([-100.0, 60.0, 10.0]))
    assert fp.top is not None and fp.win is not None
    if thin:  # only a sliver of the top shows: its inside hidden by a piece already standing
        known[fp.win][fp.top & ~_edge(fp.top)] = 1
        fp = footprint(calib, known, 0.0, 60.0, 3, (False, True), np.array([-100.0, 60.0, 10.0]))
        assert fp.top is not None
    plain, junction = footprint_scores(maps, fp, (False, True))
    return fp.top, _edge(fp.top), plain.total, junction.total


def test_grey_at_a_top_units_edge_does_not_speak_for_the_plain_column() -> None:
    top, edge_px, plain, junction = _scored(grey=2.0, yellow=-2.0)
    inner, edge = int((top & ~edge_px).sum()), int(edge_px.sum())
    assert inner > 0 and edge > 0
    # main: 4 nats a top pixel, edge and inside alike
    assert plain - junction == 4.0 * inner


def test_a_sliver_of_grey_top_leaves_the_twins_alike() -> None:
    top, edge, plain, junction = _scored(grey=2.0, yellow=-2.0, thin=True)
    assert top.any() and not (top & ~edge).any()
    assert plain == junction


def test_on_a_table_whose_blend_with_yellow_stays_saturated_grey_speaks_at_the_edge_too() -> None:
    """(as on main: yellow blurred with a beige mat is no grey)"""
    top, _, plain, junction = _scored(grey=2.0, yellow=-2.0, blue=False)
    assert plain - junction == 4.0 * int(top.sum())


def test_yellow_blended_with_a_blue_mat_reads_grey_with_a_beige_one_not() -> None:
    from vision.tokyo.piece_evidence import yellow_greys

    tables = np.array([[[230.0, 190.0, 150.0], [130.0, 160.0, 200.0], [80.0, 160.0, 60.0]]])  # BGR: blue, beige, green
    assert yellow_greys(tables, np.full((1, 3), 75.0)).tolist() == [[True, False, False]]


def test_yellow_speaks_for_the_junction_at_the_edge_and_inside() -> None:
    """(as on main: the change takes nothing from a junction's yellow)"""
    top, _, plain, junction = _scored(grey=-2.0, yellow=2.0)
    assert junction - plain == 4.0 * int(top.sum())
    top, _, plain, junction = _scored(grey=-2.0, yellow=2.0, thin=True)
    assert junction - plain == 4.0 * int(top.sum()) > 0
