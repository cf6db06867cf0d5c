"""`highway-referee eval match GAME ...`: the referee's accuracy per move on whole simulated matches.

    highway-referee eval match GAME --seeds 101-105 --camera 1920x1080 --height 850 --tilt 10 \\
        [--light normal|dim|mixed] [--hands] [--paper a4|letter] [--cameras 2 [--camera2-around DEG]
        [--camera2-height MM] [--camera2-tilt DEG]] [--json OUT]
    highway-referee eval match GAME --envelope [--quick] [--json OUT] [--markdown FILE]

The matches come from datasets.match_sim (scripted players who sometimes break a rule, hands, shadows,
glare, nudged pieces, one camera bump). Their frames go through the same `RefereeLoop` as `serve`,
as a frame source; at the end of each move the simulated players look at what the referee logged and
act as they would on the page: confirm the move it asks about, withdraw a wrong one and type the
right one, or type a move it missed. Every field is defined in docs/benchmarks/referee-accuracy.md.

`--cameras 2` (Tokyo Highway): a second camera films every scene from another side of the table with
its own exact calibration, and the loop reads both, as `serve --camera2 ... --calibration2 ...` does.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee_app.cli import CliError, CommandTree

GAMES = ("highway-dice", "highway-grid", "railroad-ink", "tokyo-highway")
TUNING_SEEDS = tuple(range(1, 51))  # may be looked at while changing the referee
REPORT_SEEDS = (101, 102, 103, 104, 105)  # the numbers in the docs come from these only
LENS_DEG = {"tokyo-highway": 50.0}  # horizontal field of view where a game's set-up differs from 70
PAPERS = ("a4", "letter")  # --paper: the home papers `print --paper` tiles a board for
TILED_GAMES = ("highway-dice",)  # games whose simulated board can be assembled from tiles
MULTI_CAMERA_GAMES = ("tokyo-highway",)  # games whose referee reads several cameras (--cameras)
CONFIDENT = 0.9  # a wrong verdict at or above this confidence is the worst kind
# the report's fields (docs/benchmarks/referee-accuracy.md defines each)
FIELDS = ("moves", "moves_right", "move_accuracy", "illegal_moves", "illegal_flagged_right",
          "false_mismatches", "false_mismatches_per_100", "confirmations_per_100", "missed_moves",
          "wrong_verdicts", "wrong_verdicts_confident", "frames", "seconds_per_move")
COUNTS = ("moves", "moves_right", "moves_confirmed", "illegal_moves", "illegal_flagged_right",
          "false_mismatches", "confirmations", "missed_moves", "wrong_verdicts", "wrong_verdicts_confident",
          "frames")

# the documented grid: (camera, height mm, tilt degrees) per game
ENVELOPE: dict[str, list[tuple[str, float, float]]] = {
    "highway-dice": [(cam, h, t) for cam in ("1920x1080", "1280x720") for t in (0, 10, 20, 30)
                     for h in (600, 850, 1000)],
    "highway-grid": [("1280x720", h, t) for t in (0, 10, 20, 30) for h in (450, 600)],
    "railroad-ink": [("1280x720", h, t) for t in (0, 10, 20) for h in (300, 360)],
    "tokyo-highway": [("1280x720", h, t) for t in (30, 40, 50) for h in (450, 550)],
}
# one set-up's defaults per game (camera, height mm, tilt degrees): inside each game's envelope
DEFAULT_SETUP: dict[str, tuple[str, float, float]] = {
    "highway-dice": ("1920x1080", 850, 10), "highway-grid": ("1280x720", 450, 10),
    "railroad-ink": ("1280x720", 330, 10), "tokyo-highway": ("1280x720", 550, 40),
}
# --quick: a corner of each grid, for a run of a few minutes on a small machine
QUICK: dict[str, list[tuple[str, float, float]]] = {
    "highway-dice": [("1920x1080", 850, 10), ("1280x720", 850, 10), ("1280x720", 600, 20),
                     ("1280x720", 1000, 30)],
    "highway-grid": [("1280x720", 450, 10), ("1280x720", 600, 30)],
    "railroad-ink": [("1280x720", 330, 10), ("1280x720", 360, 20)],
    "tokyo-highway": [("1280x720", 550, 40)],
}


def parse_seeds(text: str) -> list[int]:
    """'1-5', '3', '1,4,9' or '1-3,10' -> sorted distinct seeds."""
    seeds: set[int] = set()
    try:
        for part in text.split(","):
            part = part.strip()
            if "-" in part:
                lo, hi = (int(v) for v in part.split("-", 1))
                if hi < lo or hi - lo > 1000:
                    raise ValueError(part)
                seeds.update(range(lo, hi + 1))
            else:
                seeds.add(int(part))
    except ValueError as exc:
        raise CliError(f"--seeds {text!r}: give seeds as 1-5, 3 or 1,4,9") from exc
    if not seeds or min(seeds) < 0:
        raise CliError(f"--seeds {text!r}: give at least one seed, none negative")
    return sorted(seeds)


def parse_camera(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError as exc:
        raise CliError(f"--camera {text!r}: give the frame size as WIDTHxHEIGHT, e.g. 1920x1080") from exc
    return w, h


def make_setup(camera: str, height_mm: float, tilt: float, light: str = "normal", hands: bool = False,
               fov: float = 70.0, paper: str | None = None, cameras: int = 1, second: Any = None) -> Any:
    from datasets.match_sim import Setup

    w, h = parse_camera(camera)
    try:
        return Setup(w, h, float(height_mm), float(tilt), light, hands, float(fov), paper, cameras, second)
    except ValueError as exc:
        raise CliError(str(exc)) from exc


def simulate(game: str, seed: int, setup: Any, turns: int | None = None, max_moves: int | None = None) -> Any:
    """The simulated match of `game` for `seed` (its first `max_moves` moves only, when given)."""
    from datasets import match_sim

    sim = match_sim.simulate(game, seed, setup, **({} if turns is None else {"turns": turns}))
    return sim.truncate(max_moves) if max_moves else sim


@dataclass
class MoveResult:
    index: int
    truth: str
    legal: bool
    outcome: str  # right, confirmed, wrong, missed
    logged: list[str] = field(default_factory=list)
    confidence: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"move": self.index, "truth": self.truth, "legal": self.legal, "outcome": self.outcome,
                "logged": self.logged, "confidence": self.confidence}


class Players:
    """The simulated table as the referee loop's frame source. After each move's last still frame
    the players check the log and act through the page's own paths (confirm, correct, type)."""

    def __init__(self, sim: Any, session: Any) -> None:
        self.sim = sim
        self.session = session
        self.loop: Any = None
        self.results: list[MoveResult] = []
        self.outside_cpu = 0.0  # CPU seconds spent drawing frames and playing the players
        self.frames = 0
        self._seen = 0  # session.played entries already accounted for
        self._confirmations = 0

    def source(self) -> Iterator[Any]:
        from vision.sources import OtherView, PairedFrame
        from vision.types import Frame

        t = time.process_time()
        for sim_frame in self.sim.frames():
            source_id = f"sim:{self.sim.game}"
            if sim_frame.others:  # several cameras: one paired frame, as serve --camera2 gives
                views = [OtherView(im, f"{source_id}:camera{k}") for k, im in enumerate(sim_frame.others, 2)]
                frame: Frame = PairedFrame(sim_frame.image, time.time(), source_id, self.frames, others=views)
            else:
                frame = Frame(sim_frame.image, time.time(), source_id, self.frames)
            self.frames += 1
            self.outside_cpu += time.process_time() - t
            yield frame  # the loop reads, settles, explains and judges it before asking for the next
            t = time.process_time()
            if sim_frame.checkpoint is not None:
                self._check(sim_frame.checkpoint)
        self.outside_cpu += time.process_time() - t

    def _check(self, k: int) -> None:
        truth = self.sim.moves[k]
        session, loop = self.session, self.loop
        new = session.played[self._seen:]
        asked = loop.stats.confirmations > self._confirmations
        pending = [n for n, _ in loop.pending] if asked else []
        result = MoveResult(k, truth.notation, truth.legal, "missed",
                            [p.action.notation() for p in new])
        before = session.states[self._seen]
        if len(new) == 1 and same_move(new[0].action, session.parse(truth.notation), before):
            result.outcome, result.confidence = "right", new[0].confidence
        elif new:
            result.outcome = "wrong"
            result.confidence = max(p.confidence for p in new)
            for _ in new:  # withdraw what the camera logged, latest first, and type the real move
                session.correct(source="manual", reason="eval: not what was played")
            session.submit(session.parse(truth.notation), source="manual")
        elif any(same_move(session.parse(n), session.parse(truth.notation), before) for n in pending):
            # the question offers the move played (perhaps spelled otherwise: a colour for a seat)
            loop.confirm(next(n for n in pending
                              if same_move(session.parse(n), session.parse(truth.notation), before)))
            result.outcome = "confirmed"
        else:
            session.submit(session.parse(truth.notation), source="manual")
        self.results.append(result)
        self._seen = len(session.played)
        self._confirmations = loop.stats.confirmations


def same_move(logged: Any, truth: Any, before: Any = None) -> bool:
    """The camera's action is the move played: equal as the engine writes them, a field that either
    leaves open (None: the player to move, cars not counted) aside. The player may be written two
    ways (Tokyo Highway: "green" or seat 1): given the state `before`, the same player is the one
    whose move the engine judges and applies the same way."""
    a, b = logged.to_json(), truth.to_json()
    open_keys = {k for k in a.keys() | b.keys() if a.get(k) is None or b.get(k) is None}
    who = {"player", "seat"} - open_keys
    if {k: v for k, v in a.items() if k not in open_keys | who} != {k: v for k, v in b.items()
                                                                    if k not in open_keys | who}:
        return False
    if all(a.get(k) == b.get(k) for k in who):
        return True
    if before is None:
        return False
    from engine import EngineError

    try:
        va, vb = before.judge(logged), before.judge(truth)
        return ((va.legal, va.rule) == (vb.legal, vb.rule)
                and before.apply(logged, va).to_json() == before.apply(truth, vb).to_json())
    except EngineError:  # one of them is no move of that player at all
        return False


def run_match(sim: Any) -> dict[str, Any]:
    """Referee one simulated match through RefereeLoop and score it against the script."""
    from referee_app.games import get_adapter
    from referee_app.hub import Hub
    from referee_app.loop import RefereeLoop
    from referee_app.store import MatchStore

    with tempfile.TemporaryDirectory(prefix="eval-match-") as tmp:
        hub = Hub(MatchStore(Path(tmp)))
        try:
            session = hub.create_match(sim.game, list(sim.players), dict(sim.variant))
            adapter = get_adapter(sim.game).__class__()
            calibration = sim.extra.get("calibration")
            if calibration is not None:  # a reader that needs the camera's calibration (Tokyo Highway)
                path = Path(tmp) / "calibration.json"
                path.write_text(json.dumps(calibration))
                adapter.use_calibration(path, **sim.extra.get("calibration_options", {}))
            for k, other in enumerate(sim.extra.get("other_calibrations") or [], 2):
                path = Path(tmp) / f"calibration{k}.json"
                path.write_text(json.dumps(other))
                adapter.use_camera_calibration(k, path)
            players = Players(sim, session)
            loop = RefereeLoop(hub, session, adapter, players.source(),
                               frames_needed=int(sim.extra.get("frames_needed", 3)), publish_video=False)
            players.loop = loop
            t0 = time.process_time()
            loop.run()
            cpu = time.process_time() - t0 - players.outside_cpu
            hub.bus.drain()
        finally:
            hub.bus.close()
    return score(sim, players.results, loop.stats, players.frames, cpu)


def score(sim: Any, results: list[MoveResult], stats: Any, frames: int, cpu: float) -> dict[str, Any]:
    illegal = [r for r in results if not r.legal]
    out: dict[str, Any] = {
        "moves": len(sim.moves),
        "moves_right": sum(r.outcome in ("right", "confirmed") for r in results),
        "moves_confirmed": sum(r.outcome == "confirmed" for r in results),
        "illegal_moves": sum(not m.legal for m in sim.moves),
        "illegal_flagged_right": sum(r.outcome in ("right", "confirmed") for r in illegal),
        "false_mismatches": stats.mismatches,
        "confirmations": stats.confirmations,
        "missed_moves": sum(r.outcome == "missed" for r in results) + len(sim.moves) - len(results),
        "wrong_verdicts": sum(r.outcome == "wrong" for r in results),
        "wrong_verdicts_confident": sum(r.outcome == "wrong" and (r.confidence or 0.0) >= CONFIDENT
                                        for r in results),
        "frames": frames,
        "cpu_seconds": round(cpu, 3),
        "errors": stats.errors,
        "failures": [r.to_json() for r in results if r.outcome != "right"],
    }
    return finish(out)


def finish(out: dict[str, Any]) -> dict[str, Any]:
    """Add the rates to summed counts."""
    moves = out["moves"]
    out["move_accuracy"] = round(out["moves_right"] / moves, 4) if moves else None
    out["false_mismatches_per_100"] = round(100 * out["false_mismatches"] / moves, 2) if moves else None
    out["confirmations_per_100"] = round(100 * out["confirmations"] / moves, 2) if moves else None
    out["seconds_per_move"] = round(out["cpu_seconds"] / moves, 4) if moves else None
    return out


def combine(runs: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {k: sum(r[k] for r in runs) for k in (*COUNTS, "errors")}
    out["cpu_seconds"] = round(sum(r["cpu_seconds"] for r in runs), 3)
    return finish(out)


def evaluate(game: str, seeds: list[int], setup: Any, turns: int | None = None,
             progress: Any = None, max_moves: int | None = None) -> dict[str, Any]:
    per_seed = []
    for seed in seeds:
        result = run_match(simulate(game, seed, setup, turns, max_moves))
        per_seed.append({"seed": seed, **result})
        if progress is not None:
            progress(f"{game} {setup.label()} seed {seed}: {result['moves_right']}/{result['moves']} right, "
                     f"{result['false_mismatches']} mismatches, {result['confirmations']} confirmations")
    report_only = all(s in REPORT_SEEDS or s > max(TUNING_SEEDS) for s in seeds)
    return {"game": game, "setup": setup.to_json(), "seeds": seeds,
            "seed_kind": "report" if report_only else "tuning", **combine(per_seed), "per_seed": per_seed}


def envelope(game: str, seeds: list[int], quick: bool, light: str, hands: bool, turns: int | None,
             progress: Any = None, fov: float | None = None, paper: str | None = None, cameras: int = 1,
             second: Any = None) -> dict[str, Any]:
    rows = []
    for camera, height, tilt in (QUICK if quick else ENVELOPE)[game]:
        setup = make_setup(camera, height, tilt, light, hands, fov or LENS_DEG.get(game, 70.0), paper,
                           cameras, second)
        rows.append(evaluate(game, seeds, setup, turns, progress))
    return {"game": game, "grid": "quick" if quick else "full", "seeds": seeds, "rows": rows,
            "total": combine(rows)}


def table(result: dict[str, Any]) -> str:
    """The envelope (or one set-up) as a Markdown table."""
    rows = result.get("rows") or [result]
    # a print column only where a row was played on a board printed in tiles (`--paper`)
    tiled = any(r["setup"].get("paper") for r in rows)
    head = (("| print " if tiled else "") + "| camera | height mm | tilt ° | moves | right | accuracy "
            "| illegal flagged | false mismatches /100 | confirmations /100 | missed | wrong (≥0.9) | frames "
            "| CPU s/move |")
    lines = [head, "|" + "---|" * (14 if tiled else 13)]
    for r in rows:
        s = r["setup"]
        paper = f"| {s['paper']} tiles " if s.get("paper") else "| one piece "
        lines.append(("" if not tiled else paper)
                     + f"| {s['camera']} | {s['height_mm']:g} | {s['tilt_deg']:g} | {r['moves']} "
                     f"| {r['moves_right']} | {_pct(r['move_accuracy'])} "
                     f"| {r['illegal_flagged_right']}/{r['illegal_moves']} | {r['false_mismatches_per_100']} "
                     f"| {r['confirmations_per_100']} | {r['missed_moves']} "
                     f"| {r['wrong_verdicts']} ({r['wrong_verdicts_confident']}) | {r['frames']} "
                     f"| {r['seconds_per_move']} |")
    return "\n".join(lines)


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{100 * v:.1f} %"


def _setup_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", choices=GAMES, metavar="GAME", help="one of: " + ", ".join(GAMES))
    p.add_argument("--seeds", default=None,
                   help="matches to play, e.g. 101-105 (default: the report seeds, 101-105 for one set-up, "
                        "101-102 with --envelope). Seeds 1-50 are the tuning seeds")
    defaults = "; ".join(f"{g} {c} {h:g} mm {t:g}°" for g, (c, h, t) in DEFAULT_SETUP.items())
    p.add_argument("--camera", default=None, help=f"frame size WIDTHxHEIGHT (default per game: {defaults})")
    p.add_argument("--height", type=float, default=None, help="camera height above the table, mm")
    p.add_argument("--tilt", type=float, default=None, help="camera tilt from straight down, degrees")
    p.add_argument("--light", choices=("normal", "dim", "mixed"), default="normal")
    p.add_argument("--hands", action="store_true", help="hands cover every change and pass over the table")
    p.add_argument("--fov", type=float, default=None,
                   help="the lens's horizontal field of view, degrees (default 70; Tokyo Highway 50)")
    p.add_argument("--paper", choices=PAPERS, default=None,
                   help=f"{' and '.join(TILED_GAMES)} only: the board printed on this paper in tiles "
                        "(print ... --paper) and taped together, laid with 2-3 mm gaps, turns of up to 1 "
                        "degree and the rows slid up to 2 mm (default: the one-piece print)")
    p.add_argument("--cameras", type=int, choices=(1, 2), default=1,
                   help=f"{' and '.join(MULTI_CAMERA_GAMES)} only: 2 films every scene also from a second "
                        "camera on another side of the table, with its own exact calibration, and the "
                        "referee reads both (as serve --camera2 --calibration2; default 1)")
    p.add_argument("--camera2-around", type=float, default=None,
                   help="--cameras 2: degrees around the table from the first camera (default 150, as the "
                        "bundled recording's)")
    p.add_argument("--camera2-height", type=float, default=None,
                   help="--cameras 2: the second camera's height above the table, mm (default: 200 mm "
                        "above the first, so every build is in some picture)")
    p.add_argument("--camera2-tilt", type=float, default=None,
                   help="--cameras 2: the second camera's tilt from straight down, degrees "
                        "(default: the first's)")
    p.add_argument("--turns", type=int, default=None, help="turns per match (default: the game's own)")
    p.add_argument("--max-moves", type=int, default=None, help="stop each match after this many moves")
    p.add_argument("--envelope", action="store_true", help="run the documented grid of set-ups, one table")
    p.add_argument("--quick", action="store_true", help="--envelope: a few set-ups of the grid only")
    p.add_argument("--json", type=Path, help="write the report as JSON here")
    p.add_argument("--markdown", type=Path, help="also write the table as Markdown here")
    p.add_argument("--quiet", action="store_true", help="no progress lines")


def _run(args: argparse.Namespace) -> int:
    import sys

    if args.turns is not None and not 1 <= args.turns <= 200:
        raise CliError("--turns must be 1..200")
    if args.quick and not args.envelope:
        raise CliError("--quick goes with --envelope")
    if args.envelope and (args.camera or args.height is not None or args.tilt is not None or args.max_moves):
        raise CliError("--envelope runs the documented set-ups: leave out --camera, --height, --tilt and "
                       "--max-moves")
    if args.paper and args.game not in TILED_GAMES:
        raise CliError(f"--paper: only {', '.join(TILED_GAMES)} is simulated printed in tiles "
                       f"(docs/formats/printing-tiles.md says how the {args.game} sheet is read)")
    second = _second_camera(args)
    if args.max_moves is not None and args.max_moves < 1:
        raise CliError("--max-moves must be at least 1")
    for path in (args.json, args.markdown):
        if path is not None and not path.parent.is_dir():
            raise CliError(f"{path}: its folder does not exist")
    default = "101-102" if args.envelope else "101-105"
    seeds = parse_seeds(args.seeds or default)

    def progress(line: str) -> None:
        if not args.quiet:
            print(line, file=sys.stderr, flush=True)

    if args.envelope:
        result = envelope(args.game, seeds, args.quick, args.light, args.hands, args.turns, progress,
                          args.fov, args.paper, args.cameras, second)
    else:
        camera, height, tilt = DEFAULT_SETUP[args.game]
        setup = make_setup(args.camera or camera, height if args.height is None else args.height,
                           tilt if args.tilt is None else args.tilt, args.light, args.hands,
                           args.fov or LENS_DEG.get(args.game, 70.0), args.paper, args.cameras, second)
        result = evaluate(args.game, seeds, setup, args.turns, progress, args.max_moves)
    text = table(result)
    print(f"{args.game}: seeds {','.join(map(str, seeds))}"
          + (f"; the board printed on {args.paper} tiles, taped together" if args.paper else "")
          + (f"; {args.cameras} cameras, the second {second.around_deg:g} degrees around" if second else ""))
    print(text)
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    if args.markdown is not None:
        args.markdown.write_text(text + "\n")
    return 0


def _second_camera(args: argparse.Namespace) -> Any:
    """The second camera's placement from --camera2-*, checked against --cameras and the game."""
    from datasets.match_sim.core import SecondCamera

    placed = (args.camera2_around, args.camera2_height, args.camera2_tilt)
    if args.cameras > 1 and args.game not in MULTI_CAMERA_GAMES:
        raise CliError(f"--cameras {args.cameras}: only {', '.join(MULTI_CAMERA_GAMES)}'s referee reads "
                       f"several cameras; {args.game} is filmed by one")
    if any(v is not None for v in placed) and args.cameras < 2:
        raise CliError("--camera2-around, --camera2-height and --camera2-tilt go with --cameras 2")
    if args.cameras < 2:
        return None
    around, height, tilt = placed
    try:
        return SecondCamera(SecondCamera.around_deg if around is None else around, height, tilt)
    except ValueError as exc:
        raise CliError(str(exc)) from exc


def register(cli: CommandTree) -> None:
    cli.group(("eval",), help="score a reader on labelled photos")
    cli.add(("eval", "match"), _setup_args, _run,
            help="the referee's accuracy per move on whole simulated matches (same loop as serve)")
