"""`column_bodies` (referee_app/games/tokyo.py) on each column's box (issue #24, fifth round): the
body drawn and its saturation read on the projected hull's box within the frame give the whole
frame's shares (the computation before the change, copied here), for the bundled recording's columns
and for columns partly or wholly out of the picture."""

from __future__ import annotations

import copy

import cv2
import numpy as np
import pytest

from referee_app.demo import DEMO_ROOT
from referee_app.games.tokyo import GREY_SATURATION, column_bodies, load_calibration
from vision.tokyo import read_tokyo

DEMO = DEMO_ROOT / "tokyo-highway"


def _bodies_plain(image: np.ndarray, obs: dict, calib) -> list[float]:
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    bands = np.zeros(image.shape[:2], np.uint8)
    for st in obs["sticks"]:
        (x0, y0), (x1, y1) = st["endpoints"]
        cv2.line(bands, (int(x0), int(y0)), (int(x1), int(y1)), 255, int(st["width_px"]) + 4)
    radius = calib.sizes.column_diameter_mm / 2
    ring = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    out = []
    for s in obs["supports"]:
        if s.get("x_mm") is None or s.get("height") is None:
            out.append(1.0)
            continue
        pts = [[s["x_mm"] + radius * np.cos(a), s["y_mm"] + radius * np.sin(a), z]
               for z in (0.0, s["height"] * calib.sizes.unit_mm) for a in ring]
        uv, _ = calib.camera.project(np.array(pts))
        body = np.zeros(image.shape[:2], np.uint8)
        cv2.fillConvexPoly(body, cv2.convexHull(np.round(uv).astype(np.int32)), 255)
        inside = (body > 0) & (bands == 0)
        n = int(inside.sum())
        out.append(float((hsv[..., 1][inside] < GREY_SATURATION).mean()) if n >= 20 else 1.0)
    return out


@pytest.mark.parametrize("name", ["014.jpg", "021.jpg", "028.jpg"])
def test_bodies_on_their_boxes_equal_the_whole_frames(name: str) -> None:
    calib = load_calibration(DEMO / "calibration.json")[0]
    image = cv2.imread(str(DEMO / name), cv2.IMREAD_COLOR)
    obs = read_tokyo(image, calib).to_dict()
    assert obs["supports"]
    more = copy.deepcopy(obs)
    base = dict(more["supports"][0])
    # columns far out to each side and one at the picture's edge (their hulls cut by the frame)
    for dx, dy in ((-900.0, 0.0), (900.0, 0.0), (0.0, -500.0), (0.0, 700.0)):
        more["supports"].append({**base, "x_mm": base["x_mm"] + dx, "y_mm": base["y_mm"] + dy})
    for xm in np.linspace(-600, 600, 25):
        more["supports"].append({**base, "x_mm": float(xm), "height": 3})
    for o in (obs, more):
        assert column_bodies(image, o, calib) == _bodies_plain(image, o, calib)


def test_no_whole_frame_is_converted_to_hsv(monkeypatch) -> None:
    calib = load_calibration(DEMO / "calibration.json")[0]
    image = cv2.imread(str(DEMO / "021.jpg"), cv2.IMREAD_COLOR)
    obs = read_tokyo(image, calib).to_dict()
    real, sizes = cv2.cvtColor, []

    def seen(src: np.ndarray, code: int, *args, **kwargs) -> np.ndarray:
        sizes.append(src.shape[:2])
        return real(src, code, *args, **kwargs)

    monkeypatch.setattr(cv2, "cvtColor", seen)
    column_bodies(image, obs, calib)
    assert sizes and all(h * w < image.shape[0] * image.shape[1] / 4 for h, w in sizes)
