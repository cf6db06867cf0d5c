"""Tokyo Highway frames that show nothing new are not read again.

A camera watching a still table sends the same scene frame after frame, up to sensor noise; the full
reading (two views, about half a CPU second) is needed only when something moved. `StillViews` keeps
each camera's image of the last frame read and hands it back for a new image that differs from it
nowhere (vision.tiles.reuse.image_changed: every 32-pixel square of the frame compared, so a hand
or a new piece anywhere is a change): the pieces are then read as in that image, whose reading is
kept, while the builds are still scored on the new frame's own pixels (their scores are the
decoder's evidence: each frame's noise is its own look at the table). The image kept is the one read,
not the latest: a slow drift adds up and is read once it shows. `Remembered` is the adapter's whole
answer for one frame against one state of the match (the reading, the builds scored against the
match, the annotated pictures): the very same picture (a recorded match holding a scene) against
the same match gets the same answer, so it is given again without the piece maps and build scores;
and once two still frames in a row were answered alike, surely (`stands`), that answer is given to
the still frames that follow: a live camera's still table then costs the noise test alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np

from referee_app.games.base import Observation
from referee_app.games.tokyo_builds import BUILD_KEY
from vision.beliefs import REST
from vision.tiles.reuse import image_changed


class StillViews:
    """Per camera (1 = the first), the image of the last frame read in full and its digest."""

    def __init__(self, digest: Callable[[np.ndarray], str]) -> None:
        self._digest = digest
        self._kept: dict[int, tuple[np.ndarray, str]] = {}

    def settle(self, camera: int, image: np.ndarray) -> tuple[np.ndarray, str, bool]:
        """(the kept image, its digest, whether `image` is that very picture) when `image` shows no
        change from it, else (`image` - a copy, kept from now -, its digest, True)."""
        kept = self._kept.get(camera)
        if kept is not None and kept[0].shape == image.shape:
            diff = cv2.absdiff(image, kept[0])  # one difference for both tests
            if not diff.any():
                return (*kept, True)
            if not image_changed(image, kept[0], diff=diff):
                return (*kept, False)
        copy = image.copy()  # a camera may write its next frame into the same buffer
        self._kept[camera] = copy, self._digest(copy)
        return (*self._kept[camera], True)

    def clear(self) -> None:
        self._kept.clear()


class ViewReads:
    """Per camera, its last reading of its own (vision.tokyo.read_tokyo's, before the views are fused),
    the picture and calibration it was read from and its hand probe's kept estimate after it. Of a
    two-camera frame often one camera's picture is still (StillViews hands back the very image read)
    while the other's changed (a hand or shadow in its view alone, its noise past the still test):
    the frame's reading is made again, and the still camera's reading is the one it had. That is
    exact: `read_tokyo` reads a picture the same way each time, but for its hand probe, which it tests
    against the camera's estimate kept after the last reading; the reading is given again only while
    that is the estimate kept right after it (the same object: no reading of the camera since), and
    reading the picture again would find no other hand against its own estimate than its reading did
    and keep an equal estimate."""

    def __init__(self) -> None:
        self._kept: dict[int, tuple[np.ndarray, Any, Any, Any]] = {}

    @staticmethod
    def _memory(probes: list[Any] | None, k: int) -> Any:
        return None if probes is None else probes[k].kept

    def take(self, cameras: list[int], images: list[np.ndarray], calibs: list[Any],
             probes: list[Any] | None) -> list[Any]:
        """Per camera, its kept reading where it was read from this very picture (the same array) and
        calibration with the probe as it left it, else None (to be read): read_tokyo_views' `read`."""
        out = []
        for k, cam in enumerate(cameras):
            kept = self._kept.get(cam)
            same = kept is not None and kept[0] is images[k] and kept[1] is calibs[k] and \
                kept[2] is self._memory(probes, k)
            out.append(kept[3] if same else None)
        return out

    def put(self, cameras: list[int], images: list[np.ndarray], calibs: list[Any],
            probes: list[Any] | None, reads: list[Any]) -> None:
        """Keep the readings `read_tokyo_views` filled in (a view after a hand is not read: None)."""
        for k, cam in enumerate(cameras):
            if reads[k] is not None:
                self._kept[cam] = (images[k], calibs[k], self._memory(probes, k), reads[k])

    def clear(self) -> None:
        self._kept.clear()


@dataclass
class Remembered:
    """The adapter's answer to one frame (`key`: its images and calibrations) against `state`."""

    key: str
    state: Any
    table: Any  # the TableRead
    observation: Observation
    builds: Any
    modelled: bool
    view_images: dict[int, np.ndarray]
    exact: bool = True  # made from the kept picture itself (not from a noisy frame read as it)
    settled: bool = False  # agreed with the answer before it (see `stands`): it stands for still frames

    def answer(self) -> Observation:
        """A copy of the observation for the loop to stamp (frame index, time) and the decoder to read."""
        o = self.observation
        return replace(o, items=dict(o.items), confidence=dict(o.confidence), warnings=list(o.warnings),
                       beliefs=dict(o.beliefs))


# a build believed less than this is scored afresh on every still frame: the decoder's evidence for it
# is each frame's own look at the table (as the dice road's unsure zones are read on every frame)
SURE = 0.9


def stands(last: Remembered | None, now: Remembered) -> bool:
    """Whether `now` (an answer to a frame read as `last`'s kept pictures, against the same state of the
    match) can stand for the still frames that follow: both answers gave the same items (pieces and
    likeliest build), warnings and block, and the build, if any is scored, is believed at least SURE.
    Two answers must agree: one noisy frame's reading is confirmed by the next before it is kept."""
    if last is None or last.key != now.key or last.state is not now.state:
        return False
    a, b = last.observation, now.observation
    if (a.items, a.blocked, a.warnings) != (b.items, b.blocked, b.warnings):
        return False
    belief = b.beliefs.get(BUILD_KEY)
    return belief is None or max((v for k, v in belief.items() if k != REST), default=1.0) >= SURE
