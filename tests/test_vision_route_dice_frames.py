"""Finding die face frames: a frame notched by blur or joined to the die's outline is still found,
through its hull, only when it is dark all round; the tray view reaches past the tray's edge."""

from __future__ import annotations

import cv2
import numpy as np

from datasets.route_dice.scenes import dice_scene, render_route_dice_frame
from vision.route_dice import geometry as g
from vision.route_dice.faces import FACE_MM, OUTER
from vision.route_dice.reader import (
    PX_PER_MM,
    VIEW_MARGIN_MM,
    _on_frame,
    _quad_of,
    face_quads,
    read_dice,
    tray_view,
)

SIDE = FACE_MM * OUTER * PX_PER_MM  # the frame's outer side in view pixels


def ring(mask: np.ndarray, centre: tuple[float, float], side: float, width: int, angle: float) -> np.ndarray:
    box = cv2.boxPoints((centre, (side, side), angle))
    cv2.polylines(mask, [np.round(box).astype(np.int32)], True, 255, width)
    return box


def largest_contours(mask: np.ndarray) -> list[np.ndarray]:
    contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    return [c for c in contours if 0.45 * SIDE**2 <= cv2.contourArea(c) <= 1.6 * SIDE**2]


def test_dice_at_the_tray_edge_and_with_blurred_frames_are_read() -> None:
    # two scenes of the seed-22 evaluation set (datasets.route_dice.generate --seed 22, items 38 and
    # 53, saved as JPEG like the set): a die whose top face shows past the tray's edge, and one whose
    # frame blur joined to the die's outline (found through the hull of the contour inside it)
    faces = [
        "railway_straight",
        "overpass",
        "highway_straight",
        "lava_quarter_highway",
        "overpass",
        "lake_quarter_pier_railway",
        "lake_quarter_pier_highway",
    ]
    image, _ = dice_scene(faces, 831759497, 0, 1.0)
    readings, _ = read_dice(image)
    assert sorted(r.face for r in readings if r.status == "face") == sorted(faces)
    faces = ["railway_t", "railway_straight", "lava_three_quarter", "railway_t", "highway_t"]
    image, _ = dice_scene(faces, 1695084391, 0, 1.0)
    image = cv2.imdecode(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])[1], cv2.IMREAD_COLOR)
    readings, _ = read_dice(image)
    read = [r.face for r in readings if r.status == "face"]
    assert set(read) <= set(faces) and "railway_t" in read and len(read) >= 3, read


def test_a_hull_that_is_not_a_frame_is_rejected() -> None:
    dark = np.zeros((160, 160), np.uint8)
    # three sides of a square and a diagonal: its hull is a quadrilateral, but not dark all round
    pts = np.array([[40, 40], [40, 120], [120, 120], [120, 40]])
    cv2.polylines(dark, [pts], False, 255, 4)
    cv2.line(dark, (40, 40), (120, 120), 255, 4)
    assert all(
        _quad_of(c, dark) is None or _on_frame(_quad_of(c, dark), dark) < 0.85 for c in largest_contours(dark)
    )
    square = np.zeros((160, 160), np.uint8)
    q = ring(square, (80.0, 80.0), SIDE, 4, 0.0)
    assert _on_frame(q.astype(np.float64), square) >= 0.85
    assert _on_frame(q.astype(np.float64) + 12.0, square) < 0.5  # off the frame


def test_the_tray_view_reaches_past_the_tray_edge() -> None:
    image = render_route_dice_frame(["highway_t", "overpass"], seed=3, effects=0.2)
    view, _ = tray_view(image)
    assert view.origin_mm == (-VIEW_MARGIN_MM, -VIEW_MARGIN_MM)
    w, h = g.SHEET_MM
    assert view.image.shape[1] == round((w + 2 * VIEW_MARGIN_MM) * PX_PER_MM)
    assert view.image.shape[0] == round((h + 2 * VIEW_MARGIN_MM) * PX_PER_MM)
    squares = [q for q, square in face_quads(view.image, PX_PER_MM) if square]
    centres_mm = [q.mean(0) / PX_PER_MM + np.asarray(view.origin_mm) for q in squares]
    inside = [c for c in centres_mm if 0 < c[0] < w and 0 < c[1] < h]
    assert len(inside) >= 2


def test_a_leaning_die_does_not_pass_as_flat_through_another_threshold() -> None:
    # scene 41 of datasets.route_dice.generate --seed 24: the max-channel threshold once saw the
    # leaning lava die's face as a near square (side ratio 1.12) and it was read
    flat = ["lake_quarter_pier_railway", "lake_quarter_pier_highway", "lava_half_diagonal", "lake_quarter"]
    flat += ["station_curve", "overpass", "lake_half"]
    image, labels = dice_scene(flat, 1644475211, 1, 1.0)
    assert labels[-1]["leaning"] and labels[-1]["value"] == "lava_three_quarter"
    image = cv2.imdecode(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])[1], cv2.IMREAD_COLOR)
    readings, _ = read_dice(image)
    faces = [r.face for r in readings if r.status == "face"]
    assert "lava_three_quarter" not in faces and sorted(faces) == sorted(flat), faces
    assert any(r.status == "unreadable" for r in readings)
