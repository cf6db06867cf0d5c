"""Drawings of boards, states and printable sheets, as SVG text or raster images."""
