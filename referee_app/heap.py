"""Keep a long-running referee's memory from creeping up on glibc (Linux).

glibc gives each thread that allocates its own heap arena (up to 8 per core) and, once a large
block has been freed, raises its mmap threshold so later large blocks (camera frames, a reader's
arrays: megabytes each) come from those arenas too, where freed space is rarely handed back. The
referee runs a thread per watched match, a new one at every demo replay, passing frames between
them: an idle demo grew by about 90 MB a replay, 334 -> 600 MB in three (docs/referee.md, "The
demo replays"). Two arenas and a fixed 1 MB mmap threshold (a frame is mapped on its own and given
back when freed) keep it near its first replay's size. Elsewhere (macOS, Windows, musl) nothing is
done; a user's own MALLOC_ARENA_MAX / MALLOC_MMAP_THRESHOLD_ wins.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

M_MMAP_THRESHOLD = -3  # glibc's malloc.h
M_ARENA_MAX = -8
ARENAS = 2
MMAP_THRESHOLD = 1 << 20


def limit_heap_growth() -> dict[str, int]:
    """Set glibc's arena count and mmap threshold for this process; returns what was set."""
    name = ctypes.util.find_library("c")
    try:
        mallopt = ctypes.CDLL(name).mallopt if name else None
    except (OSError, AttributeError):
        mallopt = None
    if mallopt is None:
        return {}
    done = {}
    for env, option, value in (("MALLOC_ARENA_MAX", M_ARENA_MAX, ARENAS),
                               ("MALLOC_MMAP_THRESHOLD_", M_MMAP_THRESHOLD, MMAP_THRESHOLD)):
        if env not in os.environ and mallopt(option, value) == 1:  # mallopt returns 1 on success
            done[env] = value
    return done
