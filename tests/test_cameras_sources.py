"""vision.sources.PairedSource with any number of cameras: folders pair by position, live cameras by
their latest frame (one reader thread each, stopped on close), camera 2 still readable as `second`."""

from __future__ import annotations

import threading
import time

import cv2
import numpy as np
import pytest

from vision.sources import CaptureSource, FolderSource, OtherView, PairedFrame, PairedSource


def grey_folder(root, name: str, levels: list[int]):
    out = root / name
    out.mkdir()
    for k, level in enumerate(levels):
        cv2.imwrite(str(out / f"{k:03d}.png"), np.full((16, 24, 3), level, np.uint8))
    return out


def test_three_folders_pair_by_position_and_a_shorter_one_says_why(tmp_path):
    a = grey_folder(tmp_path, "a", [10, 11, 12])
    b = grey_folder(tmp_path, "b", [20, 21, 22])
    c = grey_folder(tmp_path, "c", [30])
    (b / "001.png").write_bytes(b"not a picture")  # a damaged file leaves its pair empty, shifts nothing
    with PairedSource(FolderSource(a), FolderSource(b), FolderSource(c)) as paired:
        frames = [paired.read() for _ in range(3)]
        assert paired.read() is None and paired.status.state == "ended"  # the first camera decides
    assert all(isinstance(f, PairedFrame) and f.cameras == 3 for f in frames)
    levels = [[None if v.image is None else int(v.image[0, 0, 0]) for v in f.others] for f in frames]
    assert levels == [[20, 30], [None, None], [22, None]]
    assert "001.png: not a decodable image" in frames[1].others[0].note
    assert "has only 1 images" in frames[2].others[1].note
    # camera 2 as two-camera code reads it
    assert frames[0].second is frames[0].others[0].image and frames[1].second is None
    assert frames[1].second_note == frames[1].others[0].note and frames[0].second_source == "folder:b"


def test_a_paired_frame_is_built_either_way_but_not_both():
    image = np.zeros((10, 10, 3), np.uint8)
    old = PairedFrame(image, 1.0, "camera:0", 3, image, "camera:1", "")
    assert old.cameras == 2 and old.others == [OtherView(image, "camera:1", "")] and old.index == 3
    new = PairedFrame(image, 1.0, "camera:0", others=[OtherView(None, "camera:1", "unplugged"),
                                                      OtherView(image, "camera:2")])
    assert new.second is None and new.second_note == "unplugged" and new.others[1].image is image
    with pytest.raises(ValueError, match="either"):
        PairedFrame(image, 1.0, "camera:0", second=image, others=[])
    with pytest.raises(ValueError, match="at least one"):
        PairedSource(FolderSource.__new__(FolderSource))


class Live:
    """A capture giving frames of its own grey level, counting up, while `running`."""

    running = True

    def __init__(self, target: int) -> None:
        self.target = target
        self.count = 0

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return True

    def read(self):
        if not type(self).running:
            return False, None
        time.sleep(0.002)
        # counts within its own tens, so a loaded machine's extra reads never pass for another camera
        self.count += 1
        return True, np.full((12, 12, 3), 10 * self.target + self.count % 10, np.uint8)

    def release(self) -> None:
        pass


def test_live_cameras_pair_by_their_latest_frames_and_their_threads_stop_on_close(tmp_path):
    a = grey_folder(tmp_path, "a", [k % 8 for k in range(200)])  # enough for a slow first pairing
    now = [50.0]
    clock = lambda: now[0]  # noqa: E731
    before = threading.active_count()
    Live.running = True
    cams = [CaptureSource(k, opener=Live, clock=clock, fail_after=1, max_backoff=1e9) for k in (5, 9)]
    paired = PairedSource(FolderSource(a), *cams, max_age_s=1.0)
    assert threading.active_count() == before + 2  # one reader per live camera
    deadline = time.time() + 10
    frame = paired.read()
    while any(v.image is None for v in frame.others) and time.time() < deadline:
        time.sleep(0.01)
        frame = paired.read() or frame
    assert [int(v.image[0, 0, 0]) // 10 for v in frame.others] == [5, 9]  # each camera its own frame
    Live.running = False  # both unplugged; 5 s later their last frames are too old to pair
    time.sleep(0.05)
    now[0] += 5.0
    frame = paired.read()
    assert frame is not None and [v.image for v in frame.others] == [None, None]
    assert all("has sent no frame for 5.0 s" in v.note for v in frame.others)
    paired.close()
    assert threading.active_count() == before
    assert [c.status.state for c in cams] == ["closed", "closed"]


def test_a_recorded_match_names_each_frames_pictures_from_every_camera(tmp_path):
    import json

    from referee_app.demo import Demo

    for name, level in (("a.png", 10), ("camera2/a.png", 20), ("camera3/a.png", 30)):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        cv2.imwrite(str(tmp_path / name), np.full((16, 24, 3), level, np.uint8))
    (tmp_path / "camera3" / "b.png").write_bytes(b"damaged")
    manifest = {"game": "tokyo-highway", "players": ["A", "B"], "fps": 100, "expected": [],
                "frames": [{"file": "a.png", "hold": 2, "others": ["camera2/a.png", "camera3/a.png"]},
                           {"file": "a.png", "others": ["camera2/a.png", "camera3/b.png"]},
                           {"file": "a.png", "second": "camera2/a.png"}]}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    frames = list(Demo("three", tmp_path, manifest).frames(realtime=False))
    assert [f.cameras for f in frames] == [3, 3, 3, 2]
    assert [int(v.image[0, 0, 0]) for v in frames[0].others] == [20, 30]
    assert [v.source for v in frames[0].others] == ["demo:three:camera2", "demo:three:camera3"]
    assert frames[2].others[1].image is None and "camera3/b.png cannot be read" in frames[2].others[1].note
    assert int(frames[3].second[0, 0, 0]) == 20 and frames[3].second_source == "demo:three:camera2"
