"""Hand-made readings over drawn images for the several-view Tokyo tests: calibrated cameras around one
table, a plain table image, stick lines drawn where a camera sees them, and the readings (columns,
sticks) a view would give of given 3D points."""

from __future__ import annotations

import cv2
import numpy as np

from datasets.tokyo.camera import camera_looking_at
from vision.tokyo import PieceSizes, StickReading, SupportReading, TokyoCalibration, TokyoObservation

SIZES = PieceSizes()
W, H = 1280, 720
PURPLE, ORANGE = (150, 40, 140), (30, 120, 240)  # BGR


def calibs(yaws: tuple[float, ...]) -> list[TokyoCalibration]:
    """One camera per yaw, all 750 mm from the table's centre, 30 degrees down from the horizon's normal."""
    return [TokyoCalibration(camera_looking_at((0, 0, 0), 750, 30, yaw, 50, W, H), SIZES) for yaw in yaws]


def z(h: int) -> float:
    """Height of a stick's axis resting on a column of h units."""
    return h * SIZES.unit_mm + SIZES.stick_thickness_mm / 2


def table(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = np.full((H, W, 3), (150, 175, 195), np.float64) + rng.normal(0, 2, (H, W, 3))
    return np.clip(img, 0, 255).astype(np.uint8)


def px(calib: TokyoCalibration, p: tuple[float, float, float]) -> tuple[float, float]:
    uv = calib.camera.project(np.array([p], np.float64))[0][0]
    return float(uv[0]), float(uv[1])


def draw(img: np.ndarray, calib: TokyoCalibration, a: tuple, b: tuple, colour: tuple[int, int, int]) -> None:
    p, q = (tuple(int(round(v)) for v in px(calib, e)) for e in (a, b))
    cv2.line(img, p, q, colour, 9)


def support(calib: TokyoCalibration, x: float, y: float, h: int, junction: bool = False) -> SupportReading:
    return SupportReading(px(calib, (x, y, z(h))), (0.0, 0.0, 1.0, 1.0), junction, 0.9, h, 0.6, x, y)


def stick(calib: TokyoCalibration, a: tuple, b: tuple, rests: tuple, colour: str = "purple") -> StickReading:
    rgb = (140, 40, 150) if colour == "purple" else (240, 120, 30)
    return StickReading((px(calib, a), px(calib, b)), 9.0, colour, rgb, 0.9, "road", rests, (a, b))


def road_scene(
    cams: list[TokyoCalibration], cols: list[tuple[float, float, int]], road: tuple, road_in: tuple[bool, ...]
) -> tuple[list[TokyoObservation], list[TokyoCalibration], list[np.ndarray]]:
    """Every view reads the columns `cols` (x, y, height); the road is drawn in every image and read by the
    views whose flag in `road_in` is set, resting on columns 0 and 1."""
    obs, images = [], []
    for v, cal in enumerate(cams):
        o = TokyoObservation(calibrated=True, supports=[support(cal, x, y, h) for x, y, h in cols])
        if road_in[v]:
            o.sticks.append(stick(cal, *road, (0, 1)))
        img = table(v)
        draw(img, cal, *road, PURPLE)
        obs.append(o)
        images.append(img)
    return obs, cams, images
