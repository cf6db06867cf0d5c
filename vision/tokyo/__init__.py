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

__all__ = [
    "read_tokyo",
    "TokyoObservation",
    "StickReading",
    "SupportReading",
    "CarReading",
    "CrossingReading",
    "TokyoCalibration",
    "PieceSizes",
    "PinholeCamera",
]
