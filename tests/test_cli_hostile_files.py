"""Every command that reads a JSON (or text) file the user names, given one that is not UTF-8,
nested some thousands deep, or holding a number of thousands of digits: a one-line error and a
non-zero exit, never a traceback, and nothing written (audit23). Each of these raised
UnicodeDecodeError, RecursionError or ValueError out of the CLI on main."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee_app.cli import main

BAD_FILES = {
    "not-utf8.json": b'{"format": "\xff\xfe"}\n',
    "deep.json": b"[" * 100_000 + b"]" * 100_000,
    "long-number.json": b'{"format": 1' + b"0" * 5000 + b"}",
}
COMMANDS = [
    ["dice", "show", "{F}"],
    ["dice", "board", "--board", "{F}"],
    ["dice", "legal", "new", "--board", "{F}", "--roll", "3", "5"],
    ["tokyo", "judge", "{F}"],
    ["tokyo", "state", "{F}"],
    ["tokyo", "draw", "{F}", "--svg", "{OUT}/x.svg"],
    ["railroad-ink", "score", "{F}"],
    ["railroad-ink", "render", "{F}", "--svg", "{OUT}/x.svg"],
    ["led", "layout", "--game", "highway-dice", "--board-json", "{F}", "-o", "{OUT}/l.json"],
    ["led", "layout", "--game", "highway-grid", "--rows-file", "{F}", "-o", "{OUT}/l.json"],
    ["grid", "show", "{F}"],
]


@pytest.mark.parametrize("name", list(BAD_FILES))
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]) + (" " + c[2] if c[0] == "led" else ""))
def test_a_file_that_cannot_be_read_is_one_error_line(tmp_path: Path, capsys, command, name):
    bad = tmp_path / name
    bad.write_bytes(BAD_FILES[name])
    out = tmp_path / "out"
    out.mkdir()
    argv = [w.replace("{F}", str(bad)).replace("{OUT}", str(out)) for w in command]
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code != 0
    assert len(err) == 1 and err[0].startswith("highway-referee: error:"), err[-3:]
    assert list(out.iterdir()) == []


def test_a_tokyo_reading_that_cannot_be_read_is_one_error_line(tmp_path: Path, capsys):
    plan = tmp_path / "plan.json"
    plan.write_text('{"players": 2, "actions": []}', encoding="utf-8")
    for name, data in BAD_FILES.items():
        reading = tmp_path / name
        reading.write_bytes(data)
        assert main(["tokyo", "match", str(plan), str(reading)]) != 0
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("highway-referee: error:"), err[-3:]


def test_a_rows_file_that_is_not_rows_of_cell_ids_is_refused(tmp_path: Path, capsys):
    """main wrote a layout from a JSON file's words ('{"format":' became a cell)."""
    rows = tmp_path / "board.json"
    rows.write_text('{"format": "highway-dice-board", "cells": []}\n', encoding="utf-8")
    out = tmp_path / "l.json"
    assert main(["led", "layout", "--game", "highway-grid", "--rows-file", str(rows), "-o", str(out)]) == 2
    assert "is not a cell id" in capsys.readouterr().err and not out.exists()
