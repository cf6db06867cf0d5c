"""The one JSON body parser every route uses, and the typed field readers that go with it.

Every way a body can fail (not UTF-8, not JSON, nested too deep for the parser, a number with too
many digits to convert, not an object, a field of the wrong type) becomes a 400 with a message
that says what to send instead, never a 500. So do values strict JSON has no room for, which Python's
parser takes and code behind it trips on: NaN and Infinity, a number beyond what a float holds
(1e400, a 400-digit integer: `math.isfinite` raises on it), and a string holding a lone UTF-16
surrogate ("\\ud800": it cannot be written to a log as UTF-8).
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 32  # the deepest body any route needs is 3; the parser itself recurses per level
MAX_INT = 2**53  # every integer a route takes is far below; a double holds each one exactly


class BodyError(Exception):
    """A request body that cannot be used; `status` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def parse_json_object(data: bytes) -> dict[str, Any]:
    """A request body -> a JSON object ({} for an empty body)."""
    if not data or not data.strip():
        return {}
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BodyError(f"the request body is not UTF-8 (byte {exc.start + 1})") from None
    if _too_deep(text):
        raise BodyError(f"the request body is nested more than {MAX_DEPTH} levels deep") from None
    try:
        value = json.loads(text, parse_constant=_constant, parse_int=_int, parse_float=_float)
    except json.JSONDecodeError as exc:
        raise BodyError(f"the request body is not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise BodyError("the request body is nested too deep to read") from None
    except ValueError as exc:  # an integer of thousands of digits (int max str digits)
        raise BodyError(f"the request body has a number that cannot be read: {exc}") from None
    if not isinstance(value, dict):
        raise BodyError("the request body must be a JSON object")
    _check_text(value)
    return value


def _constant(name: str) -> Any:
    raise BodyError(f"the request body has {name}, which is not a JSON number: send a finite number")


def _int(text: str) -> int:
    # long digit strings are refused before int() (which raises past 4,300 digits)
    value = int(text) if len(text) <= 20 else MAX_INT + 1
    if abs(value) > MAX_INT:
        raise BodyError(f"the request body has a number that cannot be read: {text[:24]}... is "
                        "larger than 2^53")
    return value


def _float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise BodyError(f"the request body has a number that cannot be read: {text[:24]} is beyond "
                        "what a float holds")
    return value


def _check_text(value: Any) -> None:
    """Every string and key encodes as UTF-8 (a JSON escape may name a lone surrogate)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise BodyError(f"the request body has a string with a lone UTF-16 surrogate "
                                f"({item[exc.start]!a}): not text") from None


def _too_deep(text: str) -> bool:
    """Brackets nested deeper than MAX_DEPTH outside strings (checked before parsing, so a
    30,000-deep body costs one pass instead of a recursion)."""
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def text_field(data: dict[str, Any], name: str, what: str, *, max_len: int = 500,
               required: bool = True) -> str | None:
    """data[name] as a non-empty string of at most max_len characters (None when optional and absent)."""
    value = data.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > max_len:
        raise BodyError(f"give {what} as '{name}' (a string of 1-{max_len} characters)")
    return value


def int_field(data: dict[str, Any], name: str, what: str) -> int | None:
    """data[name] as an integer (booleans are not integers here), or None when absent."""
    value = data.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > 2**53:
        raise BodyError(f"'{name}' must be {what} (an integer)")
    return value
