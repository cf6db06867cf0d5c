"""JSON from files and text a user gives, failing only with json.JSONDecodeError.

`json.loads` also raises RecursionError (brackets nested some thousands deep), ValueError (an
integer of more than 4,300 digits) and, for a file, reading it raises UnicodeDecodeError (bytes
that are not UTF-8). Callers already turn a JSONDecodeError into a sentence naming the file, so
each of these becomes one, with a message that says what is wrong, instead of a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def loads(text: str) -> Any:
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("nested too deep to read", text, 0) from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # int max str digits
        reason = str(exc).split(";")[0]
        raise json.JSONDecodeError(f"a number has more digits than can be read ({reason})", text, 0) from None


def read_text(path: str | Path) -> str:
    """A file's text as UTF-8; OSError as open() raises it, JSONDecodeError for bytes that are not UTF-8."""
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        doc = data.decode("utf-8", "replace")
        raise json.JSONDecodeError(f"not UTF-8 text (byte {exc.start + 1})",
                                   doc, min(exc.start, len(doc))) from None


def load_file(path: str | Path) -> Any:
    """`loads(read_text(path))`."""
    return loads(read_text(path))
