"""LED layouts: which LED shows which board cell, seat and status light, per game, plus colours,
brightness and flash timing. Stored as JSON (format documented in docs/protocols/led.md); bundled
layouts live in referee_app/led/layouts/<game>.json. `serpentine_layout` builds one from the board's
cell ids in rows, for a strip laid in a zig-zag under the board.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import jsontext
from referee_app.led.colors import RGB, ColorError, hex_color, parse_color

FORMAT = "highway-referee-led-layout/1"
LAYOUT_DIR = Path(__file__).with_name("layouts")
STATUS_LIGHTS = ("camera", "mismatch")

DEFAULT_COLORS: dict[str, str] = {
    "legal": "#00ff00", "illegal": "#ff0000", "mismatch": "#ff8c00", "placed": "#303030",
    "camera_ok": "#004000", "camera_lost": "#ff0000", "seat_idle": "#000000", "off": "#000000",
    "confirm": "#00c8ff",
}
DEFAULT_SEAT_COLORS = ("#0060ff", "#ff3000", "#00c040", "#c000ff", "#ffd000", "#00e0e0")
DEFAULT_TIMING: dict[str, float] = {"flash_period_s": 0.4, "legal_flashes": 2, "illegal_flashes": 5}


class LayoutError(ValueError):
    """A layout file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class Layout:
    game: str
    led_count: int
    cells: dict[str, tuple[int, ...]]
    seats: tuple[int, ...] = ()
    status: dict[str, int] = field(default_factory=dict)
    rows: tuple[tuple[str, ...], ...] = ()  # the board's cells as seen from above (for the terminal view)
    brightness: float = 0.4
    colors: dict[str, RGB] = field(default_factory=dict)
    seat_colors: tuple[RGB, ...] = ()
    timing: dict[str, float] = field(default_factory=dict)
    source: str = "<memory>"

    def color(self, name: str) -> RGB:
        return self.colors.get(name) or parse_color(DEFAULT_COLORS[name])

    def seat_color(self, seat: int) -> RGB:
        palette = self.seat_colors or tuple(parse_color(c) for c in DEFAULT_SEAT_COLORS)
        return palette[seat % len(palette)]

    def time(self, name: str) -> float:
        return float(self.timing.get(name, DEFAULT_TIMING[name]))

    def leds_for(self, cells: Iterable[str]) -> tuple[list[int], list[str]]:
        """LED indices of `cells`, and the cell ids this layout does not know."""
        leds: list[int] = []
        unknown: list[str] = []
        for cell in cells:
            idx = self.cells.get(str(cell))
            if idx is None:
                unknown.append(str(cell))
            else:
                leds.extend(idx)
        return leds, unknown

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "game": self.game,
            "led_count": self.led_count,
            "rows": [list(r) for r in self.rows],
            "cells": {k: (v[0] if len(v) == 1 else list(v)) for k, v in self.cells.items()},
            "seats": list(self.seats),
            "status": dict(self.status),
            "brightness": self.brightness,
            "colors": {k: hex_color(v) for k, v in self.colors.items()},
            "seat_colors": [hex_color(c) for c in self.seat_colors],
            "timing": dict(self.timing),
        }


def _index(value: Any, where: str, count: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < count:
        raise LayoutError(f"{where}: LED index must be an integer 0..{count - 1} (led_count is {count}), "
                          f"got {value!r}")
    return value


def layout_from_json(data: Any, source: str = "<memory>") -> Layout:
    """Validate a parsed layout file; every error names `source` and the offending key."""
    def err(msg: str) -> LayoutError:
        return LayoutError(f"{source}: {msg}")

    if not isinstance(data, dict):
        raise err("a layout is a JSON object")
    if data.get("format", FORMAT) != FORMAT:
        raise err(f"format {data.get('format')!r} is not {FORMAT!r}")
    unknown_keys = set(data) - {"format", "game", "led_count", "rows", "cells", "seats", "status",
                                "brightness", "colors", "seat_colors", "timing", "comment"}
    if unknown_keys:
        raise err(f"unknown keys {sorted(unknown_keys)}")
    game = data.get("game")
    if not isinstance(game, str) or not game:
        raise err("'game' must name the game, e.g. \"highway-grid\"")
    count = data.get("led_count")
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 1024:
        raise err(f"'led_count' must be an integer 1..1024, got {count!r}")
    try:
        cells_in = data.get("cells")
        if not isinstance(cells_in, dict) or not cells_in:
            raise err("'cells' must map cell ids to LED indices, e.g. {\"a1\": 0}")
        cells: dict[str, tuple[int, ...]] = {}
        for cell, value in cells_in.items():
            values = value if isinstance(value, list) else [value]
            if not values:
                raise err(f"cells.{cell}: no LED index")
            cells[cell] = tuple(_index(v, f"{source}: cells.{cell}", count) for v in values)
        seats_in = data.get("seats", [])
        if not isinstance(seats_in, list):
            raise err("'seats' must be a list of LED indices, seat 0 first")
        seats = tuple(_index(v, f"{source}: seats[{i}]", count) for i, v in enumerate(seats_in))
        status_in = data.get("status", {})
        if not isinstance(status_in, dict):
            raise err("'status' must map status lights (camera, mismatch) to LED indices")
        bad = set(status_in) - set(STATUS_LIGHTS)
        if bad:
            raise err(f"status: unknown lights {sorted(bad)} (known: {', '.join(STATUS_LIGHTS)})")
        status = {k: _index(v, f"{source}: status.{k}", count) for k, v in status_in.items()}
        colors_in = data.get("colors", {})
        if not isinstance(colors_in, dict):
            raise err("'colors' must be an object")
        bad = set(colors_in) - set(DEFAULT_COLORS)
        if bad:
            raise err(f"colors: unknown names {sorted(bad)} (known: {', '.join(sorted(DEFAULT_COLORS))})")
        colors = {k: parse_color(v, f"{source}: colors.{k}") for k, v in colors_in.items()}
        seat_colors = tuple(parse_color(v, f"{source}: seat_colors[{i}]")
                            for i, v in enumerate(data.get("seat_colors", [])))
    except ColorError as exc:
        raise LayoutError(str(exc)) from None
    brightness = data.get("brightness", 0.4)
    if isinstance(brightness, bool) or not isinstance(brightness, int | float) or not 0 <= brightness <= 1:
        raise err(f"'brightness' must be a number 0..1, got {brightness!r}")
    timing = data.get("timing", {})
    if not isinstance(timing, dict) or set(timing) - set(DEFAULT_TIMING) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) and v > 0 for v in timing.values()):
        raise err(f"'timing' takes positive numbers for {', '.join(DEFAULT_TIMING)}, got {timing!r}")
    rows_in = data.get("rows", [])
    if not isinstance(rows_in, list) or not all(isinstance(r, list) for r in rows_in):
        raise err("'rows' must be a list of rows of cell ids")
    rows = tuple(tuple(str(c) for c in r) for r in rows_in)
    missing = {c for r in rows for c in r} - set(cells)
    if missing:
        raise err(f"rows name cells with no LED: {sorted(missing)}")
    used: dict[int, str] = {}
    owners = [(i, f"cells.{c}") for c, v in cells.items() for i in v]
    owners += [(i, f"seats[{k}]") for k, i in enumerate(seats)]
    owners += [(i, f"status.{k}") for k, i in status.items()]
    for idx, owner in owners:
        if idx in used:
            raise err(f"LED {idx} is used twice: {used[idx]} and {owner}")
        used[idx] = owner
    return Layout(game, count, cells, seats, status, rows, float(brightness), colors, seat_colors,
                  {k: float(v) for k, v in timing.items()}, source)


def load_layout(path: str | Path) -> Layout:
    p = Path(path)
    try:
        text = jsontext.read_text(p)
    except OSError as exc:
        raise LayoutError(f"cannot read layout file {p}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise LayoutError(f"{p}: {exc.msg}") from None
    try:
        data = jsontext.loads(text)
    except json.JSONDecodeError as exc:
        raise LayoutError(f"{p}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    return layout_from_json(data, str(p))


def bundled_layouts() -> dict[str, Path]:
    return {p.stem: p for p in sorted(LAYOUT_DIR.glob("*.json"))}


def find_layout(spec: str) -> Layout:
    """`spec` is a layout file path or the name of a game with a bundled layout."""
    bundled = bundled_layouts()
    if spec in bundled:
        return load_layout(bundled[spec])
    if spec.endswith(".json") or Path(spec).exists():
        return load_layout(spec)
    raise LayoutError(f"no layout {spec!r}: give a layout file or one of the bundled games "
                      f"({', '.join(bundled) or 'none'})")


CELL_ID = re.compile(r"[A-Za-z0-9_.:+-]{1,24}")


def serpentine_layout(game: str, rows: Sequence[Sequence[str]], seats: int = 2,
                      status: Sequence[str] = STATUS_LIGHTS, *, serpentine: bool = True,
                      brightness: float = 0.4) -> Layout:
    """A layout for one LED per cell on a strip laid row by row under the board, reversing direction
    every other row (serpentine) so the strip needs no long return wires; the seat LEDs and then the
    status lights follow the board on the same strip."""
    if not rows or not all(rows):
        raise LayoutError("serpentine layout: give at least one non-empty row of cell ids")
    cells: dict[str, tuple[int, ...]] = {}
    index = 0
    for r, row in enumerate(rows):
        ordered = list(row)[::-1] if serpentine and r % 2 else list(row)
        for cell in ordered:
            if not CELL_ID.fullmatch(cell):  # a rows file that is not one (JSON, binary) says so
                raise LayoutError(f"serpentine layout: {cell[:40]!r} in row {r + 1} is not a cell id "
                                  "(letters, digits and - _ . : +, e.g. a1 or W07)")
            if cell in cells:
                raise LayoutError(f"serpentine layout: cell {cell!r} appears twice")
            cells[cell] = (index,)
            index += 1
    seat_leds = tuple(range(index, index + seats))
    index += seats
    bad = set(status) - set(STATUS_LIGHTS)
    if bad:
        raise LayoutError(f"serpentine layout: unknown status lights {sorted(bad)}")
    status_leds = {name: index + k for k, name in enumerate(status)}
    index += len(status)
    return Layout(game, index, cells, seat_leds, status_leds, tuple(tuple(r) for r in rows), brightness)


def rows_from_positions(points: Sequence[tuple[str, float, float]], tolerance: float) -> list[list[str]]:
    """Rows of cell ids from cell centres (id, x, y), y growing downwards: a cell joins the current
    row while its y is within `tolerance` of the row's first cell; each row is sorted by x. For
    boards that are not a plain grid (the dice road), so the strip can still run row by row."""
    rows: list[list[tuple[float, str]]] = []
    row_y = None
    for cid, x, y in sorted(points, key=lambda p: (p[2], p[1])):
        if row_y is None or y - row_y > tolerance:
            rows.append([])
            row_y = y
        rows[-1].append((x, cid))
    return [[cid for _, cid in sorted(r)] for r in rows]


def rows_from_board_file(path: str | Path) -> list[list[str]]:
    """Rows from a board file with a "cells" list of {"id", "x", "y"} (optional "w", "h": the
    position is then the top-left corner) in any unit, e.g. engine/dice_road/boards/default.json."""
    p = Path(path)
    try:
        data = jsontext.load_file(p)
    except OSError as exc:
        raise LayoutError(f"cannot read board file {p}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise LayoutError(f"{p}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list) or not cells:
        raise LayoutError(f"{p}: expected a \"cells\" list of {{\"id\", \"x\", \"y\"}}")
    points: list[tuple[str, float, float]] = []
    sizes: list[float] = []
    for k, c in enumerate(cells):
        try:
            w, h = float(c.get("w", 0)), float(c.get("h", 0))
            points.append((str(c["id"]), float(c["x"]) + w / 2, float(c["y"]) + h / 2))
        except (KeyError, TypeError, ValueError, AttributeError):
            raise LayoutError(f"{p}: cells[{k}] needs \"id\", \"x\" and \"y\" numbers, got {c!r}") from None
        if h:
            sizes.append(h)
    pitch = data.get("pitch")
    size = float(pitch) if isinstance(pitch, int | float) else (min(sizes) if sizes else 1.0)
    return rows_from_positions(points, size / 2)


def rows_from_cells(cells: Sequence[str], width: int) -> list[list[str]]:
    """Split an ordered cell list (row after row) into rows of `width`."""
    if width < 1 or len(cells) % width:
        raise LayoutError(f"{len(cells)} cells do not split into rows of {width}")
    return [list(cells[i:i + width]) for i in range(0, len(cells), width)]
