"""Synthetic Railroad Ink dice in the printed tray, with exact labels (see docs/vision/route-dice.md)."""
