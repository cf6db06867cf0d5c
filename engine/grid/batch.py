"""Best-path values of many full or partial 4x4 boards at once (numpy), for benchmarks, analysis
and training data: one matrix product with the 16x20 path-incidence matrix of each player."""

from __future__ import annotations

import numpy as np

from engine.grid.paths import CELLS, PATHS

# INCIDENCE[seat][cell, path] = 1 when the path runs through the cell.
INCIDENCE = np.zeros((2, CELLS, 20), dtype=np.int32)
for _seat in (0, 1):
    for _i, _path in enumerate(PATHS[_seat]):
        INCIDENCE[_seat, list(_path), _i] = 1


def best_values(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Player 1's best path value, Player 2's) for each row of an (N, 16) array of boards."""
    b = np.asarray(boards, dtype=np.int32)
    if b.ndim != 2 or b.shape[1] != CELLS:
        raise ValueError(f"boards must have shape (N, 16), got {b.shape}")
    return (b @ INCIDENCE[0]).min(axis=1), (b @ INCIDENCE[1]).min(axis=1)
