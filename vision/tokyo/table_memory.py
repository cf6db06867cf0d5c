"""One camera's table estimate kept from frame to frame (see `foreground.TableEstimate`).

A referee's camera watches one table: the estimate of it (half of the piece masks' cost) is made from
a frame showing no hand or large object and used for the frames that follow while their light holds.
A frame whose light moved (`TableEstimate.fits`) gets its own estimate, kept from then on if its view
shows nothing large; a view with a hand never gives the estimate kept (the hand would be part of the
table there)."""

from __future__ import annotations

import numpy as np

from vision.tokyo.foreground import TableEstimate, estimate_table


class TableMemory:
    def __init__(self) -> None:
        self._kept: TableEstimate | None = None
        self.made = 0  # estimates made (not taken from memory): how often the light moved, for benches

    def estimate(self, image: np.ndarray, thumb: np.ndarray | None = None) -> TableEstimate:
        """The kept estimate when `image` fits it, else `image`'s own (not kept until `keep`); `thumb`:
        `foreground.thumbnail(image)`, where the caller has it."""
        if self._kept is not None and self._kept.fits(image, thumb=thumb):
            return self._kept
        self.made += 1
        return estimate_table(image, thumb)

    def fitting(self, image: np.ndarray, thumb: np.ndarray | None = None) -> TableEstimate | None:
        """The kept estimate when `image` fits it (the same light), else None (nothing is made)."""
        return self._kept if self._kept is not None and self._kept.fits(image, thumb=thumb) else None

    @property
    def kept(self) -> TableEstimate | None:
        """The estimate kept (None: none yet); the same object until `keep` or `clear`."""
        return self._kept

    def keep(self, estimate: TableEstimate) -> None:
        """Use `estimate` from now on (the reader calls this once a view shows no large object)."""
        self._kept = estimate

    def clear(self) -> None:
        self._kept = None
