"""Checks on the files commands are given, so a wrong kind of file gets a sentence that says what it
is and what to run instead, rather than a JSON parser's complaint.

No `register` here: this module adds no command.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine import jsontext
from referee_app.cli import CliError


def match_log_header(path: Path) -> dict[str, Any] | None:
    """The header record when `path` is a match log (JSON lines, first a header), else None."""
    try:
        with path.open("r", encoding="utf-8", errors="replace") as fh:
            first = fh.readline(1 << 16)
    except OSError:
        return None
    try:
        data = jsontext.loads(first)
    except json.JSONDecodeError:
        return None
    if isinstance(data, dict) and data.get("type") == "header" and "game" in data:
        return data
    return None


def refuse_match_log(path: Path, expected: str, instead: str) -> None:
    """Raise a CLI error when `path` is a match log where `expected` (e.g. "a position file") was
    wanted; `instead` says which command reads what the user most likely meant."""
    header = match_log_header(path)
    if header is None:
        return
    raise CliError(f"{path} is a match log ({header.get('game')} match {header.get('match_id', '?')}), "
                   f"not {expected}. {instead}", 2)


def missing_file(text: str) -> CliError | None:
    """An error for a command-line word that names a file (it has a folder or an extension such as
    .json / .jsonl) that does not exist; None when the word may be something else."""
    path = Path(text)
    try:
        if path.exists() or " " in text.strip():
            return None
    except OSError:  # a name too long for the file system (a position's text, say): not a file
        return None
    if "/" in text or "\\" in text or (path.suffix[1:].isalpha() and len(path.suffix) > 2):
        return CliError(f"{text}: no such file", 2)
    return None
