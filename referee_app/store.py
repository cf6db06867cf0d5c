"""A folder of match logs with a SQLite index: `<data>/matches/<match_id>.jsonl` + `<data>/index.sqlite`.

The logs are the truth; the index is a cache for listing matches quickly and can always be rebuilt
from them (`reindex`). A log whose header cannot be read is indexed with status "corrupt" and kept:
the store never deletes or rewrites a log. Match ids are checked against a strict pattern before
they become file names, so no id from a web request can reach outside the folder.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee_app.matchlog import Header, MatchLogError, MatchLogWriter, now_iso, read_log

MATCH_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
INDEX_VERSION = 1
STATUSES = ("playing", "finished", "damaged", "corrupt")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    match_id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    players TEXT NOT NULL,      -- JSON list of names
    variant TEXT NOT NULL,      -- JSON object
    started TEXT NOT NULL,
    path TEXT NOT NULL,         -- relative to the data folder
    status TEXT NOT NULL,       -- playing | finished | damaged | corrupt
    actions INTEGER NOT NULL,   -- number of action records in the log
    outcome TEXT,               -- JSON of the end record's outcome, or NULL
    problem TEXT NOT NULL DEFAULT '',
    updated TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS matches_started ON matches (started);
"""


def default_data_dir() -> Path:
    """$HIGHWAY_REFEREE_DATA, else $XDG_DATA_HOME/highway-referee, else ~/.local/share/highway-referee."""
    explicit = os.environ.get("HIGHWAY_REFEREE_DATA")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "share"
    return base / "highway-referee"


def check_match_id(match_id: str) -> str:
    if not isinstance(match_id, str) or not MATCH_ID.fullmatch(match_id):  # fullmatch: no trailing \n
        raise MatchLogError(f"invalid match id {match_id!r}: use 1-64 letters, digits, '-' or '_', "
                            "starting with a letter or digit")
    return match_id


@dataclass(frozen=True)
class MatchInfo:
    match_id: str
    game: str
    players: list[str]
    variant: dict[str, Any]
    started: str
    path: Path
    status: str
    actions: int
    outcome: dict[str, Any] | None
    updated: str
    problem: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "match_id": self.match_id, "game": self.game, "players": self.players, "variant": self.variant,
            "started": self.started, "path": str(self.path), "status": self.status, "actions": self.actions,
            "outcome": self.outcome, "updated": self.updated, "problem": self.problem,
        }


class MatchStore:
    def __init__(self, data_dir: Path | str | None = None) -> None:
        self.data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
        self.matches_dir = self.data_dir / "matches"
        self.index_path = self.data_dir / "index.sqlite"
        try:
            self.matches_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise MatchLogError(f"cannot create the data folder: {exc.strerror}", self.data_dir) from exc
        with self._db() as db:
            db.executescript(_SCHEMA)
            db.execute(f"PRAGMA user_version = {INDEX_VERSION}")

    # -- paths ----------------------------------------------------------------------------
    def path(self, match_id: str) -> Path:
        """The log file of `match_id` (which is validated; the file need not exist)."""
        return self.matches_dir / f"{check_match_id(match_id)}.jsonl"

    # -- writing ----------------------------------------------------------------------------
    def create(self, game: str, players: list[str], variant: dict[str, Any] | None = None,
               initial_state: dict[str, Any] | None = None, match_id: str | None = None,
               extra: dict[str, Any] | None = None) -> MatchLogWriter:
        header = Header(game=game, players=list(players), variant=dict(variant or {}),
                        initial_state=initial_state, extra=dict(extra or {}))
        if match_id is not None:
            header.match_id = match_id
        writer = MatchLogWriter.create(self.path(header.match_id), header)
        self._upsert(self._info_from_header(header, writer.path, "playing", 0, None, ""))
        return writer

    def open_writer(self, match_id: str) -> MatchLogWriter:
        """Continue a match's log (appending; nothing already written is touched)."""
        return MatchLogWriter.open(self.path(match_id))

    def update(self, match_id: str, *, status: str | None = None, actions: int | None = None,
               outcome: dict[str, Any] | None = None) -> MatchInfo:
        """Refresh a match's index row from its log; the given fields override what the log says
        (the web app passes them after each action to avoid re-reading the log)."""
        if status is not None and status not in STATUSES:
            raise MatchLogError(f"unknown match status {status!r} (known: {', '.join(STATUSES)})")
        if status is None and actions is None and outcome is None:
            info = self._info_from_log(self.path(match_id))
        else:
            current = self.get(match_id)
            info = MatchInfo(
                current.match_id, current.game, current.players, current.variant, current.started,
                current.path, status or current.status, current.actions if actions is None else actions,
                current.outcome if outcome is None else outcome, now_iso(), current.problem,
            )
        self._upsert(info)
        return info

    # -- reading ----------------------------------------------------------------------------
    def get(self, match_id: str) -> MatchInfo:
        check_match_id(match_id)
        with self._db() as db:
            row = db.execute("SELECT * FROM matches WHERE match_id = ?", (match_id,)).fetchone()
        if row is None:
            path = self.path(match_id)
            if not path.exists():
                raise MatchLogError(f"no match {match_id!r} in this store", self.data_dir)
            info = self._info_from_log(path)  # a log copied in by hand: index it now
            self._upsert(info)
            return info
        return self._row_info(row)

    def list(self, game: str | None = None) -> list[MatchInfo]:
        """Indexed matches, newest first."""
        with self._db() as db:
            if game:
                rows = db.execute("SELECT * FROM matches WHERE game = ? ORDER BY started DESC, match_id",
                                  (game,)).fetchall()
            else:
                rows = db.execute("SELECT * FROM matches ORDER BY started DESC, match_id").fetchall()
        return [self._row_info(r) for r in rows]

    def reindex(self) -> list[MatchInfo]:
        """Rebuild the index from the log files. Every *.jsonl file is listed; an unreadable one
        with status "corrupt" and the reason. Rows whose file has gone are removed."""
        infos = []
        for path in sorted(self.matches_dir.glob("*.jsonl")):
            infos.append(self._info_from_log(path))
        with self._db() as db:
            db.execute("DELETE FROM matches")
            for info in infos:
                db.execute(_UPSERT, _row_values(info, self.data_dir))
        return infos

    # -- internals --------------------------------------------------------------------------
    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        # One short-lived connection per operation: safe from any thread of the web server.
        try:
            db = sqlite3.connect(self.index_path, timeout=10)
        except sqlite3.Error as exc:
            raise MatchLogError(f"cannot open the match index: {exc}", self.index_path) from exc
        db.row_factory = sqlite3.Row
        try:
            with db:
                yield db
        except sqlite3.DatabaseError as exc:
            raise MatchLogError(f"the match index is unusable ({exc}); delete it and run "
                                "`highway-referee log reindex`", self.index_path) from exc
        finally:
            db.close()

    def _upsert(self, info: MatchInfo) -> None:
        with self._db() as db:
            db.execute(_UPSERT, _row_values(info, self.data_dir))

    def _row_info(self, row: sqlite3.Row) -> MatchInfo:
        return MatchInfo(
            row["match_id"], row["game"], json.loads(row["players"]), json.loads(row["variant"]),
            row["started"], self.data_dir / row["path"], row["status"], row["actions"],
            json.loads(row["outcome"]) if row["outcome"] else None, row["updated"], row["problem"],
        )

    def _info_from_header(self, header: Header, path: Path, status: str, actions: int,
                          outcome: dict[str, Any] | None, problem: str) -> MatchInfo:
        return MatchInfo(header.match_id, header.game, header.players, header.variant, header.started,
                         path, status, actions, outcome, now_iso(), problem)

    def _info_from_log(self, path: Path) -> MatchInfo:
        try:
            contents = read_log(path)
        except MatchLogError as exc:
            return MatchInfo(path.stem, "?", [], {}, "", path, "corrupt", 0, None, now_iso(), str(exc))
        actions = sum(1 for r in contents.records if r["type"] == "action")
        ends = [r for r in contents.records if r["type"] == "end"]
        outcome = ends[-1].get("outcome") if ends else None
        status = "finished" if ends else "playing"
        problem = "; ".join(str(p) for p in contents.problems[:3])
        if any(not p.torn for p in contents.problems):  # a line torn by a crash lost nothing
            status = "damaged"
        header = contents.header
        if header.match_id != path.stem:
            # The file name is the id the store serves; keep the header's id visible as a problem.
            problem = (problem + "; " if problem else "") + f"header match_id {header.match_id!r} " \
                "differs from the file name"
            header = Header(**{**header.__dict__, "match_id": path.stem})
        return self._info_from_header(header, path, status, actions, outcome, problem)


_UPSERT = """
INSERT INTO matches (match_id, game, players, variant, started, path, status, actions, outcome, problem,
                     updated)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (match_id) DO UPDATE SET game = excluded.game, players = excluded.players,
    variant = excluded.variant, started = excluded.started, path = excluded.path, status = excluded.status,
    actions = excluded.actions, outcome = excluded.outcome, problem = excluded.problem,
    updated = excluded.updated
"""


def _row_values(info: MatchInfo, data_dir: Path) -> tuple[Any, ...]:
    try:
        rel = str(info.path.relative_to(data_dir))
    except ValueError:
        rel = str(info.path)
    return (info.match_id, info.game, json.dumps(info.players), json.dumps(info.variant), info.started, rel,
            info.status, info.actions, json.dumps(info.outcome) if info.outcome is not None else None,
            info.problem, info.updated)
