"""The dice-road board data, its consistency checks, and its drawings (page diagram, printed sheet)."""

from __future__ import annotations

import copy
import json
import xml.etree.ElementTree as ET

import cv2
import numpy as np
import pytest
from test_dice_helpers import paved, position

from drawing.dice_board import marker_keepout, printable_board
from engine.core import EngineError
from engine.dice_road import Board, board_json, load_board, new_state
from engine.dice_road.layout import default_board
from referee_app.render.dice_board import dice_board_svg
from vision.markers import dictionary, sheet_marker_ids

B = load_board()


def test_shipped_board_is_the_generated_layout() -> None:
    assert board_json() == json.loads(json.dumps(default_board()))


def test_cells_fit_a_16mm_die_and_everything_lies_on_the_sheet_clear_of_markers() -> None:
    assert len(B.cells) > 100 and B.max_players == 4
    zones = marker_keepout(B)
    rects = [(c.x - c.w / 2, c.y - c.h / 2, c.x + c.w / 2, c.y + c.h / 2) for c in B.cells.values()]
    rects += [(r.x, r.y, r.x + r.w, r.y + r.h) for r in (B.tray, *B.pools)]
    for c in B.cells.values():
        assert c.w >= 18 and c.h >= 18
    for x0, y0, x1, y1 in rects:
        assert 0 <= x0 < x1 <= B.width and 0 <= y0 < y1 <= B.height
        for zx0, zy0, zx1, zy1 in zones:
            assert x1 <= zx0 or zx1 <= x0 or y1 <= zy0 or zy1 <= y0, ((x0, y0, x1, y1), (zx0, zy0))
    assert B.tray.w >= 80 and B.tray.h >= 80 and all(p.w >= 30 for p in B.pools)


def test_roads_bridges_and_lanes_follow_the_seed() -> None:
    for road in B.roads:
        assert road.bridge_index - road.warning_index == 9  # "de negende steen vóór de brug"
        assert len(road.detour) == 5
        assert len(set(road.fixed_lane)) == 3
    fixed = [c for r in B.roads for c in r.fixed_lane]
    assert len(fixed) == len(set(fixed))  # three- and four-player lanes never cross
    w, b = B.roads[0].lanes, B.roads[1].lanes
    assert len(w["outer"]) == len(w["middle"]) and set(w["middle"]) & set(b["middle"])  # a shared middle


def _broken(mutate) -> dict:
    data = copy.deepcopy(board_json())
    mutate(data)
    return data


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d["roads"]["0"]["cells"].__setitem__(3, "W09"), "appears twice"),
    (lambda d: d["roads"]["0"]["cells"].pop(4), "not connected: W04 and W06"),
    (lambda d: d["roads"]["0"]["bridge"]["flanks"].__setitem__(0, "W-D3"), "not beside bridge"),
    (lambda d: d["roads"]["1"]["cells"].__setitem__(2, "ZZ1"), "not one of the board's cells"),
    (lambda d: d["cells"].append(dict(d["cells"][0])), "appears twice"),
    (lambda d: d["roads"].__setitem__("4", d["roads"]["0"]), "1..4 roads"),
    (lambda d: d.__setitem__("tray", {"x": 50, "y": 50, "w": 40, "h": 40}), "tray overlaps cell"),
    (lambda d: d["cells"][0].__setitem__("x", 9999), "outside"),
    (lambda d: d["roads"]["0"]["bridge"].__setitem__("warning", "W18"), "before the bridge"),
    (lambda d: d["roads"]["0"]["lanes"]["middle"].pop(), "not connected"),
    (lambda d: d["pools"].pop("2"), "pools.2"),
    (lambda d: d["cells"][5].__setitem__("w", "wide"), "must be a number"),
])
def test_inconsistent_boards_are_refused_with_a_clear_message(mutate, message: str) -> None:
    with pytest.raises(EngineError, match=message):
        Board.from_data(_broken(mutate))


def test_board_from_json_text_and_a_two_seat_board() -> None:
    assert Board.from_data(json.dumps(board_json())) == B
    with pytest.raises(EngineError, match="not valid JSON"):
        Board.from_data("{nope")
    two = _broken(lambda d: (d["roads"].pop("2"), d["roads"].pop("3"), d.__setitem__("turn_order", [0, 1])))
    small = Board.from_data(two)
    assert new_state(2, small).players == 2
    with pytest.raises(EngineError, match="roads for 2 seats, not 3"):
        new_state(3, small)
    # a game on a user's board serialises the board with it and reads back equal
    s = new_state(2, two)
    assert type(s).from_json(json.loads(json.dumps(s.to_json()))) == s


def test_page_diagram_shows_stones_holes_pools_and_roll() -> None:
    trail = [*paved(0, 2), {"cell": "W03", "value": 4, "seat": 1, "kind": "hole", "t": 7}]
    s = position(turn=0, trails={0: trail, 1: paved(1, 2)}, pools={1: 6}, roll=[2, 5])
    svg = dice_board_svg(s)
    root = ET.fromstring(svg)
    assert root.get("width") == f"{B.width:g}mm"
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    for value in ("1", "3", "2", "4", "6", "5"):
        assert value in texts
    empty = dice_board_svg(B)
    assert len(svg) > len(empty) and "W07" in empty
    view = s.table_view()
    assert view == {"stones": {"B01": {"value": 2, "seat": 1}, "B02": {"value": 4, "seat": 1},
                               "W01": {"value": 1, "seat": 0}, "W02": {"value": 3, "seat": 0}},
                    "pools": {0: None, 1: 6}, "roll": [2, 5]}


def test_printable_sheet_has_the_four_markers_where_meta_says() -> None:
    dpi = 75.0
    svg, png, meta = printable_board(B, dpi)
    assert ET.fromstring(svg).get("height") == f"{B.height:g}mm"
    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    px = dpi / 25.4
    assert img.shape[:2] == (round(B.height * px), round(B.width * px))
    det = cv2.aruco.ArucoDetector(dictionary(), cv2.aruco.DetectorParameters())
    corners, ids, _ = det.detectMarkers(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    assert ids is not None and sorted(ids.ravel().tolist()) == list(sheet_marker_ids("highway-dice"))
    for quad, marker_id in zip(corners, ids.ravel(), strict=True):
        cx, cy = quad.reshape(4, 2).mean(axis=0) / px
        ex, ey = meta["markers"][str(int(marker_id))]
        assert abs(cx - ex) < 1.5 and abs(cy - ey) < 1.5


@pytest.mark.parametrize("trail, message", [
    ([{"cell": "W01", "value": 3, "seat": 0, "kind": "pave", "t": 0}], "must be 1"),
    ([{"cell": "W02", "value": 1, "seat": 0, "kind": "pave", "t": 0}], "position 1 of White's road is W01"),
    ([{"cell": "W01", "value": 2, "seat": 1, "kind": "block", "t": 0}], "empty road cannot be blocked"),
    ([{"cell": "W01", "value": 1, "seat": 0, "kind": "pave", "t": 0},
      {"cell": "W02", "value": 2, "seat": 1, "kind": "block", "t": 1},
      {"cell": "W03", "value": 5, "seat": 0, "kind": "pave", "t": 2}], "next stone is its unblock"),
    ([{"cell": "W01", "value": 1, "seat": 0, "kind": "pave", "t": 0},
      {"cell": "W02", "value": 1, "seat": 2, "kind": "block", "t": 1}], "cannot be Green's"),
])
def test_inconsistent_positions_are_refused(trail: list, message: str) -> None:
    data = new_state(3).to_json()
    data["trails"][0] = trail
    data["clock"] = 5
    with pytest.raises(EngineError, match=message):
        type(new_state(3)).from_json(data)
