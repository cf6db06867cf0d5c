"""A dependency-free progress bar on stderr (datasets take minutes to render)."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import TextIO, TypeVar

T = TypeVar("T")


def progress(items: Iterable[T], total: int, label: str, stream: TextIO | None = None,
             enabled: bool = True) -> Iterator[T]:
    """Yield `items`, redrawing `label [#####.....] k/total  eta` at most ten times a second."""
    out = stream or sys.stderr
    start = last = time.perf_counter()
    k = 0
    for k, item in enumerate(items, 1):
        yield item
        now = time.perf_counter()
        if enabled and (now - last > 0.1 or k == total):
            last = now
            done = int(30 * k / max(total, 1))
            eta = (now - start) / k * (total - k)
            out.write(f"\r{label} [{'#' * done}{'.' * (30 - done)}] {k}/{total}  eta {eta:4.0f}s")
            out.flush()
    if enabled and k:
        out.write("\n")
        out.flush()
