"""The referee loop: frames -> observations -> decoder (or stability gate) -> verdict.

Never writes the board from one frame (ChessCam's and ScrabbleVision's lesson). A game whose adapter
enumerates candidates is decoded (referee_app/decoder): the readers' beliefs are averaged over the
usable frames, and once the likeliest table has held for `frames_needed` frames the candidate moves
that could have happened - legal and illegal - are scored against it; the best is committed when
it leads clearly, the best few are put to the players when it does not, and "table disagrees" is
raised only when no candidate explains a persistent reading. A game without candidates keeps the
older path: `frames_needed` consecutive equal readings, then the adapter's `explain`. A view
blocked by a hand or glare resets both.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from referee_app import events
from referee_app.decoder.decide import Decoder
from referee_app.games.base import Explanation, GameAdapter, Observation
from referee_app.hub import Hub
from referee_app.session import MatchSession, SessionError
from vision.types import Frame, VisionError

log = logging.getLogger("referee_app.loop")


def _jpeg(image: np.ndarray, quality: int) -> bytes | None:
    """`image` as JPEG bytes, or None when it cannot be encoded."""
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return buf.tobytes() if ok else None


class StabilityGate:
    """Passes an observation on once `frames_needed` consecutive usable frames read the same items,
    and only when that settled reading differs from the last one passed on."""

    def __init__(self, frames_needed: int = 3) -> None:
        self.frames_needed = max(1, frames_needed)
        self._run: list[Observation] = []
        self.last_settled: dict[str, Any] | None = None

    def push(self, obs: Observation) -> Observation | None:
        if obs.blocked:
            self._run.clear()
            return None
        if self._run and self._run[-1].items != obs.items:
            self._run.clear()
        self._run.append(obs)
        if len(self._run) < self.frames_needed:
            return None
        if obs.items == self.last_settled:
            return None
        self.last_settled = dict(obs.items)
        # confidences: the least sure of the agreeing frames, item by item
        conf = {k: min(o.confidence.get(k, 1.0) for o in self._run) for k in obs.items}
        return Observation(dict(obs.items), conf, None, list(obs.warnings), obs.annotated,
                           obs.frame_index, obs.timestamp)


@dataclass
class LoopStats:
    frames: int = 0
    unreadable: int = 0
    settled: int = 0
    judged: int = 0
    mismatches: int = 0
    confirmations: int = 0
    errors: int = 0
    latencies: list[float] | None = None  # seconds from frame capture to its verdict event


@dataclass
class CameraPicture:
    """A camera's latest picture for the page: annotated with what its view read, or the plain
    frame (or none, with `note` saying why) when the reading did not use that camera."""

    camera: int  # 1 = the first camera
    source: str
    image: np.ndarray | None = None
    annotated: bool = False
    frame_index: int = -1
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"camera": self.camera, "source": self.source, "frame": self.frame_index,
                "annotated": self.annotated, "has_picture": self.image is not None, "note": self.note}


class RefereeLoop:
    def __init__(self, hub: Hub, session: MatchSession, adapter: GameAdapter, frames: Iterable[Frame],
                 frames_needed: int = 3, confirm_below: float = 0.6, publish_video: bool = True) -> None:
        self.hub = hub
        self.session = session
        self.adapter = adapter
        self.frames = frames
        self.gate = StabilityGate(frames_needed)
        decodes = type(adapter).candidates is not GameAdapter.candidates
        self.decoder: Decoder | None = (Decoder(adapter, frames_needed, confirm_below=confirm_below)
                                        if decodes else None)
        self.confirm_below = confirm_below
        self.publish_video = publish_video
        self.stats = LoopStats(latencies=[])
        self.pending: list[tuple[str, float]] = []  # candidates awaiting the players' confirmation
        self.message = "starting"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_mismatch: str | None = None
        self.finished = threading.Event()
        # every camera's latest picture (camera 1 also goes to the hub's MJPEG view), JPEG on request
        self._pictures: dict[int, CameraPicture] = {}
        self._jpegs: dict[int, tuple[int, bytes]] = {}  # camera -> (frame index, JPEG) last encoded
        self._pictures_lock = threading.Lock()
        others = getattr(frames, "others", None)  # a PairedSource: its cameras are known before a frame
        if isinstance(others, list):
            self._pictures[1] = CameraPicture(1, str(getattr(frames, "source_id", "")), note="no frame yet")
            for cam, other in enumerate(others, start=2):
                self._pictures[cam] = CameraPicture(cam, str(getattr(other, "source_id", "")),
                                                    note="no frame yet")
        self.on_frame: Callable[[Frame], None] | None = None  # sees each frame first: the set-up check
        self.camera_checks: dict[int, dict[str, Any]] = {}  # camera -> its set-up check (setup_watch.py)
        hub.loops[session.match_id] = self

    # -- control -------------------------------------------------------------------------------
    def start(self) -> RefereeLoop:
        self._thread = threading.Thread(target=self.run, name=f"referee-{self.session.match_id}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def status(self) -> dict[str, Any]:
        return {"message": self.message, "frames": self.stats.frames, "judged": self.stats.judged,
                "mismatches": self.stats.mismatches, "pending": [n for n, _ in self.pending],
                "finished": self.finished.is_set(), "cameras": self.cameras()}

    # -- the cameras' pictures for the page -------------------------------------------------------
    def cameras(self) -> list[dict[str, Any]]:
        """Each camera of this loop (1 = the first) with what its latest picture is."""
        with self._pictures_lock:
            shown = [p.to_json() for _, p in sorted(self._pictures.items())]
        return [{**c, "check": self.camera_checks.get(c["camera"])} for c in shown]

    def camera_jpeg(self, camera: int) -> bytes:
        """Camera `camera`'s latest picture as JPEG. KeyError when the loop has no such camera,
        LookupError (with the reason) when it has sent no picture yet."""
        with self._pictures_lock:
            picture = self._pictures[camera]
            done = self._jpegs.get(camera)
        if picture.image is None:
            raise LookupError(picture.note or "no picture yet")
        if done is not None and done[0] == picture.frame_index:
            return done[1]
        jpeg = _jpeg(picture.image, 80)
        if jpeg is None:
            raise LookupError(f"camera {camera}'s picture could not be encoded")
        with self._pictures_lock:
            self._jpegs[camera] = (picture.frame_index, jpeg)
        return jpeg

    def _keep_pictures(self, frame: Frame, obs: Observation) -> None:
        """Camera 1's annotated frame and, for a paired frame, every other camera's: annotated when
        the adapter read that view (`take_view_images`), else plain, else none and why."""
        take = getattr(self.adapter, "take_view_images", None)
        annotated: dict[int, np.ndarray] = take() if take is not None else {}
        pictures = {1: CameraPicture(1, frame.source_id, obs.annotated if obs.annotated is not None
                                     else frame.image, obs.annotated is not None, frame.index)}
        for cam, view in enumerate(getattr(frame, "others", None) or [], start=2):
            image = annotated.get(cam, view.image)
            pictures[cam] = CameraPicture(cam, view.source, image, cam in annotated, frame.index,
                                          "" if image is not None else view.note)
        with self._pictures_lock:
            for cam, picture in pictures.items():
                if picture.image is None and cam in self._pictures:  # keep its last picture to show
                    kept = self._pictures[cam]
                    picture.image, picture.annotated, picture.frame_index = (kept.image, kept.annotated,
                                                                             kept.frame_index)
                self._pictures[cam] = picture

    # -- the loop ------------------------------------------------------------------------------
    def _frames(self) -> Iterable[Frame | None]:
        """Frames from a plain iterable, or from a vision FrameSource with its lost/ended status
        turned into None (lost) and the end of the loop (ended/closed)."""
        source = self.frames
        if not hasattr(source, "read") or not hasattr(source, "status"):
            yield from source
            return
        was_lost = False
        while not self._stop.is_set() and source.status.state not in ("ended", "closed"):
            frame = source.read()
            if frame is not None:
                was_lost = False
                yield frame
            elif source.status.state == "lost":
                if not was_lost:
                    was_lost = True
                    yield None
                time.sleep(0.05)

    def run(self) -> None:
        frames = iter(self._frames())
        try:
            while not self._stop.is_set():
                try:
                    frame = next(frames)
                except StopIteration:
                    break
                except VisionError as exc:  # the source gave something unreadable: say so, go on
                    self.stats.unreadable += 1
                    self.message = f"a frame could not be read: {exc}"
                    log.warning("frame source: %s", exc)
                    continue
                except Exception as exc:  # a broken source ends the loop, never the referee
                    self.message = f"the frame source failed: {exc}"
                    log.exception("frame source failed")
                    break
                if frame is None:  # a source reports a lost camera by yielding None
                    self.hub.set_camera("lost", "the camera stopped sending frames; waiting for it",
                                        self.session.match_id)
                    self.message = "camera lost: waiting for it to come back"
                    continue
                if self.hub.camera.get("status") != "ok":
                    self.hub.set_camera("ok", f"reading {frame.source_id}", self.session.match_id)
                try:
                    self.process(frame)
                except Exception as exc:  # a reader or adapter bug must not stop the match
                    self.stats.errors += 1
                    self.message = f"frame {frame.index} could not be refereed: {exc}"
                    log.exception("referee loop: frame %s", frame.index)
            self.message = "the recorded match is over" if not self._stop.is_set() else "stopped"
        finally:
            close = getattr(self.frames, "close", None)
            if callable(close):  # release the camera(s): a live second camera's reader thread stops too
                try:
                    close()
                except Exception:  # noqa: BLE001 - the match is over either way
                    log.exception("closing the frame source")
            self.finished.set()

    def process(self, frame: Frame) -> Explanation | None:
        self.stats.frames += 1
        if self.on_frame is not None:  # must return at once (the set-up check runs in its own thread)
            self.on_frame(frame)
        watch = getattr(self.adapter, "watch", None)
        if watch is not None:  # an adapter that reads the frame against the match as it stands
            watch(self.session.state)
        try:
            obs = self.adapter.read(frame)
        except VisionError as exc:
            self.stats.unreadable += 1
            self.message = f"frame {frame.index} unreadable: {exc}"
            return None
        finally:
            self._log_notices()
        obs.frame_index, obs.timestamp = frame.index, frame.timestamp
        self._keep_pictures(frame, obs)
        if self.publish_video:  # encoded only when a viewer of the video asks for this frame
            image = obs.annotated if obs.annotated is not None else frame.image
            self.hub.publish_frame(lambda: _jpeg(image, 75), self.session.match_id)
        if obs.blocked:
            self.message = f"view blocked: {obs.blocked}"
        if self.decoder is not None:
            explanation = self.decoder.push(obs, self.session.state)
            if explanation is None:
                return None
        else:
            settled = self.gate.push(obs)
            if settled is None:
                return None
            explanation = self.adapter.explain(self.session.state, settled)
        self.stats.settled += 1
        self.message = f"watching (frame {frame.index})"
        self._handle(explanation, frame)
        if self.decoder is not None:
            self.decoder.note_state(self.session.state)
        return explanation

    def _log_notices(self) -> None:
        """What the adapter says once about its cameras (e.g. a second camera gone: one view) goes
        into the match log and onto the page as a camera event: (status, message) or (status,
        message, data) with the event's other fields (Tokyo Highway: `views`, `cameras`)."""
        take = getattr(self.adapter, "take_notices", None)
        for status, message, *more in take() if take is not None else []:
            log.warning("%s: %s", self.session.match_id, message)
            self.session.note(events.CAMERA, message, status=status, **(more[0] if more else {}))

    def _handle(self, ex: Explanation, frame: Frame) -> None:
        sid = self.session
        if ex.action is not None and ex.confidence >= self.confirm_below:
            self.pending = []
            self._last_mismatch = None
            try:
                sid.submit(ex.action, source="vision", confidence=ex.confidence, frame=frame.index,
                           cells=ex.cells, margin=ex.margin)
            except SessionError as exc:
                sid.note(events.MISMATCH, f"the camera's reading could not be judged: {exc}", cells=ex.cells)
                return
            self.stats.judged += 1
            if self.stats.latencies is not None:
                self.stats.latencies.append(time.time() - frame.timestamp)
            return
        candidates = list(ex.candidates)
        if ex.action is not None:
            candidates.insert(0, (ex.action, ex.confidence))
        if candidates:
            self.pending = [(a.notation(), c) for a, c in candidates]
            self.stats.confirmations += 1
            extra = {"margin": round(ex.margin, 3)} if ex.margin is not None else {}
            sid.note(events.CONFIRM, "the camera is not sure what happened: please confirm the move",
                     candidates=[{"notation": n, "confidence": round(c, 3)} for n, c in self.pending],
                     cells=ex.cells, **extra)
            return
        if ex.mismatch and ex.mismatch != self._last_mismatch:
            self._last_mismatch = ex.mismatch
            self.stats.mismatches += 1
            flagged = {"illegal": True} if ex.flagged else {}  # an illegal placement, not a misread
            sid.note(events.MISMATCH, ex.mismatch, cells=ex.cells, **flagged)

    def confirm(self, notation: str) -> dict[str, Any]:
        """The players chose one of the pending candidates (or typed the move themselves)."""
        action = self.session.parse(notation)
        before = self.session.state
        played = self.session.submit(action, source="manual", confidence=1.0,
                                     cells=self.adapter.action_cells(action))
        self.pending = []
        judged = getattr(self.adapter, "judged_illegal", None)
        if judged is not None and not played.verdict.legal:
            # as when the decoder commits an illegal move itself: the adapter forgets what it kept of
            # the pieces the players will take back (Tokyo Highway: tuning seed 63's tenth move, asked
            # and confirmed, its scene's kept places read as a column on the take-back scene)
            judged(before, action)
        return {"seq": played.seq, "verdict": played.verdict.to_json()}
