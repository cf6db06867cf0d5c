"""The camera check of a running match (issue 20 item 4): when `serve` watches a camera, a video or a
folder of frames, the check `camera check` runs (referee_app.camera_setup.run_check) is run on the first
usable frame of camera 1, in a thread of its own so the referee loop never waits for it, and its
report is kept on the loop (`loop.camera_checks[1]`, shown by GET /api/matches/<id>/cameras and
the page beside the live view).

A frame in which the board's markers are not found (a webcam's first dark frames, a hand over the
board) is not the set-up: the check is tried again on a later frame, a few times, before that
answer stands. After the camera was lost and came back (it may have been moved) it runs again.

Tokyo Highway's check calibrates camera 1 from the printed mat (its size: serve --mat, default a3); with one
camera it is outside the envelope and says to add a second, with a second camera (serve --camera2) it
reports camera 1's pose and that two cameras are the documented set-up (no measured verdict), and, with
each camera's calibration (serve --calibration2 ...), which part of the play area no camera sees.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from referee_app import camera_setup
from vision.types import Frame

log = logging.getLogger("referee_app.setup_watch")

TRIES = 5  # frames tried while the markers are not found
RETRY_SECONDS = 2.0  # between those tries


def verdict_text(report: dict[str, Any]) -> str:
    """One line for the page and the log: OK, no verdict (None: Tokyo with two cameras), or the first
    reason and what to change."""
    if report.get("inside_envelope"):
        return "set-up OK"
    if report.get("localised") and report.get("inside_envelope", False) is None:
        return "no measured verdict: " + "; ".join(report.get("reasons") or ["see the report"])
    reasons, advice = report.get("reasons") or [], report.get("advice") or []
    text = "outside the envelope: " + (reasons[0] if reasons else "see the report")
    return text + (f"; {advice[0]}" if advice else "")


class SetupWatch:
    """Runs the set-up check of one loop's camera 1 off the frame path and keeps its state:
    waiting (no frame yet), running, done (with the report), unavailable (a game whose board the
    check does not know) or error."""

    def __init__(self, loop: Any, game: str, check: Callable[[Any, str], dict[str, Any]] | None = None,
                 tries: int | None = None, retry_seconds: float | None = None,
                 cameras: int | None = None, mat: str = "a3") -> None:
        self.loop, self.game = loop, game
        # the loop's cameras: a PairedSource (serve --camera2, --camera-extra) carries the others
        self.cameras = cameras or 1 + len(getattr(getattr(loop, "frames", None), "others", None) or [])
        self.mat, self._source = mat, ""
        self.check = check or self._check
        self.tries = TRIES if tries is None else tries
        self.retry_seconds = RETRY_SECONDS if retry_seconds is None else retry_seconds
        self._lock = threading.Lock()
        self._busy = False
        self._tried = 0
        self._next_try = 0.0
        self._camera_since: float | None = None  # the hub's camera status time at the last check
        self.thread: threading.Thread | None = None
        if game not in camera_setup.CHECK_GAMES:
            known = ", ".join(camera_setup.CHECK_GAMES)
            self._keep("unavailable", f"the set-up check knows the boards of {known}, not {game}")
            return
        self._keep("waiting", "waiting for the camera's first frame")
        loop.on_frame = self.offer

    def _check(self, image: Any, game: str) -> dict[str, Any]:
        """run_check with the match's camera count and the other cameras' calibrations as the loop's
        adapter holds them when the check runs (serve --calibration2 ...: the play area's coverage)."""
        return camera_setup.run_check(image, game, mat=self.mat, cameras=self.cameras,
                                      calibrations=self._other_calibrations(self._source))

    def _other_calibrations(self, source: str) -> list[Any]:
        """Cameras 2, 3 ...'s calibrations, up to the first one the adapter has none for."""
        find = getattr(getattr(self.loop, "adapter", None), "camera_calibration", None)
        out: list[Any] = []
        for camera in range(2, self.cameras + 1) if find is not None else ():
            try:
                calib = find(camera, source)
            except Exception:  # noqa: BLE001 - a calibration the reader cannot load: coverage unchecked
                break
            if isinstance(calib, str):  # the reason there is none
                break
            out.append(calib)
        return out

    def _keep(self, state: str, message: str, report: dict[str, Any] | None = None,
              frame: int | None = None) -> None:
        self.loop.camera_checks[1] = {"state": state, "message": message, "frame": frame, "report": report}

    def _due(self, camera_since: float | None) -> bool:
        state = self.loop.camera_checks[1]
        if state["state"] == "waiting":
            return True
        if camera_since != self._camera_since:  # the camera was lost and is back: check it afresh
            self._tried = 0
            return True
        report = state.get("report") or {}
        unfound = state["state"] == "error" or not report.get("localised")
        return unfound and self._tried < self.tries and time.monotonic() >= self._next_try

    def offer(self, frame: Frame) -> None:
        """Called by the loop with each frame: starts a check when one is due, returns at once."""
        camera_since = (getattr(self.loop.hub, "camera", None) or {}).get("since")
        with self._lock:
            if self._busy or frame.image is None or not self._due(camera_since):
                return
            self._busy, self._camera_since = True, camera_since
            self._tried += 1
        image = frame.image.copy()  # the loop's reader may draw on its frame
        self._keep("running", f"checking frame {frame.index}", self.loop.camera_checks[1].get("report"),
                   frame.index)
        self.thread = threading.Thread(target=self._run, args=(image, frame.index, frame.source_id),
                                       name=f"setup-check-{self.loop.session.match_id}", daemon=True)
        self.thread.start()

    def _run(self, image: Any, index: int, source: str) -> None:
        try:
            self._source = source  # camera 1's: where a bundled match's other calibrations lie
            report = self.check(image, self.game)
        except Exception as exc:  # noqa: BLE001 - a failed check must not touch the match
            log.exception("set-up check of frame %s", index)
            self._keep("error", f"the set-up check failed: {exc}", None, index)
        else:
            report["source"] = source
            self._keep("done", verdict_text(report), report, index)
            log.info("%s: camera set-up check: %s", self.loop.session.match_id, verdict_text(report))
        finally:
            with self._lock:
                self._busy = False
                self._next_try = time.monotonic() + self.retry_seconds


def watch_setup(loop: Any, game: str, mat: str = "a3") -> SetupWatch:
    """Attach the set-up check to a camera loop (before it starts); `mat` is the printed Tokyo mat's
    size (serve --mat), which the other games' checks ignore."""
    return SetupWatch(loop, game, mat=mat)
