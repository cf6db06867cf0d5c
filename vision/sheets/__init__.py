"""Hand-drawn Railroad Ink player sheets. See docs/vision/sheets.md."""

from vision.sheets.geometry import sheet_geometry, square_names
from vision.sheets.reader import SquareReading, read_sheet

__all__ = ["SquareReading", "read_sheet", "sheet_geometry", "square_names"]
