"""Showing LED colours in a terminal (the emulator's view): coloured blocks with ANSI 24-bit colour,
laid out as the board when a layout with rows is given, or plain hex codes for logs and pipes."""

from __future__ import annotations

from collections.abc import Sequence

from referee_app.led.colors import RGB, hex_color
from referee_app.led.layout import Layout

RESET = "\x1b[0m"
HOME_CLEAR = "\x1b[H\x1b[J"


def block(color: RGB, text: str = "██") -> str:
    r, g, b = color
    if color == (0, 0, 0):  # an unlit LED: a dark grey outline so the position stays visible
        return f"\x1b[38;2;60;60;60m{'░' * len(text)}{RESET}"
    return f"\x1b[38;2;{r};{g};{b}m{text}{RESET}"


def _cell_blocks(pixels: Sequence[RGB], leds: Sequence[int], col: int) -> str:
    return "".join(block(pixels[i]) for i in leds) + " " * (col - 2 * len(leds))


def render_ansi(pixels: Sequence[RGB], layout: Layout | None = None, per_line: int = 32) -> str:
    lines: list[str] = []
    if layout is not None and layout.rows:
        col = max(max(len(c) for r in layout.rows for c in r), max(2 * len(v) for v in layout.cells.values()))
        for row in layout.rows:
            lines.append(" ".join(c.ljust(col) for c in row))
            cells = [_cell_blocks(pixels, layout.cells[c], col) for c in row]
            lines.append(" ".join(cells))
        if layout.seats:
            seats = (f"{k}:{block(pixels[i])}" for k, i in enumerate(layout.seats))
            lines.append("seats  " + "  ".join(seats))
        if layout.status:
            status = (f"{name}:{block(pixels[i])}" for name, i in layout.status.items())
            lines.append("status " + "  ".join(status))
        return "\n".join(lines)
    for start in range(0, len(pixels), per_line):
        chunk = pixels[start:start + per_line]
        lines.append(f"{start:4d} " + "".join(block(c) for c in chunk))
    return "\n".join(lines)


def render_text(pixels: Sequence[RGB]) -> str:
    return " ".join(hex_color(c) for c in pixels)
