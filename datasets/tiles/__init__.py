"""Synthetic numbered pieces and 4x4 board scenes with exact labels (see docs/vision/tiles.md)."""
