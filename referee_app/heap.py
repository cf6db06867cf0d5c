"""Keep a long-running referee's memory from creeping up on glibc (Linux).

glibc gives each thread that allocates its own heap arena (up to 8 per core) and, once a large
block has been freed, raises its mmap threshold so later large blocks (camera frames, a reader's
arrays: megabytes each) come from those arenas too, where freed space is rarely handed back. The
referee runs a thread per watched match, a new one at every demo replay, passing frames between
them: an idle demo grew by about 90 MB a replay, 334 -> 600 MB in three (docs/referee.md, "The
demo replays"). Two arenas hold it near 400 MB (716 MB without, six replays) at no measured CPU cost;
a fixed 1 MB mmap threshold as well holds it near 300 MB but costs the readers a tenth more CPU (a
fresh mapping, page faults included, for every frame-sized array), so it is left to the user
(MALLOC_MMAP_THRESHOLD_). Elsewhere (macOS, Windows, musl) nothing is done; a user's own
MALLOC_ARENA_MAX wins.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

M_ARENA_MAX = -8  # glibc's malloc.h
ARENAS = 2


def limit_heap_growth() -> dict[str, int]:
    """Set glibc's arena count for this process (before its threads start); returns what was set."""
    name = ctypes.util.find_library("c")
    try:
        mallopt = ctypes.CDLL(name).mallopt if name else None
    except (OSError, AttributeError):
        mallopt = None
    if mallopt is None:
        return {}
    done = {}
    if "MALLOC_ARENA_MAX" not in os.environ and mallopt(M_ARENA_MAX, ARENAS) == 1:  # 1: success
        done["MALLOC_ARENA_MAX"] = ARENAS
    return done
