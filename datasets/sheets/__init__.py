"""Synthetic hand-drawn Railroad Ink sheets with exact labels (see docs/vision/sheets.md)."""
