"""`highway-referee log replay|export|list|reindex`: verify, convert and index match logs.

Exit statuses of `log replay`: 0 every verdict reproduces (a line torn by a crash is listed, but it
held nothing acknowledged); 1 some record disagrees with the engine or some line is damaged (each
listed with its line number); 2 the log cannot be read at all
(missing, no header, newer format, unknown game). No command here ever writes to a log.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from referee_app.cli import CliError, CommandTree
from referee_app.csv_cells import safe_cell
from referee_app.matchlog import MatchLogContents, MatchLogError, read_log
from referee_app.naming import match_namer
from referee_app.replay import ReplayError, ReplayReport, format_report, replay
from referee_app.store import MatchStore

CSV_FIELDS = ["seq", "line", "type", "t", "player", "notation", "legal", "rule", "consequence", "reason",
              "source", "confidence", "frame", "target", "corrects", "message", "seat"]


def load_report(path: str) -> ReplayReport:
    """Replay a log for a command, turning every failure into a clear CLI error (exit 2)."""
    try:
        return replay(Path(path))
    except ReplayError as exc:
        raise CliError(str(exc), 2) from None


def load_contents(path: str) -> MatchLogContents:
    try:
        return read_log(Path(path))
    except MatchLogError as exc:
        raise CliError(str(exc), 2) from None


# -- replay ---------------------------------------------------------------------------------
def _setup_replay(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="a match log (.jsonl)")
    p.add_argument("--json", action="store_true", help="print the full report as JSON")


def _run_replay(args: argparse.Namespace) -> int:
    report = load_report(args.file)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(format_report(report))
    return 0 if report.ok else 1


# -- export ---------------------------------------------------------------------------------
def _setup_export(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="a match log (.jsonl)")
    p.add_argument("--format", choices=["json", "csv", "text"], default="text")
    p.add_argument("--out", metavar="FILE", help="write here instead of stdout (never the log itself)")


def _player_name(players: list[str], seat: Any) -> Any:
    """A seat index as the player's name (the log's header lists them); other values unchanged."""
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(players):
        return players[seat]
    return seat


def _rows(contents: MatchLogContents) -> list[dict[str, Any]]:
    players = list(contents.header.players)
    named = match_namer(contents.header.game, players, contents.header.variant)  # as `player` is
    rows = []
    for index, rec in enumerate(contents.records):
        verdict = rec.get("verdict") if isinstance(rec.get("verdict"), dict) else {}
        end_outcome = json.dumps(rec.get("outcome")) if rec["type"] == "end" else ""
        row = {name: rec.get(name, "") for name in ("seq", "type", "t", "player", "notation", "source",
                                                    "confidence", "frame", "target", "corrects")}
        row.update({
            "line": contents.line_of(index), "legal": verdict.get("legal", ""),
            "rule": verdict.get("rule", ""),
            "consequence": verdict.get("consequence", ""),
            # a verdict's or an outcome's words name seats; a correction's reason is the user's own
            "reason": named(str(verdict.get("reason", rec.get("reason", ""))))
            if verdict or rec["type"] == "end" else rec.get("reason", ""),
            "message": rec.get("message", "") or end_outcome,
            "player": _player_name(players, rec.get("player", "")), "seat": rec.get("player", ""),
        })
        rows.append(row)
    return rows


def export_text(contents: MatchLogContents, fmt: str) -> str:
    h = contents.header
    if fmt == "json":
        return json.dumps({"header": h.to_json(), "records": contents.records,
                           "problems": [{"line": p.line, "message": p.message} for p in contents.problems]},
                          indent=2, ensure_ascii=False) + "\n"
    rows = _rows(contents)
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.DictWriter(buf, CSV_FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: safe_cell(v) for k, v in row.items()} for row in rows)
        return buf.getvalue()
    out = [f"match {h.match_id}: {h.game}, {', '.join(h.players)}, started {h.started} ({h.software})"]
    if h.variant:
        out.append("variant: " + ", ".join(f"{k}={v}" for k, v in h.variant.items()))
    for r in rows:
        if r["type"] == "action":
            ruling = "legal" if r["legal"] else "ILLEGAL"
            who = str(r["player"]) if isinstance(r["seat"], int) else ""
            fix = f" (replaces seq {r['corrects']})" if r["corrects"] != "" else ""
            out.append(f"{r['seq']:>4} {who:<10} {r['notation']:<10} {ruling:<7} {r['rule']:<22} "
                       f"{r['source']} {r['confidence']}{fix}: {r['reason']}")
        elif r["type"] == "correction":
            out.append(f"{r['seq']:>4}     correction: withdraws seq {r['target']} ({r['source']}): "
                       f"{r['reason']}")
        elif r["type"] == "end":
            out.append(f"{r['seq']:>4}     end: {r['reason']}")
        else:
            out.append(f"{r['seq']:>4}     event: {r['message']}")
    for p in contents.problems:
        out.append(f"   !     {p}")
    return "\n".join(out) + "\n"


def _run_export(args: argparse.Namespace) -> int:
    contents = load_contents(args.file)
    text = export_text(contents, args.format)
    if args.out:
        out = Path(args.out)
        if out.exists() and out.resolve() == Path(args.file).resolve():
            raise CliError(f"--out {args.out} is the log itself; choose another file", 2)
        _write_atomic(out, text)
    else:
        sys.stdout.write(text)
    for p in contents.problems:
        print(f"highway-referee: warning: {contents.path}, {p}", file=sys.stderr)
    return 1 if contents.problems else 0


def _write_atomic(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except OSError as exc:
        raise CliError(f"cannot write {path}: {exc.strerror}", 2) from None


# -- list / reindex -------------------------------------------------------------------------
def _setup_data(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", metavar="DIR", help="data folder (default: $HIGHWAY_REFEREE_DATA or the "
                   "user data dir)")
    p.add_argument("--json", action="store_true")


def _store(args: argparse.Namespace) -> MatchStore:
    # a folder named on the command line must be there: a mistyped --data made an empty one and
    # answered "0 match logs" (the default folder may be missing: nothing was played yet)
    if args.data and not Path(args.data).is_dir():
        what = "is a file, not a data folder" if Path(args.data).exists() else "no such data folder"
        raise CliError(f"{args.data}: {what} (the folder `serve --data` or `play --data` wrote)", 2)
    try:
        return MatchStore(args.data)
    except MatchLogError as exc:
        raise CliError(str(exc), 2) from None


def _print_infos(infos: list[Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps([i.to_json() for i in infos], indent=2))
        return
    for i in infos:
        result = ""
        if i.outcome:
            result = "draw" if i.outcome.get("draw") else \
                "won by " + ", ".join(i.players[w] if w < len(i.players) else str(w)
                                      for w in i.outcome.get("winners", []))
        line = f"{i.match_id:<14} {i.game:<15} {i.status:<8} {i.actions:>4} actions  {i.started[:19]:<19}  " \
               f"{', '.join(i.players)}"
        print(line + (f"  ({result})" if result else "") + (f"  [{i.problem}]" if i.problem else ""))


def _run_list(args: argparse.Namespace) -> int:
    try:
        infos = _store(args).list()
    except MatchLogError as exc:
        raise CliError(str(exc), 2) from None
    _print_infos(infos, args.json)
    return 0


def _run_reindex(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        infos = store.reindex()
    except MatchLogError as exc:
        raise CliError(str(exc), 2) from None
    _print_infos(infos, args.json)
    bad = [i for i in infos if i.status in ("corrupt", "damaged")]
    if not args.json:
        print(f"{len(infos)} match logs indexed in {store.index_path}"
              + (f"; {len(bad)} damaged or corrupt" if bad else ""))
    return 0


def register(cli: CommandTree) -> None:
    cli.group(("log",), help="verify, export and index match logs")
    cli.add(("log", "replay"), _setup_replay, _run_replay,
            help="re-judge every action of a log; exit 1 and list the records that disagree")
    cli.add(("log", "export"), _setup_export, _run_export, help="export a log as json, csv or text")
    cli.add(("log", "list"), _setup_data, _run_list, help="list the matches in the data folder")
    cli.add(("log", "reindex"), _setup_data, _run_reindex,
            help="rebuild the match index from the log files")
