"""Match-log appends per second: durable (write + flush + fsync, what MatchLogWriter does) against
the same lines written without fsync (flush only) as the baseline, in the same run and folder.

The folder matters: fsync on tmpfs costs nothing, on a disk it waits for the device. By default a
temporary folder is made in the current directory (usually a real disk); --dir picks another.
Usage: python bench/log_append.py [--records 500] [--dir DIR]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from referee_app.matchlog import Header, MatchLogWriter, _line, read_log

VERDICT = {"legal": True, "rule": "grid.place", "reason": "Player 1 places 7 on b2", "consequence": "none"}
ACTION = {"type": "place", "piece": 7, "cell": "b2"}


def durable(path: Path, n: int) -> float:
    start = time.perf_counter()
    with MatchLogWriter.create(path, Header("highway-grid", ["A", "B"])) as w:
        for i in range(n):
            w.action(ACTION, "7@b2", VERDICT, "vision", 0.93, frame=i)
    return n / (time.perf_counter() - start)


def unsynced(path: Path, n: int) -> float:
    start = time.perf_counter()
    with open(path, "wb") as fh:
        fh.write(_line(Header("highway-grid", ["A", "B"]).to_json()))
        for i in range(n):
            rec = {"type": "action", "action": ACTION, "notation": "7@b2", "verdict": VERDICT,
                   "source": "vision", "confidence": 0.93, "frame": i, "seq": i + 1, "t": "x"}
            fh.write(_line(rec))
            fh.flush()
    return n / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=500)
    ap.add_argument("--dir", type=Path, default=Path.cwd())
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix=".bench-log-", dir=args.dir))
    try:
        with_fsync = durable(folder / "durable.jsonl", args.records)
        without = unsynced(folder / "plain.jsonl", args.records)
        assert len(read_log(folder / "durable.jsonl").records) == args.records
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"folder: {args.dir} ({args.records} action records each)")
    print(f"flush only (baseline): {without:>10,.0f} appends/s")
    print(f"flush + fsync        : {with_fsync:>10,.0f} appends/s  ({with_fsync / without:.3f} of baseline)")


if __name__ == "__main__":
    main()
