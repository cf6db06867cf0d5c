"""The match log: one JSON Lines file per match, append-only and durable.

Line 1 is a header record; every further line is one record (action, correction, event, end).
Each append is written, flushed and fsync'ed before `append` returns, so a crash loses nothing
that was acknowledged. Files are never rewritten: a reader reports a truncated or corrupt line
with its line number instead of "repairing" it. Format: docs/formats/match-log.md.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee_app import __version__

FORMAT_VERSION = 1
SOURCES = ("vision", "manual")
RECORD_TYPES = ("action", "correction", "event", "end")


class MatchLogError(Exception):
    """A log that cannot be read or written as asked. Names the file and line where it can."""

    def __init__(self, message: str, path: Path | str | None = None, line: int | None = None) -> None:
        where = ""
        if path is not None:
            where = f"{path}" + (f", line {line}" if line is not None else "") + ": "
        super().__init__(where + message)
        self.path = path
        self.line = line


def now_iso() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds")


@dataclass
class Header:
    game: str
    players: list[str]
    variant: dict[str, Any] = field(default_factory=dict)
    match_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    software: str = f"highway-referee {__version__}"
    started: str = field(default_factory=now_iso)
    initial_state: dict[str, Any] | None = None  # a set-up position; None = the game's start
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out = {
            "type": "header",
            "format": FORMAT_VERSION,
            "match_id": self.match_id,
            "game": self.game,
            "players": self.players,
            "variant": self.variant,
            "software": self.software,
            "started": self.started,
        }
        if self.initial_state is not None:
            out["initial_state"] = self.initial_state
        if self.extra:
            out["extra"] = self.extra
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any], path: Path | str | None = None) -> Header:
        if not isinstance(data, dict) or data.get("type") != "header":
            raise MatchLogError("the first line is not a match log header", path, 1)
        fmt = data.get("format")
        if not isinstance(fmt, int):
            raise MatchLogError("the header has no integer 'format'", path, 1)
        if fmt > FORMAT_VERSION:
            raise MatchLogError(
                f"log format {fmt} is newer than this software reads (format {FORMAT_VERSION}); "
                "upgrade highway-referee to read it",
                path,
                1,
            )
        try:
            return cls(
                game=str(data["game"]),
                players=[str(p) for p in data["players"]],
                variant=dict(data.get("variant") or {}),
                match_id=str(data["match_id"]),
                software=str(data.get("software", "")),
                started=str(data.get("started", "")),
                initial_state=data.get("initial_state"),
                extra=dict(data.get("extra") or {}),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise MatchLogError(f"the header is missing or has a bad field: {exc}", path, 1) from exc


@dataclass
class LogProblem:
    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass
class MatchLogContents:
    path: Path
    header: Header
    records: list[dict[str, Any]]  # every readable record after the header, in file order
    problems: list[LogProblem]  # unreadable lines (a truncated last line after a crash, corruption)
    record_lines: list[int] = field(default_factory=list)  # file line number of each record

    def line_of(self, index: int) -> int | None:
        """The file line number of records[index] (None for contents built without them)."""
        return self.record_lines[index] if index < len(self.record_lines) else None


def _validate_record(rec: Any) -> str | None:
    if not isinstance(rec, dict):
        return "a record must be a JSON object"
    kind = rec.get("type")
    if kind not in RECORD_TYPES:
        return f"unknown record type {kind!r}"
    if not isinstance(rec.get("seq"), int):
        return "the record has no integer 'seq'"
    if kind == "action":
        if not isinstance(rec.get("action"), dict):
            return "an action record needs an 'action' object"
        if rec.get("source") not in SOURCES:
            return f"source must be one of {SOURCES}, got {rec.get('source')!r}"
    if kind == "correction" and not isinstance(rec.get("target"), int):
        return "a correction needs the integer 'target' seq it withdraws"
    return None


def read_log(path: Path | str, strict: bool = False) -> MatchLogContents:
    """Read a log. Bad lines become `problems` (or raise at the first one with strict=True);
    a bad or missing header always raises, since nothing can be replayed without it."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise MatchLogError("no such match log", path) from None
    except OSError as exc:
        raise MatchLogError(f"cannot read: {exc.strerror}", path) from exc
    if not raw.strip():
        raise MatchLogError("the log is empty (no header)", path)
    lines = raw.split(b"\n")
    ends_clean = raw.endswith(b"\n")
    if ends_clean:
        lines = lines[:-1]
    try:
        header = Header.from_json(json.loads(lines[0]), path)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise MatchLogError(f"the header is not valid JSON: {exc}", path, 1) from exc
    records: list[dict[str, Any]] = []
    record_lines: list[int] = []
    problems: list[LogProblem] = []
    last_seq = 0
    for number, line in enumerate(lines[1:], start=2):
        truncated = number == len(lines) and not ends_clean
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            err = _validate_record(rec)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            err = ("truncated record (the writer stopped mid-line)" if truncated
                   else f"not valid JSON ({exc.msg} at column {exc.colno})")
        if err is None and rec["seq"] <= last_seq:
            err = f"seq {rec['seq']} does not follow seq {last_seq}"
        if err is not None:
            if strict:
                raise MatchLogError(err, path, number)
            problems.append(LogProblem(number, err))
            continue
        last_seq = rec["seq"]
        records.append(rec)
        record_lines.append(number)
    return MatchLogContents(path, header, records, problems, record_lines)


class MatchLogWriter:
    """Appends records durably. Create a new log with `create`, continue one with `open`."""

    def __init__(self, path: Path, header: Header, next_seq: int) -> None:
        self.path = path
        self.header = header
        self._next_seq = next_seq
        self._fh = open(path, "ab")  # noqa: SIM115 - held open for the match

    @classmethod
    def create(cls, path: Path | str, header: Header) -> MatchLogWriter:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            raise MatchLogError("a match log already exists here; refusing to overwrite it", path) from None
        with os.fdopen(fd, "wb") as fh:
            fh.write(_line(header.to_json()))
            fh.flush()
            os.fsync(fh.fileno())
        _fsync_dir(path.parent)
        return cls(path, header, 1)

    @classmethod
    def open(cls, path: Path | str) -> MatchLogWriter:
        """Continue an existing log. A partial last line (from a crash) is left as it is and
        closed with a newline, so the new records start on a line of their own."""
        contents = read_log(path)
        last = max((r["seq"] for r in contents.records), default=0)
        writer = cls(contents.path, contents.header, last + 1)
        if contents.path.stat().st_size and not contents.path.read_bytes().endswith(b"\n"):
            writer._write(b"\n")
        return writer

    @property
    def next_seq(self) -> int:
        return self._next_seq

    def append(self, record: dict[str, Any]) -> int:
        """Write one record (its `seq` and time are filled in) and return its seq once durable."""
        rec = dict(record)
        rec["seq"] = self._next_seq
        rec.setdefault("t", now_iso())
        err = _validate_record(rec)
        if err is not None:
            raise MatchLogError(f"refusing to write a bad record: {err}", self.path)
        self._write(_line(rec))
        self._next_seq += 1
        return rec["seq"]

    def action(
        self,
        action: dict[str, Any],
        notation: str,
        verdict: dict[str, Any],
        source: str,
        confidence: float = 1.0,
        frame: str | int | None = None,
        corrects: int | None = None,
        **extra: Any,
    ) -> int:
        rec: dict[str, Any] = {
            "type": "action",
            "action": action,
            "notation": notation,
            "verdict": verdict,
            "source": source,
            "confidence": round(float(confidence), 4),
        }
        if frame is not None:
            rec["frame"] = frame
        if corrects is not None:
            rec["corrects"] = corrects
        rec.update(extra)
        return self.append(rec)

    def correction(self, target: int, source: str = "manual", reason: str = "", **extra: Any) -> int:
        return self.append({"type": "correction", "target": target, "source": source, "reason": reason,
                            **extra})

    def event(self, kind: str, message: str, **data: Any) -> int:
        return self.append({"type": "event", "kind": kind, "message": message, **data})

    def end(self, outcome: dict[str, Any] | None, reason: str = "", **extra: Any) -> int:
        return self.append({"type": "end", "outcome": outcome, "reason": reason, **extra})

    def _write(self, data: bytes) -> None:
        try:
            self._fh.write(data)
            self._fh.flush()
            os.fsync(self._fh.fileno())
        except OSError as exc:
            raise MatchLogError(f"cannot write: {exc.strerror}", self.path) from exc

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()

    def __enter__(self) -> MatchLogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _line(record: dict[str, Any]) -> bytes:
    return (json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8")


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def effective_actions(records: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Action records still in force after corrections (a correction withdraws its target)."""
    withdrawn = {r["target"] for r in records if r["type"] == "correction"}
    for rec in records:
        if rec["type"] == "action" and rec["seq"] not in withdrawn:
            yield rec
