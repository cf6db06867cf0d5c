"""Resident memory of the main job (`highway-referee` serving the bundled recordings, replayed over
and over) while nobody uses the page: prints the resident size every 20 s with the replays finished
so far. Run: `python bench/demo_memory.py --seconds 440 --speed 3` (docs/referee.md, "The demo
replays"). Extra MALLOC_* variables in the environment reach the server (glibc reads them)."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def resident_mb(pid: int) -> int:
    return int(Path(f"/proc/{pid}/status").read_text().split("VmRSS:")[1].split()[0]) // 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=440)
    ap.add_argument("--speed", type=float, default=3.0, help="the demo's playback speed (serve --speed)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as data, tempfile.TemporaryFile("w+") as out:
        command = [sys.executable, "-m", "referee_app", "--port", "0", "--data", data,
                   "--speed", str(args.speed)]
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.DEVNULL, text=True)
        start = time.time()
        try:
            while time.time() - start < args.seconds:
                time.sleep(20)
                out.seek(0)
                replays = out.read().count("All recorded matches have been refereed")
                print(f"{time.time() - start:5.0f} s  {resident_mb(proc.pid)} MB  replays done: {replays}",
                      flush=True)
        finally:
            proc.terminate()
            proc.wait(30)


if __name__ == "__main__":
    main()
