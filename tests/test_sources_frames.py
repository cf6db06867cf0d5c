"""Frame sources: folders (with unreadable files skipped and reported), video files, and a live
camera that disappears and comes back (re-opened with back-off, never a crash)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.sources import CaptureSource, FolderSource, VideoFileSource, open_source, read_image
from vision.types import VisionError


def test_folder_skips_and_reports_bad_images(tmp_path) -> None:
    img = np.full((40, 60, 3), 100, np.uint8)
    cv2.imwrite(str(tmp_path / "a.png"), img)
    (tmp_path / "b.jpg").write_bytes(b"")
    (tmp_path / "c.jpg").write_bytes(b"not really a jpeg")
    cv2.imwrite(str(tmp_path / "d.jpg"), img)
    (tmp_path / "notes.txt").write_text("ignored")
    src = open_source(str(tmp_path))
    assert isinstance(src, FolderSource)
    frames = list(src)
    assert [f.index for f in frames] == [0, 1] and frames[0].source_id == f"folder:{tmp_path.name}"
    assert src.skipped == [("b.jpg", "empty file"), ("c.jpg", "not a decodable image")]
    assert src.status.state == "ended" and "2 skipped" in src.status.message


def test_empty_folder_and_missing_paths(tmp_path) -> None:
    assert FolderSource(tmp_path).read() is None
    with pytest.raises(VisionError, match="not a camera index, stream URL, folder"):
        open_source(str(tmp_path / "nope.mp4"))
    with pytest.raises(VisionError, match="empty file"):
        (tmp_path / "e.png").write_bytes(b"")
        read_image(tmp_path / "e.png")


def test_video_file_frames_have_media_time(tmp_path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    if not writer.isOpened():
        pytest.skip("no video encoder in this OpenCV build")
    for k in range(5):
        writer.write(np.full((48, 64, 3), k * 40, np.uint8))
    writer.release()
    src = open_source(str(path))
    assert isinstance(src, VideoFileSource)
    frames = list(src)
    assert len(frames) == 5 and frames[1].timestamp == pytest.approx(0.1, abs=0.02)
    assert src.status.state == "ended"
    (tmp_path / "junk.mp4").write_bytes(b"12345")
    with pytest.raises(VisionError, match="junk.mp4"):
        VideoFileSource(tmp_path / "junk.mp4")


class _FakeCamera:
    """A capture that delivers `good` frames, then fails; opening it fails while `plugged` is False."""

    plugged = True
    opened = 0

    def __init__(self, target) -> None:
        type(self).opened += 1
        self.ok = type(self).plugged
        self.left = 3

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return self.ok

    def read(self):
        if self.left <= 0:
            return False, None
        self.left -= 1
        return True, np.zeros((20, 30, 3), np.uint8)

    def release(self) -> None:
        self.ok = False


def test_lost_camera_is_reported_and_reopened_with_backoff() -> None:
    now = [100.0]
    _FakeCamera.plugged, _FakeCamera.opened = True, 0
    cam = CaptureSource(0, opener=_FakeCamera, clock=lambda: now[0], fail_after=2)
    frames = [cam.read() for _ in range(3)]
    assert all(f is not None and f.source_id == "camera:0" for f in frames)
    _FakeCamera.plugged = False  # unplugged: reads fail, then re-opening fails
    assert cam.read() is None and cam.status.state == "ok"
    assert cam.read() is None and cam.status.state == "lost"
    assert cam.read() is None  # first re-open attempt, fails
    assert cam.status.reopen_attempts == 1 and cam.status.next_retry == pytest.approx(100.5)
    assert cam.read() is None and _FakeCamera.opened == 2  # waiting: no new attempt yet
    now[0] = 100.6
    cam.read()
    assert cam.status.reopen_attempts == 2 and cam.status.next_retry == pytest.approx(101.6)
    _FakeCamera.plugged = True
    now[0] = 102.0
    assert cam.read() is None and cam.status.state == "ok"  # re-opened
    assert cam.read() is not None
    cam.close()
    assert cam.read() is None and cam.status.state == "closed"


def test_opener_exception_is_a_status_not_a_crash() -> None:
    def boom(target):
        raise RuntimeError("driver exploded")

    cam = CaptureSource("rtsp://example.invalid/stream", opener=boom, clock=lambda: 0.0)
    assert cam.status.state == "lost" and "driver exploded" in cam.status.message
    assert cam.source_id == "stream:rtsp://example.invalid/stream"
