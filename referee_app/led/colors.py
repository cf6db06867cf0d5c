"""Colours for the LED board: parsing from layout files, and brightness scaling."""

from __future__ import annotations

from typing import Any

RGB = tuple[int, int, int]

NAMED: dict[str, RGB] = {
    "off": (0, 0, 0), "black": (0, 0, 0), "white": (255, 255, 255), "red": (255, 0, 0),
    "green": (0, 255, 0), "blue": (0, 0, 255), "amber": (255, 140, 0), "yellow": (255, 220, 0),
    "cyan": (0, 200, 255), "magenta": (255, 0, 200), "purple": (140, 0, 255), "orange": (255, 80, 0),
}


class ColorError(ValueError):
    pass


def parse_color(value: Any, where: str = "colour") -> RGB:
    """'#rrggbb', 'rrggbb', a name from NAMED, or [r, g, b] with 0..255 each."""
    if isinstance(value, str):
        text = value.strip().lower()
        if text in NAMED:
            return NAMED[text]
        hexpart = text[1:] if text.startswith("#") else text
        if len(hexpart) == 6:
            try:
                return (int(hexpart[0:2], 16), int(hexpart[2:4], 16), int(hexpart[4:6], 16))
            except ValueError:
                pass
    elif isinstance(value, list | tuple) and len(value) == 3 and all(
            isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 255 for v in value):
        return (value[0], value[1], value[2])
    raise ColorError(f"{where}: {value!r} is not a colour (use '#rrggbb', [r, g, b] 0-255, or one of "
                     f"{', '.join(sorted(NAMED))})")


def scale(color: RGB, brightness: float) -> RGB:
    """Dim a colour; brightness 0..1."""
    return (round(color[0] * brightness), round(color[1] * brightness), round(color[2] * brightness))


def hex_color(color: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*color)
