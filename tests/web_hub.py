"""What the web API tests send and look at besides the `hub` fixture (tests/conftest.py)."""

from __future__ import annotations

from typing import Any

# a raw body's type, for the tests that post bytes rather than json=
JSON_BODY = {"Content-Type": "application/json"}


def auth(hub: Any) -> dict[str, str]:
    """The admin's token header."""
    return {"X-Referee-Token": hub.admin_token}


def files_and_rows(hub: Any) -> tuple[list[str], list[str]]:
    """The match store's log files and index rows: both empty where nothing was written."""
    return sorted(p.name for p in hub.store.matches_dir.glob("*")), [i.match_id for i in hub.store.list()]
