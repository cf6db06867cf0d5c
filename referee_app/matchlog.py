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
    torn: bool = False  # a line cut by a crash mid-write: never acknowledged, so nothing was lost

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


RESUMED = "log-resumed"  # the event kind a writer logs when it continues after a torn line


def parse_line(line: bytes) -> tuple[Any, str | None]:
    """One log line -> (JSON value, None) or (None, why it cannot be read). Never raises: bad
    UTF-8, bad JSON, nesting too deep for the parser and numbers too long to convert all become
    a reason naming the column."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"not valid UTF-8 (byte 0x{line[exc.start]:02x} at column {exc.start + 1})"
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg} at column {exc.colno})"
    except RecursionError:
        return None, "not readable JSON (nested too deep)"
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        return None, f"not readable JSON ({exc})"


def read_log(path: Path | str, strict: bool = False) -> MatchLogContents:
    """Read a log. Bad lines become `problems` (or raise at the first one with strict=True) and
    every intact record is kept; a bad or missing header always raises, since nothing can be
    replayed without it. A line cut by a crash (the unterminated last line, or one a later writer
    marked with a `log-resumed` event) is a problem with `torn=True`."""
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
    first, err = parse_line(lines[0])
    if err is not None:
        raise MatchLogError(f"the header is {err}", path, 1)
    header = Header.from_json(first, path)
    records: list[dict[str, Any]] = []
    record_lines: list[int] = []
    problems: list[LogProblem] = []
    last_seq = 0
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        rec, err = parse_line(line)
        if err is None:
            err = _validate_record(rec)
        if err is None and rec["seq"] <= last_seq:
            err = f"seq {rec['seq']} does not follow seq {last_seq}"
        if err is not None:
            torn = number == len(lines) and not ends_clean
            if torn:
                err = f"truncated record (the writer stopped mid-line: {err})"
            if strict:
                raise MatchLogError(err, path, number)
            problems.append(LogProblem(number, err, torn))
            continue
        last_seq = rec["seq"]
        records.append(rec)
        record_lines.append(number)
        if rec["type"] == "event" and rec.get("kind") == RESUMED:
            _mark_torn(problems, rec.get("torn_line"))
    return MatchLogContents(path, header, records, problems, record_lines)


def _mark_torn(problems: list[LogProblem], line: Any) -> None:
    """A writer that continued a log said `line` was cut by a crash: it is torn, not damaged."""
    for problem in problems:
        if problem.line == line and not problem.torn:
            problem.torn = True
            problem.message = f"truncated record (cut by a crash; the writer continued after it: " \
                              f"{problem.message})"


class MatchLogWriter:
    """Appends records durably. Create a new log with `create`, continue one with `open`."""

    def __init__(self, path: Path, header: Header, next_seq: int, actions: int = 0) -> None:
        self.path = path
        self.header = header
        self._next_seq = next_seq
        self.actions = actions  # action records in the log, withdrawn ones included (the index's count)
        self._pending_newline = False  # the last line is unterminated: closed at the first append
        self._torn_line: int | None = None  # ... and unreadable: marked then (not before: reads never write)
        self._fh = open(path, "ab")  # noqa: SIM115 - held open for the match; opening writes nothing

    @classmethod
    def create(cls, path: Path | str, header: Header) -> MatchLogWriter:
        path = Path(path)
        try:  # a header that cannot be written creates no file
            line = _line(header.to_json())
        except (UnicodeEncodeError, ValueError) as exc:
            raise MatchLogError(f"the header cannot be written: {exc}", path) from None
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            raise MatchLogError("a match log already exists here; refusing to overwrite it", path) from None
        with os.fdopen(fd, "wb") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())
        _fsync_dir(path.parent)
        return cls(path, header, 1)

    @classmethod
    def open(cls, path: Path | str) -> MatchLogWriter:
        """Continue an existing log. Opening writes nothing (a reader may open one just to look).
        A partial last line (from a crash) is left as it is; the first append closes it with a
        newline and logs a `log-resumed` event naming it, so readers know it was torn, not damaged."""
        contents = read_log(path)
        last = max((r["seq"] for r in contents.records), default=0)
        actions = sum(1 for r in contents.records if r["type"] == "action")
        raw = contents.path.read_bytes()
        writer = cls(contents.path, contents.header, last + 1, actions)
        if not raw.endswith(b"\n"):
            last_line = raw.count(b"\n") + 1
            writer._pending_newline = True
            if any(p.line == last_line for p in contents.problems):
                writer._torn_line = last_line
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
        if self._pending_newline:
            self._resume_after_unterminated_line()
            rec["seq"] = self._next_seq
        self._write(_line(rec))
        self._next_seq += 1
        if rec["type"] == "action":
            self.actions += 1
        return rec["seq"]

    def _resume_after_unterminated_line(self) -> None:
        """Close the unterminated last line; when it was unreadable, say so in a marker event."""
        line, self._torn_line, self._pending_newline = self._torn_line, None, False
        if line is None:  # a whole record that only lacked its newline
            self._write(b"\n")
            return
        marker = {"type": "event", "seq": self._next_seq, "t": now_iso(), "kind": RESUMED, "torn_line": line,
                  "message": f"line {line} was cut by a crash; the log continues after it"}
        self._write(b"\n" + _line(marker))
        self._next_seq += 1

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
