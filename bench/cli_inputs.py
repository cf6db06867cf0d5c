"""Every `highway-referee` command that reads a file, given files that are not what it takes.

    python bench/cli_inputs.py [--code DIR] [--only TEXT]

For each command below and each bad input (missing, a folder, empty, random bytes, not UTF-8, cut
JSON, a 5,000-digit number, NaN, a list, brackets 100,000 deep) it runs the CLI in a subprocess of
the code at `--code` (default: this checkout) and flags a run as BAD when it exits 0, prints a
traceback, prints more than two lines on stderr, or writes anything. The `serve --demo` lines take
about 30 s each and get three inputs only. One line per run; the last line counts the BAD ones.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

INPUTS = ["missing.json", "adir", "empty.json", "garbage.bin", "badutf8.json", "trunc.json",
          "bigint.json", "nan.json", "list.json", "deep.json"]
COMMANDS = [
    "camera check --image {F} --game highway-grid", "camera check --image {F} --game tokyo-highway",
    "dice board --board {F}", "dice legal {F} --roll 3 5", "dice legal new --board {F} --roll 3 5",
    "dice play {F} 'R 3 5'", "dice show {F}",
    "grid hint {F}", "grid show {F}", "grid solve {F} --time 1",
    "led layout --game highway-grid --rows-file {F} -o OUT/l.json",
    "led layout --game highway-dice --board-json {F} -o OUT/l.json",
    "log export {F} --out OUT/x.csv --format csv", "log replay {F}", "log list --data {F}",
    "log reindex --data {F}",
    "play highway-grid --moves {F} --log OUT/m.jsonl",
    "play tokyo-highway --variant geometry=@{F} --moves /dev/null --log OUT/m.jsonl",
    "railroad-ink check {F}", "railroad-ink render {F} --svg OUT/x.svg", "railroad-ink score {F}",
    "tokyo calibrate {F} --out OUT/c.json", "tokyo draw {F} --svg OUT/x.svg", "tokyo judge {F}",
    "tokyo match {F} {F}", "tokyo state {F}",
    "teach dice {F} --out OUT/p.json", "eval dice {F} --json OUT/e.json", "eval tiles {F} --json OUT/e.json",
    "eval sheets {F}", "eval route-dice {F}", "eval sticks {F}", "eval board {F} --game highway-dice",
    "serve --video {F} --game highway-grid --port 0 --data OUT/d --exit-when-done",
    "serve --frames {F} --game highway-grid --port 0 --data OUT/d --exit-when-done",
    "serve --demo --dice-profile {F} --port 0 --data OUT/d --exit-when-done --speed 1000",
    "serve --demo --calibration {F} --port 0 --data OUT/d --exit-when-done --speed 1000",
    "serve --demo --led-layout {F} --led /dev/null --port 0 --data OUT/d --exit-when-done --speed 1000",
    "serve --demo --data {F} --port 0 --exit-when-done --speed 1000",
]


def make_inputs(root: Path) -> None:
    rng = random.Random(23)
    (root / "adir").mkdir()
    (root / "empty.json").write_bytes(b"")
    (root / "garbage.bin").write_bytes(bytes(rng.randrange(256) for _ in range(3000)) + b"\xff\xfe")
    (root / "badutf8.json").write_bytes(b'{"x": "\xff\xfe"}\n')
    (root / "trunc.json").write_bytes(b'{"format": "highway-dice-board", "cells": [1, 2')
    (root / "bigint.json").write_bytes(b'{"x": 1' + b"0" * 5000 + b"}")
    (root / "nan.json").write_bytes(b'{"x": NaN, "players": 2}')
    (root / "list.json").write_bytes(b"[1, 2, 3]")
    (root / "deep.json").write_bytes(b"[" * 100_000 + b"]" * 100_000)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--code", type=Path, default=Path(__file__).resolve().parents[1])
    ap.add_argument("--only", default="", help="run only the commands containing this text")
    args = ap.parse_args()
    code = args.code.resolve()
    bad_runs = runs = 0
    with tempfile.TemporaryDirectory(prefix="cli-inputs-") as tmp:
        root = Path(tmp)
        make_inputs(root)
        for template in COMMANDS:
            if args.only not in template:
                continue
            for name in INPUTS:
                if ("--demo" in template or "--data {F}" in template) and name not in (
                        "missing.json", "garbage.bin", "adir"):
                    continue
                out = root / "OUT"
                shutil.rmtree(out, ignore_errors=True)
                shutil.rmtree(root / "missing.json", ignore_errors=True)  # an old `--data` made it
                out.mkdir()
                cmd = template.replace("{F}", str(root / name)).replace("OUT/", f"{out}/")
                start = time.monotonic()
                try:
                    p = subprocess.run(f"{sys.executable} -m referee_app.cli {cmd}", shell=True, cwd=code,
                                       capture_output=True, text=True, timeout=120,
                                       env=os.environ | {"PYTHONPATH": str(code)})
                    rc: int | str = p.returncode
                    err, said = p.stderr, p.stdout
                except subprocess.TimeoutExpired:
                    rc, err, said = "TIMEOUT", "", ""
                written = sorted(str(x.relative_to(out)) for x in out.rglob("*") if x.is_file())
                lines = [line for line in err.strip().splitlines() if line.strip()]
                bad = []
                if rc in (0, "TIMEOUT"):
                    bad.append(f"rc={rc}")
                if "Traceback" in err or "Traceback" in said:
                    bad.append("traceback")
                if len(lines) > 2:
                    bad.append(f"{len(lines)} stderr lines")
                if written:
                    bad.append(f"wrote {written[:3]}")
                runs += 1
                bad_runs += bool(bad)
                last = (lines[-1] if lines else said.strip()[-100:])[:140]
                shown = cmd.replace(f"{root}/", "")[:70]
                print(f"{'BAD' if bad else 'ok '} {time.monotonic() - start:5.1f}s rc={rc} {shown:70s} "
                      f"{'; '.join(bad)} | {last}", flush=True)
    print(f"{bad_runs} BAD of {runs} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
