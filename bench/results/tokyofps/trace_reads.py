"""Every reader output (repr of `read_tokyo` / `read_tokyo_views` to_dict) and every frame the loop saw
(bench/tokyo_loop.py's --dump record) over the bundled match, optionally held N times with noise A:

    cd CHECKOUT && PYTHONPATH=$PWD python bench/results/tokyofps/trace_reads.py OUT.json [N A]

Two code versions read alike when their files are byte-identical.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path.cwd() / "bench"))
import cv2  # noqa: E402

cv2.setNumThreads(1)
import tokyo_loop as tl  # noqa: E402

import vision.tokyo as V  # noqa: E402
import vision.tokyo.stereo as S  # noqa: E402

OUT: list[tuple[str, str]] = []


def _recorded(kind: str, fn: Any) -> Any:
    def read(*a: Any, **k: Any) -> Any:
        o = fn(*a, **k)
        OUT.append((kind, repr(o.to_dict())))
        return o

    return read


def main() -> None:
    S.read_tokyo = V.read_tokyo = _recorded("view", S.read_tokyo)
    V.read_tokyo_views = _recorded("views", V.read_tokyo_views)
    demo, frames = tl._frames(None)
    if len(sys.argv) > 2:
        frames = tl.held(frames, int(sys.argv[2]), int(sys.argv[3]))
    _, seen = tl.run_loop(frames, demo, record=True)
    Path(sys.argv[1]).write_text(json.dumps({"reads": OUT, "seen": seen}))
    print(len(OUT), "reads", len(seen["frames"]), "frames")


if __name__ == "__main__":
    main()
