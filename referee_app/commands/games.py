"""`highway-referee games`: list the supported games."""

from __future__ import annotations

import argparse
import json

import engine
from referee_app.cli import CommandTree


def _run(args: argparse.Namespace) -> int:
    rows = [
        {"name": g.name, "title": g.title, "players": f"{g.min_players}-{g.max_players}",
         "rules": g.rules_doc}
        for g in engine.games()
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for r in rows:
            print(f"{r['name']:<16} {r['players']:<5} {r['title']}")
    return 0


def register(cli: CommandTree) -> None:
    cli.add(("games",), lambda p: p.add_argument("--json", action="store_true"), _run,
            help="list the games the referee knows")
