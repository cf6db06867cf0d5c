"""`highway-referee games`: list the supported games and where their rules documents are.

A game's rules document (docs/rules/GAME.md, the rules as implemented with the rule ids verdicts
cite) is found in the source checkout beside the packages, or in an installed copy under
PREFIX/share/highway-referee/docs/rules (pyproject.toml installs it there).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import engine
from referee_app.cli import CommandTree

_CHECKOUT = Path(engine.__file__).resolve().parent.parent
_INSTALLED = Path(sys.prefix) / "share" / "highway-referee"


def rules_document(relative: str) -> Path | None:
    """The rules document `relative` (e.g. docs/rules/highway-grid.md) on this machine, if present."""
    if not relative:
        return None
    for root in (_CHECKOUT, _INSTALLED):
        path = root / relative
        if path.is_file():
            return path
    return None


def _run(args: argparse.Namespace) -> int:
    rows = []
    for g in engine.games():
        found = rules_document(g.rules_doc)
        rows.append({"name": g.name, "title": g.title, "players": f"{g.min_players}-{g.max_players}",
                     "rules": g.rules_doc, "rules_path": str(found) if found else None})
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for r in rows:
        print(f"{r['name']:<16} {r['players']:<5} {r['title']}")
        where = r["rules_path"] or f"{r['rules']} (not installed with this copy)"
        print(f"{'':<16} rules: {where}")
    return 0


def register(cli: CommandTree) -> None:
    cli.add(("games",), lambda p: p.add_argument("--json", action="store_true"), _run,
            help="list the games the referee knows and their rules documents")
