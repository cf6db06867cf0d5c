"""Every benchmark in one run, in CPU time, each beside its baseline measured in the same run.

    .venv/bin/python bench/run_all.py --json bench.json --docs docs/benchmarks
    .venv/bin/python bench/run_all.py --quick --json /tmp/quick.json     (tiny inputs, seconds)
    .venv/bin/python bench/run_all.py --skip readers,scripts --keep bench/results/latest.json \
        --json bench/results/latest.json --docs docs/benchmarks     (re-run two sections, keep the rest)

Sections of the JSON (docs/benchmarks/README.md explains each figure; bench/benchdocs.py writes
the docs from this file and nothing else):
- readers: whole referee loop (read -> gate -> judge -> logged verdict) frames per CPU second on
  each game's bundled recorded match; reader_alone: the reader by itself on the same frames
  (the baseline); frame_to_verdict_ms: wall-clock p50 / p95 from a frame handed to the loop to its
  verdict event (latency is wall time by nature; on a shared machine it includes waiting);
- railroad_ink_sheets_per_s: `score_sheet` on complete sheets of random legal games, as users get it
  (compiled with numba where the `fast` extra is installed, loaded before timing); railroad_ink:
  the same beside the pure-Python bit-packed scorer (score_sheet_pure), the square-by-square scorer
  and the naive flood-fill scorer, and parse + build + score from JSON text with each;
- grid: the 4x4 solver's CPU seconds by empty cells (exact), beside the previous search; the
  median, 90th percentile and max over a fixed sample of 12-empty positions (GRID_SAMPLE: the
  first 50 positions of bench/grid_solver.py's generator with seed 1, the positions of
  `bench/grid_ab.py --empty 12 --n 50 --seed 1`); the empty board's book answer, and best-path
  evaluations per second beside a naive path walk. The compiled search is loaded before any timing;
- scripts: every other bench/*.py run as its own process with small inputs (CPU seconds of the
  child and its printed result), so nothing in bench/ goes unmeasured.
Times are time.process_time() (CPU of this process) unless named wall.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path[:0] = [str(ROOT), str(BENCH)]

# As the app's command line does (referee_app/cli.py), before numpy is imported: the readers measured
# in this process run the way the referee runs them. With BLAS worker threads the Railroad Ink sheet
# reader's one larger matrix product (196 side strips) cost ~8 ms of CPU spinning instead of 0.3 ms.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

# Scripts run whole by the `scripts` section, with small inputs (full mode only).
SCRIPTS: dict[str, list[str]] = {
    "dice_engine.py": ["--games", "10", "--sample", "2000", "--repeats", "1"],
    "dice_vision.py": ["--frames", "2"],
    "learned_dice.py": ["--frames", "2", "--runs", "1"],
    "tiles_fps.py": ["--frames", "2", "--repeat", "1"],
    "sheets_fps.py": ["--frames", "2", "--repeat", "1"],
    "route_dice_fps.py": ["--frames", "2", "--repeat", "1"],
    "tokyo_vision.py": ["--runs", "1"],
    "tokyo_engine.py": ["--n", "500"],
    "log_append.py": ["--records", "100"],
    "led_latency.py": ["--events", "50", "--seconds", "1"],
    "rri_referee_fps.py": ["--frames", "2", "--repeat", "1"],
    "rri_referee_table.py": ["--frames", "6"],
    "rri_referee_confidence.py": ["--sheets", "8"],
    "datasets_yolo_build.py": ["--n", "2"],
    "referee_pipeline.py": ["--frames", "10", "--viewers", "8,32"],  # the page viewers part
}
# Measured in process above (their functions, in CPU time): grid_solver, grid_paths, rri_score.


def cpu_rate(fn: Callable[[], int], seconds: float) -> float:
    """Items per CPU second: fn() does one batch and returns its item count; batches repeat until
    `seconds` of CPU have gone, and the fastest batch counts (the least disturbed by the others
    sharing the machine)."""
    best = 0.0
    spent = 0.0
    while spent < seconds:
        t = time.process_time()
        n = fn()
        dt = time.process_time() - t
        spent += dt
        if dt > 0:
            best = max(best, n / dt)
    return best


def cpu_rates(fns: dict[str, Callable[[], int]], seconds: float, rounds: int = 4) -> dict[str, float]:
    """cpu_rate of each, in turns of seconds / rounds, so a busy spell on the shared machine falls on
    all of them alike, not on whichever ran then."""
    best = dict.fromkeys(fns, 0.0)
    for _ in range(rounds):
        for name, fn in fns.items():
            best[name] = max(best[name], cpu_rate(fn, seconds / rounds))
    return best


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


# -- readers and the referee loop -------------------------------------------------------------
def bench_readers(frames_per_game: int, games: set[str] | None = None) -> dict[str, Any]:
    """Each bundled recorded match's reader alone and whole loop (`games`: only these games)."""
    from referee_app.demo import bundled_demos
    from referee_app.games import get_adapter

    readers: dict[str, float] = {}
    alone: dict[str, float] = {}
    latency: dict[str, dict[str, float | None]] = {}
    frames_used: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for demo in bundled_demos():
            if games and demo.game not in games:
                continue
            frames = list(itertools.islice(demo.frames(realtime=False), frames_per_game))
            adapter = get_adapter(demo.game)
            adapter.read(frames[0])  # warm-up: models load once
            t = time.process_time()
            for f in frames:
                adapter.read(f)
            alone[demo.game] = len(frames) / max(time.process_time() - t, 1e-9)
            hub, loop = demo_loop(demo, frames, Path(tmp))
            t = time.process_time()
            loop.run()
            hub.bus.drain()
            readers[demo.game] = len(frames) / max(time.process_time() - t, 1e-9)
            hub.bus.close()
            lat = [1000 * x for x in (loop.stats.latencies or [])]
            latency[demo.game] = {"p50": pct(lat, 0.5), "p95": pct(lat, 0.95), "verdicts": len(lat)}
            frames_used[demo.game] = len(frames)
    return {"readers": readers, "reader_alone": alone, "frame_to_verdict_ms": latency,
            "reader_frames": frames_used}


def _restamp(frames):  # noqa: ANN001, ANN202 - frames as a camera hands them over
    for f in frames:
        f.timestamp = time.time()
        yield f


def demo_loop(demo: Any, frames: list[Any], folder: Path) -> tuple[Any, Any]:
    """(hub, loop): the referee loop as `readers` times it (the bench scripts that profile or count
    it build the same): a fresh hub and match stored under `folder`, a fresh adapter that has read
    the first frame, the frames restamped as a camera hands them over."""
    from referee_app.games import get_adapter
    from referee_app.hub import Hub
    from referee_app.loop import RefereeLoop
    from referee_app.store import MatchStore

    hub = Hub(MatchStore(folder / demo.name))
    m = demo.manifest
    session = hub.create_match(demo.game, list(m["players"]), dict(m.get("variant") or {}))
    fresh = get_adapter(demo.game).__class__()
    fresh.read(frames[0])
    return hub, RefereeLoop(hub, session, fresh, iter(_restamp(frames)), int(m.get("frames_needed", 3)))


# -- Railroad Ink -------------------------------------------------------------------------------
def bench_railroad_ink(sheets: int, seconds: float) -> dict[str, Any]:
    from rri_score import naive_score

    from engine.railroad_ink import scoring
    from engine.railroad_ink.randomgame import random_game
    from engine.railroad_ink.scoring import score_sheet, score_sheet_full
    from engine.railroad_ink.sheetfile import sheet_from_json, sheet_to_json

    complete = [random_game(seed)[0].sheets[0] for seed in range(sheets)]
    texts = [json.dumps(sheet_to_json(s)) for s in complete]

    def scored(fn: Callable[..., object]) -> Callable[[], int]:
        return lambda: len([fn(s) for s in complete])

    def loaded(fn: Callable[..., object]) -> Callable[[], int]:
        return lambda: len([fn(sheet_from_json(json.loads(t)).sheet) for t in texts])

    def pure(s: object) -> object:
        return score_sheet(s, compiled=False)

    # Load (on a machine's first run: compile) the compiled scorer before any timing, as a long
    # job's process has after its first JIT_AFTER sheets; its cost is reported, not timed below.
    t = time.process_time()
    kernel = scoring.compiled_kernel()
    load = time.process_time() - t
    rates = cpu_rates({"score_sheet": scored(score_sheet), "score_sheet_pure": scored(pure),
                       "square_by_square_scorer": scored(score_sheet_full),
                       "naive_scorer": scored(lambda s: naive_score(s, "trail")),
                       "parse_build_score": loaded(score_sheet), "parse_build_score_pure": loaded(pure),
                       "parse_build_score_square_by_square": loaded(score_sheet_full)}, seconds)
    return {
        "railroad_ink_sheets_per_s": rates["score_sheet"],
        "railroad_ink": {
            "sheets": len(complete),
            "squares_per_sheet": sum(sum(1 for c in s.cells if c) for s in complete) / len(complete),
            "compiled": kernel is not None,
            "compiled_load_cpu_s": load if kernel is not None else None,
            **rates,
        },
    }


# -- Highway 4x4 --------------------------------------------------------------------------------
PREVIOUS_UP_TO = 11  # empty cells: past this the previous search takes minutes a position
GRID_SAMPLE = {"empty": 12, "positions": 50, "seed": 1}  # the worst case of issue 24's "< 1 s at 12 empty"


def _cpu(fn: Any, *args: Any, **kwargs: Any) -> tuple[float, Any]:
    """(CPU seconds, result) of one call."""
    t = time.process_time()
    result = fn(*args, **kwargs)
    return time.process_time() - t, result


def grid_sample(empty: int, positions: int, seed: int) -> dict[str, Any]:
    """`grid solve`'s exact margin (no time limit) on `positions` positions of bench/grid_solver.py's
    generator with `seed` (those of `bench/grid_ab.py --empty E --n N --seed S`): CPU s by quantile."""
    from grid_solver import position

    from engine.grid import solver as grid_solver

    rng = random.Random(seed)
    cpu, nodes, boards = [], [], []
    for _ in range(positions):
        state = position(rng, empty)
        seconds, result = _cpu(grid_solver.solve, state)
        cpu.append(seconds)
        nodes.append(result.nodes)
        boards.append(" ".join(str(v) if v else "." for v in state.board))
    order = sorted(cpu)
    worst = cpu.index(order[-1])
    return {"empty": empty, "positions": positions, "seed": seed, "median_cpu_s": statistics.median(cpu),
            "p90_cpu_s": order[min(len(order) - 1, int(0.9 * len(order)))], "max_cpu_s": order[-1],
            "median_nodes": statistics.median(nodes), "max_nodes": max(nodes),
            "under_1s": sum(c < 1.0 for c in cpu), "slowest": boards[worst]}


def bench_grid(empties: list[int], positions: int, seconds: float, empty_limit: float,
               sample: dict[str, int]) -> dict[str, Any]:
    from grid_paths import naive_best
    from grid_solver import position

    from engine.grid import GridState, best_path
    from engine.grid import solver as grid_solver

    # Load (or compile) the compiled search before any timing: its first use costs about a second
    # (a cached load), which once landed in the 8-empty row's max.
    grid_solver.solve(GridState((1, 2, 3, 4, 5, 6, 7, 8) + (0,) * 8))
    rng = random.Random(0)
    rows = []
    for k in empties:
        cpu, nodes, base_cpu = [], [], []
        for _ in range(positions):
            state = position(rng, k)
            seconds, result = _cpu(grid_solver.solve, state)
            cpu.append(seconds)
            nodes.append(result.nodes)
            if k <= PREVIOUS_UP_TO:
                seconds, base = _cpu(grid_solver.solve_previous, state)
                base_cpu.append(seconds)
                assert base.value == result.value, (state.board, base.value, result.value)
        rows.append({"empty": k, "positions": positions, "median_cpu_s": statistics.median(cpu),
                     "max_cpu_s": max(cpu), "max_nodes": max(nodes),
                     "previous_median_cpu_s": statistics.median(base_cpu) if base_cpu else None})
    t = time.process_time()
    empty = grid_solver.solve(GridState(), time_limit=empty_limit)  # what `grid solve` does (--time)
    book = {"value": empty.value, "best": empty.best.notation() if empty.best else None,
            "exact": empty.exact, "cpu_s": time.process_time() - t, "time_limit_s": empty_limit,
            "book": empty.book}
    t = time.process_time()
    who = grid_solver.solve(GridState(), time_limit=empty_limit, outcome=True)  # `grid solve --outcome`
    book["outcome"] = {"answer": who.to_json().get("outcome"), "exact": who.exact, "book": who.book,
                       "best": who.best.notation() if who.best else None, "cpu_s": time.process_time() - t}
    boards = [tuple(random.Random(i).sample(range(1, 17), 16)) for i in range(200)]
    engine_rate = cpu_rate(lambda: len([best_path(b, 0) for b in boards]), seconds)
    naive_rate = cpu_rate(lambda: len([naive_best(b, 0) for b in boards]), seconds)
    from engine.grid import exact, jitsearch

    compiled = exact.JIT_FROM if jitsearch.available() else None
    return {"grid": {"solver": rows, "sample": grid_sample(**sample), "empty_board": book,
                     "compiled_from_empty": compiled,
                     "best_path_boards_per_s": engine_rate, "naive_best_path_boards_per_s": naive_rate}}


# -- the other scripts --------------------------------------------------------------------------
def bench_scripts(names: list[str], timeout: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    for name in names:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            proc = subprocess.run([sys.executable, str(BENCH / name), *SCRIPTS[name]], capture_output=True,
                                  text=True, timeout=timeout, cwd=ROOT, env=env)
            status, text = proc.returncode, proc.stdout.strip() or proc.stderr.strip()[-2000:]
        except subprocess.TimeoutExpired:
            status, text = "timeout", ""
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        out[name] = {"args": SCRIPTS[name], "status": status, "cpu_s": round(cpu, 2), "output": text}
    return {"scripts": out}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, required=True, help="where to write the results")
    ap.add_argument("--quick", action="store_true", help="tiny inputs: checks the plumbing, not speed")
    ap.add_argument("--docs", type=Path, help="also write the benchmark docs into this folder")
    ap.add_argument("--frames", type=int, help="frames per game's recorded match (default 40, quick 1)")
    ap.add_argument("--skip", default="", help="comma-separated sections to leave out: "
                    "readers,railroad_ink,grid,scripts")
    ap.add_argument("--games", default="", help="comma-separated games the readers section reads "
                    "(default: every bundled recorded match's; for a measurement, not --docs), "
                    "e.g. tokyo-highway")
    ap.add_argument("--keep", type=Path, help="an earlier run's JSON: the skipped sections are taken from "
                    "it (named in kept_from), so the docs can be regenerated after re-running one section")
    args = ap.parse_args(argv)
    skip = {s for s in args.skip.split(",") if s}
    try:
        import cv2

        cv2.setNumThreads(1)  # one core: OpenCV's worker threads off
    except ImportError:
        pass
    q = args.quick
    started = time.process_time()
    result: dict[str, Any] = {
        "quick": q,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "processor": platform.machine(), "date": time.strftime("%Y-%m-%d")},
        "readers": {}, "reader_alone": {}, "frame_to_verdict_ms": {}, "reader_frames": {},
        "railroad_ink_sheets_per_s": None, "railroad_ink": {}, "grid": {}, "scripts": {},
    }
    sections: dict[str, float] = {}
    walls: dict[str, float] = {}

    def timed(name: str, fn: Callable[[], dict[str, Any]]) -> None:
        t, w = time.process_time(), time.perf_counter()
        result.update(fn())
        sections[name] = time.process_time() - t
        walls[name] = time.perf_counter() - w

    if "readers" not in skip:
        timed("readers", lambda: bench_readers(args.frames or (1 if q else 40),
                                                  {g for g in args.games.split(",") if g}))
    if "railroad_ink" not in skip:
        timed("railroad_ink", lambda: bench_railroad_ink(3 if q else 28, 0.05 if q else 2.0))
    if "grid" not in skip:
        timed("grid", lambda: bench_grid([4, 5] if q else [8, 9, 10, 11], 1 if q else 3,
                                         0.05 if q else 1.0, 0.5 if q else 30.0,
                                         {"empty": 5, "positions": 3, "seed": 1} if q else GRID_SAMPLE))
    result["skipped"] = sorted(skip | ({"scripts"} if q else set()))
    if "scripts" not in skip and not q:
        timed("scripts", lambda: bench_scripts(list(SCRIPTS), 900))
    if args.keep:
        earlier = json.loads(args.keep.read_text())
        kept = {"readers": ("readers", "reader_alone", "frame_to_verdict_ms", "reader_frames"),
                "railroad_ink": ("railroad_ink_sheets_per_s", "railroad_ink"), "grid": ("grid",),
                "scripts": ("scripts",)}
        taken = (skip & kept.keys()) - set(earlier.get("skipped", []))  # what the earlier run measured
        for name in sorted(taken):
            for key in kept[name]:
                result[key] = earlier.get(key, result[key])
        result["kept_from"] = {"file": str(args.keep), "sections": sorted(taken),
                               "machine": earlier.get("machine")}
        result["skipped"] = sorted(set(result["skipped"]) - taken)
    result["section_cpu_s"] = sections
    result["section_wall_s"] = walls
    result["total_cpu_s"] = time.process_time() - started
    args.json.write_text(json.dumps(result, indent=1, default=float))
    if args.docs:
        from benchdocs import write_docs

        write_docs(result, args.docs)
    return result


if __name__ == "__main__":
    main()
