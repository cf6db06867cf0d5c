"""Tokyo Highway vision: sticks, supports and heights, cars, and which stick is on top at each crossing."""

from vision.tokyo.calibration import PieceSizes, PinholeCamera, TokyoCalibration
from vision.tokyo.observation import (
    CarReading,
    CrossingReading,
    StickReading,
    SupportReading,
    TokyoObservation,
)
from vision.tokyo.reader import read_tokyo
from vision.tokyo.stereo import TokyoViews, ViewColumn, read_tokyo_views

__all__ = [
    "read_tokyo",
    "read_tokyo_views",
    "TokyoViews",
    "ViewColumn",
    "TokyoObservation",
    "StickReading",
    "SupportReading",
    "CarReading",
    "CrossingReading",
    "TokyoCalibration",
    "PieceSizes",
    "PinholeCamera",
]
