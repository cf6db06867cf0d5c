"""Frame sources behind one interface: a camera index, a video file, a folder of images, a network
stream URL. Each `read()` gives a `vision.types.Frame` (timestamp, source id) or None when no frame is
available right now; `status` says why (the app shows it). Sources never raise on a lost camera or a
bad image: a live source that stops delivering is marked "lost" and re-opened with exponential
back-off; unreadable images in a folder are reported in `skipped` and passed over.
"""

from __future__ import annotations

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
