"""What the Tokyo Highway reader reports: plain data, every item with a confidence (vision knows no rules)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class StickReading:
    endpoints: tuple[tuple[float, float], tuple[float, float]]  # pixels
    width_px: float
    color: str  # colour class name (see vision.tokyo.colours)
    rgb: tuple[int, int, int]
    confidence: float
    role: str = "road"  # road | loose (lying on the table, not part of the structure) | unknown
    rests: tuple[int | None, int | None] = (None, None)  # support index under each end, None = table/unknown
    endpoints_mm: tuple[tuple[float, float, float], tuple[float, float, float]] | None = (
        None  # when calibrated
    )


@dataclass
class SupportReading:
    top_px: tuple[float, float]
    bbox: tuple[float, float, float, float]
    junction: bool
    confidence: float
    height: int | None = None  # column units, when calibrated
    height_confidence: float = 0.0
    x_mm: float | None = None
    y_mm: float | None = None
    base_px: tuple[float, float] | None = None  # where the column stands on the table, when calibrated


@dataclass
class CarReading:
    centre_px: tuple[float, float]
    bbox: tuple[float, float, float, float]
    color: str
    confidence: float
    stick: int | None = None  # the stick it stands on


@dataclass
class CrossingReading:
    a: int
    b: int
    point: tuple[float, float]  # pixels
    top: int  # a or b
    confidence: float
    cue: str  # colour | edges | heights
    height_check: str | None = None  # agrees | disagrees | None (heights unknown)
    point_mm: tuple[float, float] | None = None


@dataclass
class TokyoObservation:
    sticks: list[StickReading] = field(default_factory=list)
    supports: list[SupportReading] = field(default_factory=list)
    cars: list[CarReading] = field(default_factory=list)
    crossings: list[CrossingReading] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # glare, hand, loose stick, fallen support...
    calibrated: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
