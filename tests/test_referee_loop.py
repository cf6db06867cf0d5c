"""The referee loop with a scripted reader: stability gate, hands, mismatches, confirmations."""

from __future__ import annotations

import time

import numpy as np
import pytest

from referee_app import events
from referee_app.games.base import Observation
from referee_app.games.grid import GridAdapter
from referee_app.hub import Hub
from referee_app.loop import RefereeLoop, StabilityGate
from referee_app.store import MatchStore
from vision.types import Frame


class ScriptedGrid(GridAdapter):
    """Reads each frame's observation from a script instead of pixels."""

    def __init__(self, script: list[Observation]) -> None:
        self.script = script

    def read(self, frame):
        return self.script[frame.index]


def obs(cells: dict[str, int], conf: float = 0.99, blocked: str | None = None) -> Observation:
    return Observation(dict(cells), {c: conf for c in cells}, blocked)


def frames(n: int):
    img = np.zeros((16, 16, 3), np.uint8)
    for i in range(n):
        yield Frame(img, 0.0, "test", i)


def run_script(tmp_path, script, frames_needed=3):
    hub = Hub(MatchStore(tmp_path))
    seen = []
    hub.bus.subscribe(seen.append)
    session = hub.create_match("highway-grid", ["A", "B"])
    loop = RefereeLoop(hub, session, ScriptedGrid(script), frames(len(script)), frames_needed=frames_needed,
                       publish_video=False)
    loop.run()
    hub.bus.drain()
    return hub, session, loop, seen


def test_gate_needs_agreeing_frames_and_ignores_blocked_views():
    gate = StabilityGate(3)
    a, b = obs({"a1": 3}), obs({"a1": 8})
    assert gate.push(a) is None and gate.push(a) is None
    assert gate.push(obs({}, blocked="hand")) is None  # a hand resets the run
    assert gate.push(a) is None and gate.push(a) is None
    assert gate.push(a).items == {"a1": 3}
    assert gate.push(a) is None  # same settled reading is not passed on twice
    assert gate.push(b) is None and gate.push(b) is None and gate.push(b).items == {"a1": 8}


def test_a_flickering_reading_is_never_judged(tmp_path):
    script = [obs({"a1": 3}), obs({"a1": 8})] * 5
    _, session, loop, seen = run_script(tmp_path, script)
    assert session.played == []
    # the decoder puts the two readings to the players instead of picking one
    asked = [e for e in seen if e.kind == events.CONFIRM]
    assert asked and {"3@a1", "8@a1"} <= {c["notation"] for c in asked[0].data["candidates"]}


def test_camera_moves_are_judged_with_source_and_confidence(tmp_path):
    hand = obs({}, blocked="a hand is over the board")
    script = [obs({})] * 3 + [hand] * 2 + [obs({"b2": 7}, 0.93)] * 3 + [obs({"b2": 7, "c3": 7})] * 3
    _, session, loop, seen = run_script(tmp_path, script)
    assert [p.action.notation() for p in session.played] == ["7@b2", "7@c3"]
    assert [p.verdict.rule for p in session.played] == ["grid.place", "grid.piece-in-reserve"]
    assert session.played[0].source == "vision" and session.played[0].confidence == pytest.approx(0.93)
    verdicts = [e for e in seen if e.kind == events.VERDICT]
    assert verdicts[0].data["cells"] == ["b2"]


def test_a_vanished_piece_is_reported_not_judged(tmp_path):
    script = [obs({"a1": 3})] * 3 + [obs({})] * 3
    _, session, loop, seen = run_script(tmp_path, script)
    assert len(session.played) == 1
    mismatches = [e for e in seen if e.kind == events.MISMATCH]
    assert len(mismatches) == 1 and "piece 3 is missing from a1" in mismatches[0].data["message"]


def test_two_new_pieces_at_once_are_a_mismatch(tmp_path):
    script = [obs({"a1": 3, "d4": 5})] * 3
    _, session, _, seen = run_script(tmp_path, script)
    assert session.played == []
    assert any("one piece per turn" in e.data.get("message", "") for e in seen if e.kind == events.MISMATCH)


def test_low_confidence_asks_for_confirmation(tmp_path):
    script = [obs({"c1": 16}, conf=0.3)] * 3
    hub, session, loop, seen = run_script(tmp_path, script)
    assert session.played == []
    asks = [e for e in seen if e.kind == events.CONFIRM]
    assert asks and asks[0].data["candidates"][0]["notation"] == "16@c1"
    out = loop.confirm("16@c1")
    assert out["verdict"]["legal"] and session.played[0].source == "manual"


class FlakySource:
    """A camera that delivers frames, disappears for a while, then comes back."""

    def __init__(self, script):
        from vision.sources import SourceStatus

        self.script = script  # list of "frame" or "lost"
        self.i = 0
        self.status = SourceStatus()
        self.img = np.zeros((16, 16, 3), np.uint8)
        self.served = 0
        self.closed = 0
        self.source_id = "camera:0"
        self.clock = time.time

    def close(self):
        from vision.sources import SourceStatus

        self.closed += 1
        self.status = SourceStatus("closed")

    def read(self):
        from vision.sources import SourceStatus

        if self.i >= len(self.script):
            self.status = SourceStatus("ended")
            return None
        step = self.script[self.i]
        self.i += 1
        if step == "lost":
            self.status = SourceStatus("lost", "unplugged")
            return None
        self.status = SourceStatus("ok")
        frame = Frame(self.img, 0.0, "camera:0", self.served)
        self.served += 1
        return frame


def test_a_camera_that_disappears_is_reported_and_the_match_resumes(tmp_path):
    script = [obs({})] * 3 + [obs({"a1": 3})] * 3
    hub = Hub(MatchStore(tmp_path))
    seen = []
    hub.bus.subscribe(seen.append)
    session = hub.create_match("highway-grid", ["A", "B"])
    source = FlakySource(["frame"] * 3 + ["lost"] * 4 + ["frame"] * 3)
    loop = RefereeLoop(hub, session, ScriptedGrid(script), source, publish_video=False)
    loop.run()
    hub.bus.drain()
    camera = [e.data["status"] for e in seen if e.kind == events.CAMERA]
    assert camera == ["ok", "lost", "ok"]
    assert [p.action.notation() for p in session.played] == ["3@a1"]
    assert source.closed == 1  # the match over, the camera (and a second one's reader) is released


def test_a_stopped_loop_releases_its_paired_cameras(tmp_path):
    from vision.sources import PairedSource

    first, second = FlakySource(["frame"] * 50), FlakySource(["frame"] * 50)
    paired = PairedSource(first, second)
    hub = Hub(MatchStore(tmp_path))
    session = hub.create_match("highway-grid", ["A", "B"])
    loop = RefereeLoop(hub, session, ScriptedGrid([obs({})] * 50), paired, publish_video=False)
    loop.start()
    loop.stop()
    assert loop.finished.wait(5) and first.closed == 1 and second.closed == 1


def test_a_broken_frame_or_reader_never_stops_the_loop(tmp_path):
    from vision.types import VisionError

    class Flaky(ScriptedGrid):
        def read(self, frame):
            if frame.index == 1:
                raise RuntimeError("reader bug")
            if frame.index == 2:
                raise VisionError("unreadable frame")
            return super().read(frame)

    script = [obs({})] * 3 + [obs({"c2": 4})] * 3
    hub = Hub(MatchStore(tmp_path))
    session = hub.create_match("highway-grid", ["A", "B"])
    loop = RefereeLoop(hub, session, Flaky(script), frames(len(script)), frames_needed=2, publish_video=False)
    loop.run()
    assert loop.stats.errors == 1 and loop.stats.unreadable == 1
    assert [p.action.notation() for p in session.played] == ["4@c2"]


def test_a_damaged_demo_frame_is_skipped(tmp_path):
    import json

    import cv2

    from referee_app.demo import Demo

    cv2.imwrite(str(tmp_path / "a.jpg"), np.zeros((20, 20, 3), np.uint8))
    (tmp_path / "b.jpg").write_bytes(b"not a jpeg")
    manifest = {"game": "highway-grid", "players": ["A", "B"], "fps": 100,
                "frames": [{"file": "a.jpg", "hold": 2}, {"file": "b.jpg", "hold": 2}, {"file": "a.jpg", "hold": 1}]}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    demo = Demo("t", tmp_path, manifest)
    got = list(demo.frames(realtime=False))
    assert len(got) == 3 and demo.skipped == [str(tmp_path / "b.jpg")]


def test_video_frames_are_encoded_only_when_a_viewer_asks(tmp_path, monkeypatch):
    import referee_app.loop as loop_module

    encoded = []
    real = loop_module._jpeg
    monkeypatch.setattr(loop_module, "_jpeg", lambda image, q: encoded.append(q) or real(image, q))
    hub = Hub(MatchStore(tmp_path))
    session = hub.create_match("highway-grid", ["A", "B"])
    script = [obs({})] * 5
    loop = RefereeLoop(hub, session, ScriptedGrid(script), frames(len(script)), publish_video=True)
    loop.run()
    assert encoded == [] and hub.has_frame(session.match_id)  # five frames published, none encoded
    first = next(hub.frames(1.0, session.match_id))
    again = next(hub.frames(1.0, session.match_id))
    assert first[:2] == b"\xff\xd8" and again is first and encoded == [75]  # the latest one, once
