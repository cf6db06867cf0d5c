"""Cells of a CSV export that a spreadsheet will not run.

A log holds text people typed (player names, a correction's reason, an end's reason). Opened in a
spreadsheet, a cell that begins with ``=``, ``+``, ``-``, ``@`` or a tab/carriage return is read as a
formula; such a text cell gets a leading apostrophe, which spreadsheets show as plain text. Numbers
stay numbers (a negative confidence or seq never occurs, but a number is never a formula anyway).
"""
from __future__ import annotations

from typing import Any

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: Any) -> Any:
    """``value`` unchanged unless it is text a spreadsheet would take for a formula."""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def safe_row(values: list[Any]) -> list[Any]:
    return [safe_cell(v) for v in values]
