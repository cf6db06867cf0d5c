"""Optional numba kernels, compiled (or loaded from numba's cache) and warmed once per process.

Every compiled speed-up in the readers is optional: without numba, or with the module's own
environment switch set (to anything but "0"), the plain NumPy/OpenCV code runs instead."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any


def compiled_once(cache: dict[str, Any], key: str, pure_env: str, compile_: Callable[[], Any],
                  warm: Callable[[Any], object], absent: Any = None) -> Any:
    """`cache[key]`, made on first use: `compile_()` (which gives `absent` without numba), then one
    `warm` call on it so the first frame does not pay for the compilation; `absent` when `pure_env`
    is set."""
    if key not in cache:
        made = absent
        if os.environ.get(pure_env, "") in ("", "0"):
            made = compile_()
            if made is not None and made != absent:  # numba there: warm what it compiled
                warm(made)
        cache[key] = made
    return cache[key]
