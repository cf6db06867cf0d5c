"""`highway-referee tokyo ...`: judge, draw and inspect Tokyo Highway plans; match a camera reading.

highway-referee tokyo judge PLAN.json [--json] [--strict]
highway-referee tokyo draw PLAN.json --svg table.svg --png table.png [--upto N]
highway-referee tokyo state PLAN.json
highway-referee tokyo match PLAN.json READING.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from engine import jsontext
from engine.core import EngineError
from engine.tokyo.plan import Plan, load_plan
from engine.tokyo.reading import TableReading, match_build
from referee_app.cli import CliError, CommandTree


def _plan(path: str) -> Plan:
    try:
        return load_plan(path)
    except EngineError as exc:
        raise CliError(str(exc)) from None


def _replay(plan: Plan, upto: int | None = None):
    try:
        return plan.replay(upto)
    except EngineError as exc:
        raise CliError(str(exc)) from None


def _setup_judge(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "plan", help="plan file (JSON: options and a list of actions), see docs/formats/tokyo-plan.md"
    )
    p.add_argument("--json", action="store_true", help="print one JSON verdict per line")
    p.add_argument("--strict", action="store_true", help="exit with status 1 when any action is illegal")


def _run_judge(args: argparse.Namespace) -> int:
    plan = _plan(args.plan)
    _state, verdicts = _replay(plan)
    for i, (action, v) in enumerate(zip(plan.actions, verdicts, strict=True), start=1):
        if args.json:
            print(json.dumps({"n": i, "action": action.notation(), "verdict": v.to_json()}))
        else:
            mark = "ok     " if v.legal else ("PENALTY" if v.consequence == "penalty" else "ILLEGAL")
            print(f"{i:>3} {mark} [{v.rule}] {action.notation()}\n      {v.reason}")
    final = _state.outcome()
    if final is not None and not args.json:
        print(f"game over: {final.reason}")
    bad = sum(1 for v in verdicts if not v.legal and v.consequence != "penalty")
    return 1 if args.strict and bad else 0


def _setup_draw(p: argparse.ArgumentParser) -> None:
    p.add_argument("plan", help="plan file (JSON)")
    p.add_argument("--svg", help="write the top view as SVG (real size, mm)")
    p.add_argument("--png", help="write the top view as PNG")
    p.add_argument("--upto", type=int, default=None, help="draw the table after the first N actions")
    p.add_argument("--scale", type=float, default=4.0, help="PNG pixels per mm (default 4)")


def _run_draw(args: argparse.Namespace) -> int:
    if not args.svg and not args.png:
        raise CliError("give --svg FILE and/or --png FILE")
    if args.upto is not None and args.upto < 0:
        raise CliError(f"--upto must be >= 0, got {args.upto}")
    if not 0.5 <= args.scale <= 20:
        raise CliError(f"--scale must be between 0.5 and 20 pixels per mm, got {args.scale}")
    from referee_app.render.tokyo import tokyo_drawing

    state, _ = _replay(_plan(args.plan), args.upto)
    svg, png = tokyo_drawing(state, args.scale)
    for path, data in ((args.svg, svg.encode()), (args.png, png)):
        if path:
            try:
                Path(path).write_bytes(data)
            except OSError as exc:
                raise CliError(f"cannot write {path}: {exc.strerror or exc}") from None
            print(f"wrote {path}")
    return 0


def _setup_state(p: argparse.ArgumentParser) -> None:
    p.add_argument("plan", help="plan file (JSON)")


def _run_state(args: argparse.Namespace) -> int:
    state, _ = _replay(_plan(args.plan))
    print(json.dumps(state.table_view(), indent=1))
    return 0


def _setup_match(p: argparse.ArgumentParser) -> None:
    p.add_argument("plan", help="plan file: the table before the change")
    p.add_argument("reading", help="camera reading of the table after the change (JSON)")


def _run_match(args: argparse.Namespace) -> int:
    state, _ = _replay(_plan(args.plan))
    try:
        data = jsontext.load_file(args.reading)
    except OSError as exc:
        raise CliError(f"cannot read {args.reading}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise CliError(f"{args.reading}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    try:
        action = match_build(state, TableReading.from_json(data))
        verdict = state.judge(action)
    except EngineError as exc:
        raise CliError(f"{args.reading}: {exc}") from None
    print(action.notation())
    print(f"[{verdict.rule}] {verdict.reason}")
    return 0


def register(cli: CommandTree) -> None:
    cli.group(("tokyo",), help="Tokyo Highway: judge plans, draw the table, match camera readings")
    cli.add(("tokyo", "judge"), _setup_judge, _run_judge, help="judge every action of a plan, with rule ids")
    cli.add(("tokyo", "draw"), _setup_draw, _run_draw, help="draw the table of a plan (top view, SVG/PNG)")
    cli.add(("tokyo", "state"), _setup_state, _run_state, help="print the table of a plan as JSON")
    cli.add(
        ("tokyo", "match"),
        _setup_match,
        _run_match,
        help="turn a camera reading into the action it shows, and judge it",
    )
