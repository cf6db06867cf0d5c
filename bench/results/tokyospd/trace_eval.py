"""`eval match` with every read_builds belief written to the file TRACE (repr of each probability and
pixel score, keys sorted): two codes' traces are byte-equal when they read every frame alike.
Usage: TRACE=out.trace PYTHONPATH=<worktree> python trace_eval.py eval match tokyo-highway ..."""

import os
import sys

import referee_app.games.tokyo as tk

out = open(os.environ["TRACE"], "w")
real = tk.read_builds


def traced(*a, **kw):
    b = real(*a, **kw)
    if b is None:
        out.write("None\n")
    else:
        belief = sorted(b.belief.items(), key=lambda kv: str(kv[0]))
        pixels = sorted(getattr(b, "pixels", {}).items())  # 9b69a68 keeps none
        out.write(repr(belief) + " " + repr(pixels) + "\n")
    return b


tk.read_builds = traced
from referee_app.cli import main  # noqa: E402

rc = main(sys.argv[1:])
out.close()
sys.exit(rc)
