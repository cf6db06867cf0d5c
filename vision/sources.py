"""Frame sources behind one interface: a camera index, a video file, a folder of images, a network
stream URL. Each `read()` gives a `vision.types.Frame` (timestamp, source id) or None when no frame is
available right now; `status` says why (the app shows it). Sources never raise on a lost camera or a
bad image: a live source that stops delivering is marked "lost" and re-opened with exponential
back-off; unreadable images in a folder are reported in `skipped` and passed over.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.types import Frame, VisionError

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"}
STREAM_SCHEMES = ("rtsp://", "rtsps://", "http://", "https://", "udp://", "tcp://", "rtmp://")


@dataclass
class SourceStatus:
    """state: "ok", "lost" (waiting to re-open), "ended" (file/folder exhausted), "closed"."""

    state: str = "ok"
    message: str = ""
    since: float = field(default_factory=time.time)
    reopen_attempts: int = 0
    next_retry: float | None = None  # clock time of the next re-open attempt while lost


class FrameSource(ABC):
    def __init__(self, source_id: str, clock: Callable[[], float] = time.time) -> None:
        self.source_id = source_id
        self.clock = clock
        self.status = SourceStatus(since=clock())
        self._index = 0

    @abstractmethod
    def read(self) -> Frame | None:
        """The next frame, or None (see `status`)."""

    def close(self) -> None:
        self._set("closed", "closed")

    def _set(self, state: str, message: str) -> None:
        if state != self.status.state or message != self.status.message:
            self.status = SourceStatus(state, message, self.clock(), self.status.reopen_attempts,
                                       self.status.next_retry)

    def _frame(self, image: np.ndarray, timestamp: float) -> Frame | None:
        try:
            frame = Frame(image, timestamp, self.source_id, self._index)
        except VisionError as exc:
            self._set(self.status.state, f"frame {self._index} rejected: {exc}")
            return None
        self._index += 1
        return frame

    def __iter__(self) -> Iterator[Frame]:
        """Frames until the source ends (live sources never end; close them to stop)."""
        while self.status.state not in ("ended", "closed"):
            frame = self.read()
            if frame is not None:
                yield frame
            elif self.status.state == "lost":
                time.sleep(0.05)

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


Opener = Callable[[Any], Any]  # returns a cv2.VideoCapture-like object (isOpened, read, release, get)


class CaptureSource(FrameSource):
    """A live camera (int index) or network stream (URL) read with cv2.VideoCapture. When frames stop,
    the capture is released and re-opened after 0.5 s, 1 s, 2 s ... up to `max_backoff` seconds."""

    def __init__(self, target: int | str, opener: Opener = cv2.VideoCapture,
                 clock: Callable[[], float] = time.time, max_backoff: float = 30.0,
                 fail_after: int = 5) -> None:
        kind = "camera" if isinstance(target, int) else "stream"
        super().__init__(f"{kind}:{target}", clock)
        self.target = target
        self.opener = opener
        self.max_backoff = max_backoff
        self.fail_after = fail_after  # consecutive failed reads before the source counts as lost
        self._cap: Any = None
        self._failures = 0
        self._open()

    def _open(self) -> None:
        try:
            cap = self.opener(self.target)
            ok = bool(cap is not None and cap.isOpened())
        except Exception as exc:  # noqa: BLE001 - a driver error must not reach the app as a crash
            cap, ok, why = None, False, str(exc)
        else:
            why = "device or stream did not open"
        if ok:
            self._cap, self._failures = cap, 0
            self.status.reopen_attempts = 0
            self.status.next_retry = None
            self._set("ok", f"{self.source_id} open")
            return
        if cap is not None:
            cap.release()
        self._cap = None
        attempts = self.status.reopen_attempts + 1
        delay = min(self.max_backoff, 0.5 * 2 ** (attempts - 1))
        self.status.reopen_attempts = attempts
        self.status.next_retry = self.clock() + delay
        self._set("lost", f"{self.source_id} unavailable ({why}); retry {attempts} in {delay:.1f}s")

    def read(self) -> Frame | None:
        if self.status.state == "closed":
            return None
        if self._cap is None:
            if self.status.next_retry is not None and self.clock() >= self.status.next_retry:
                self._open()
            return None
        try:
            ok, image = self._cap.read()
        except Exception:  # noqa: BLE001
            ok, image = False, None
        if not ok or image is None:
            self._failures += 1
            if self._failures >= self.fail_after:
                self._cap.release()
                self._cap = None
                self.status.reopen_attempts = 0
                self.status.next_retry = self.clock()
                self._set("lost", f"{self.source_id} stopped delivering frames; re-opening")
            return None
        self._failures = 0
        if image.ndim == 2:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        return self._frame(image, self.clock())

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None
        super().close()


class VideoFileSource(FrameSource):
    """A recorded video; timestamps are media time in seconds. Ends at the last frame."""

    def __init__(self, path: Path | str, opener: Opener = cv2.VideoCapture) -> None:
        self.path = Path(path)
        super().__init__(f"file:{self.path.name}")
        if not self.path.is_file():
            raise VisionError(f"{self.path}: no such video file")
        self._cap = opener(str(self.path))
        if not self._cap.isOpened():
            raise VisionError(f"{self.path}: cannot decode this file as video")

    def read(self) -> Frame | None:
        if self.status.state in ("ended", "closed"):
            return None
        ok, image = self._cap.read()
        if not ok or image is None:
            self._set("ended", f"end of {self.path.name} after {self._index} frames")
            return None
        return self._frame(image, float(self._cap.get(cv2.CAP_PROP_POS_MSEC)) / 1000.0)

    def close(self) -> None:
        self._cap.release()
        super().close()


class FolderSource(FrameSource):
    """Image files of a folder in name order; timestamp = file modification time. Unreadable files are
    listed in `skipped` as (name, reason) and passed over."""

    def __init__(self, folder: Path | str) -> None:
        self.folder = Path(folder)
        super().__init__(f"folder:{self.folder.name}")
        if not self.folder.is_dir():
            raise VisionError(f"{self.folder}: no such folder")
        self.files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        self.skipped: list[tuple[str, str]] = []
        self._pos = 0
        if not self.files:
            self._set("ended", f"{self.folder}: no image files ({', '.join(sorted(IMAGE_SUFFIXES))})")

    def read(self) -> Frame | None:
        while self._pos < len(self.files) and self.status.state != "closed":
            path = self.files[self._pos]
            self._pos += 1
            image = read_image(path, errors=self.skipped)
            if image is None:
                self._set("ok", f"skipped {path.name}: {self.skipped[-1][1]}")
                continue
            frame = self._frame(image, path.stat().st_mtime)
            if frame is not None:
                return frame
        if self.status.state != "closed":
            summary = f"{self._index} frames, {len(self.skipped)} skipped"
            self._set("ended", f"end of {self.folder.name}: {summary}")
        return None


def read_image(path: Path | str, errors: list[tuple[str, str]] | None = None) -> np.ndarray | None:
    """A BGR uint8 image from a file, or None with (name, reason) appended to `errors`; raises
    VisionError naming the file when `errors` is None."""
    path = Path(path)
    reason = ""
    image = None
    try:
        data = np.fromfile(str(path), np.uint8)
    except OSError as exc:
        reason = f"cannot read file ({exc.strerror or exc})"
    else:
        if data.size == 0:
            reason = "empty file"
        else:
            image = cv2.imdecode(data, cv2.IMREAD_COLOR)
            if image is None:
                reason = "not a decodable image"
    if image is None:
        if errors is None:
            raise VisionError(f"{path}: {reason}")
        errors.append((path.name, reason))
    return image


def open_source(spec: str | int, **kwargs: Any) -> FrameSource:
    """"0" or 0 -> camera 0; a URL -> network stream; a folder -> its images; a file -> video."""
    if isinstance(spec, int) or (isinstance(spec, str) and spec.strip().isdigit()):
        return CaptureSource(int(spec), **kwargs)
    text = str(spec)
    if text.lower().startswith(STREAM_SCHEMES):
        return CaptureSource(text, **kwargs)
    path = Path(text)
    if path.is_dir():
        return FolderSource(path)
    if path.is_file():
        return VideoFileSource(path, **kwargs)
    raise VisionError(f"{text!r}: not a camera index, stream URL, folder or existing video file")


# -- several cameras in step ------------------------------------------------------------------------
@dataclass
class OtherView:
    """One more camera's image of the moment a PairedFrame was taken; `image` is None when that camera
    gave none, and `note` then says why."""

    image: np.ndarray | None
    source: str = ""
    note: str = ""


@dataclass(init=False)
class PairedFrame(Frame):
    """The first camera's frame carrying the other cameras' images of the same moment: `others[0]` is
    camera 2, `others[1]` camera 3, and so on. `second`, `second_source` and `second_note` are camera
    2's, as they were when only two cameras were read (positional arguments keep that order)."""

    others: list[OtherView]

    def __init__(self, image: np.ndarray, timestamp: float, source_id: str, index: int = 0,
                 second: np.ndarray | None = None, second_source: str = "", second_note: str = "",
                 *, others: list[OtherView] | None = None) -> None:
        super().__init__(image, timestamp, source_id, index)
        if others is None:
            others = [OtherView(second, second_source, second_note)]
        elif second is not None or second_source or second_note:
            raise ValueError("give camera 2 either as second/second_source/second_note or in others")
        self.others = others

    @property
    def cameras(self) -> int:
        """How many cameras this frame was taken by (the first included)."""
        return 1 + len(self.others)

    @property
    def second(self) -> np.ndarray | None:
        return self.others[0].image if self.others else None

    @property
    def second_source(self) -> str:
        return self.others[0].source if self.others else ""

    @property
    def second_note(self) -> str:
        return self.others[0].note if self.others else "no second camera"


class PairedSource(FrameSource):
    """Several sources read in step; each read gives the first's next frame as a PairedFrame carrying
    one image (or a note why none) from each other source. Folders and videos pair by order: the n-th
    image file of each folder (by name, unreadable ones included, so a bad file never shifts the
    pairs), the n-th frame of a video. A live camera or stream pairs by its latest frame: a thread per
    live source keeps reading it so its driver's buffer never lags behind the first camera; a latest
    frame older than `max_age_s` counts as none. The first source's status is this source's status:
    the match ends or waits with the first camera, never with another."""

    def __init__(self, first: FrameSource, *others: FrameSource, max_age_s: float = 1.0) -> None:
        if not others:
            raise ValueError("PairedSource pairs the first source with at least one other")
        super().__init__(first.source_id, first.clock)
        self.first = first
        self.others = list(others)
        self.status = first.status
        self.max_age_s = max_age_s
        self._latest: dict[int, Frame] = {}  # other source's position -> its latest frame (live ones)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: dict[int, threading.Thread] = {}
        for k, other in enumerate(self.others):
            if isinstance(other, CaptureSource):
                thread = threading.Thread(target=self._follow, args=(k,), name=f"camera-{k + 2}", daemon=True)
                self._threads[k] = thread
                thread.start()

    def _follow(self, k: int) -> None:
        source = self.others[k]
        while not self._stop.is_set():
            frame = source.read()
            if frame is None:
                self._stop.wait(0.01)
                continue
            with self._lock:
                self._latest[k] = frame

    def read(self) -> PairedFrame | None:
        frame = self.first.read()
        self.status = self.first.status
        if frame is None:
            return None
        views = [self._other_view(k) for k in range(len(self.others))]
        return PairedFrame(frame.image, frame.timestamp, frame.source_id, frame.index, others=views)

    def _other_view(self, k: int) -> OtherView:
        """Source k's image for the frame the first just gave, or None and why not."""
        other = self.others[k]
        sid = other.source_id
        if k in self._threads:
            with self._lock:
                latest = self._latest.get(k)
            if latest is None:
                return OtherView(None, sid, f"{sid} has sent no frame yet ({other.status.message})")
            age = other.clock() - latest.timestamp
            if age > self.max_age_s:
                why = f"{sid} has sent no frame for {age:.1f} s ({other.status.message})"
                return OtherView(None, sid, why)
            return OtherView(latest.image, sid)
        if isinstance(self.first, FolderSource) and isinstance(other, FolderSource):
            pos = self.first._pos - 1  # the file the first folder just gave
            if pos >= len(other.files):
                return OtherView(None, sid, f"{other.folder} has only {len(other.files)} images")
            errors: list[tuple[str, str]] = []
            image = read_image(other.files[pos], errors=errors)
            if image is None:
                other.skipped.extend(errors)
                return OtherView(None, sid, f"{other.files[pos]}: {errors[-1][1]}")
            return OtherView(image, sid)
        frame = other.read()
        if frame is None:
            return OtherView(None, sid, other.status.message or f"{sid} gave no frame")
        return OtherView(frame.image, sid)

    def close(self) -> None:
        self._stop.set()
        for thread in self._threads.values():
            thread.join(timeout=2)
        self.first.close()
        for other in self.others:
            other.close()
        super().close()
        self.status = self.first.status
