"""A stand-in for cv2.VideoCapture in page and serve tests: camera index 1 opens and shows a still
picture (a copy of the subclass's `view` each read); every other index does not open. `opened`
counts the opens, so a test can check that a refusal came before any camera was opened."""

from __future__ import annotations

import numpy as np


class StillCamera:
    view: np.ndarray | None = None
    opened = 0

    def __init__(self, index: int) -> None:
        self.index = index
        type(self).opened += 1

    def isOpened(self) -> bool:  # noqa: N802 - cv2's name
        return self.index == 1

    def read(self):
        return True, type(self).view.copy()

    def release(self) -> None:
        pass
