"""Camera set-up on the page (issues 23 and 20 item 4), through the user's paths: `serve --frames` of a
synthetic board keeps the set-up check of its first usable frame (off the frame path) and serves
it with the match's cameras; in headless Chromium on a real waitress server the Camera set-up panel
lists the cameras of a stand-in camera driver, shows a preview, runs the check and shows its
verdict and figures (desktop and phone width), says what a 404 or a 429 means, and the live view of
a camera match shows its check."""

from __future__ import annotations

import http.client
import json
import shutil
import threading
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest
import test_page_table
from waitress_server import serving

from referee_app.cli import load_commands, main
from referee_app.commands.serve import build_referee
from referee_app.games import get_adapter
from referee_app.loop import RefereeLoop
from referee_app.setup_watch import SetupWatch, watch_setup
from referee_app.web.app import create_app
from vision.sources import open_source
from vision.types import Frame


def board_folder(root: Path, name: str, *options: str) -> Path:
    """A folder of frames of one synthetic set-up (`dataset board`): the empty board, then one photo."""
    out = root / name
    assert main(["dataset", "board", "--out", str(out), "--size", "1280", "720", "--setups", "1",
                 "--photos", "1", *options]) == 0
    frames = root / f"{name}_frames"
    frames.mkdir()
    for k, photo in enumerate(sorted(out.glob("s0_*.jpg"), key=lambda p: "0" if "empty" in p.name else p.name)):
        shutil.copy(photo, frames / f"{k:03d}.jpg")
    return frames


class Cameras:
    """A stand-in camera driver (cv2.VideoCapture's place): camera 1 sees a board from 30 degrees,
    camera 2 one from a steep, low camera; `gone` unplugs them; while `slow` is set a read waits
    for `answer`."""

    views: dict[int, np.ndarray] = {}
    gone = False
    slow = threading.Event()
    answer = threading.Event()
    reading = threading.Event()

    def __init__(self, index: int) -> None:
        self.index = index

    def isOpened(self) -> bool:  # noqa: N802 - cv2's name
        return not Cameras.gone and self.index in Cameras.views

    def read(self):
        if Cameras.slow.is_set():
            Cameras.reading.set()
            Cameras.answer.wait(10)
        return True, Cameras.views[self.index].copy()

    def release(self) -> None:
        pass


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("setup_page")
    good = board_folder(root, "good", "--tilt", "30", "--height", "850", "--seed", "901")
    steep = board_folder(root, "steep", "--tilt", "50", "--height", "500", "--seed", "3", "--dice", "0")
    args = load_commands().build().parse_args(
        ["serve", "--frames", str(good), "--game", "highway-dice", "--port", "0", "--data", str(root / "data")])
    hub, loops = build_referee(args)  # the user's path: serve --frames
    ok_loop = loops[0]
    steep_loop = RefereeLoop(hub, hub.create_match("highway-dice", ["Ann", "Bo"]), get_adapter("highway-dice").__class__(),
                             open_source(str(steep)))
    watch_setup(steep_loop, "highway-dice")  # as serve attaches it
    for loop in (ok_loop, steep_loop):
        loop.run()
        loop.on_frame.__self__.thread.join(30)
    hub.bus.drain()
    Cameras.views = {1: cv2.imread(str(good / "001.jpg")), 2: cv2.imread(str(steep / "000.jpg"))}
    app = create_app(hub, stream_seconds=5)
    app.config["camera_opener"] = Cameras
    with serving(app, threads=8, drain=8) as port:
        yield SimpleNamespace(hub=hub, port=port, ok=ok_loop.session.match_id, steep=steep_loop.session.match_id)
    hub.bus.close()


def get_json(port: int, path: str) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path)
    resp = conn.getresponse()
    out = resp.status, json.loads(resp.read())
    conn.close()
    return out


def test_a_match_served_from_frames_keeps_the_check_of_its_first_usable_frame(served):
    status, body = get_json(served.port, f"/api/matches/{served.ok}/cameras")
    assert status == 200
    check = body["cameras"][0]["check"]
    assert check["state"] == "done" and check["message"] == "set-up OK" and check["frame"] == 0
    report = check["report"]
    assert report["localised"] and report["markers_found"] == [0, 1, 2, 3] and report["inside_envelope"]
    assert abs(report["tilt_deg"] - 30) < 3 and report["source"].startswith("folder:")
    # the match summary the page loads carries it too
    _, summary = get_json(served.port, f"/api/matches/{served.ok}")
    assert summary["loop"]["cameras"][0]["check"]["report"]["inside_envelope"] is True
    _, body = get_json(served.port, f"/api/matches/{served.steep}/cameras")
    check = body["cameras"][0]["check"]
    report = check["report"]
    assert check["state"] == "done" and report["inside_envelope"] is False
    assert check["message"] == f"outside the envelope: {report['reasons'][0]}; {report['advice'][0]}"


class FakeLoop:
    def __init__(self) -> None:
        self.camera_checks: dict = {}
        self.on_frame = None
        self.hub = SimpleNamespace(camera={"status": "ok", "since": 1.0})
        self.session = SimpleNamespace(match_id="m1")


def frame(index: int, value: int) -> Frame:
    return Frame(np.full((48, 64, 3), value, np.uint8), 0.0, "folder:x", index)


def test_the_check_runs_off_the_frame_path_and_waits_for_a_frame_with_markers():
    release = threading.Event()
    seen: list[int] = []

    def check(image, game):  # markers are "found" in bright frames only; waits until released
        release.wait(10)
        seen.append(int(image[0, 0, 0]))
        return {"localised": image[0, 0, 0] > 100, "inside_envelope": image[0, 0, 0] > 100,
                "reasons": [] if image[0, 0, 0] > 100 else ["the board's markers were not found"],
                "advice": [] if image[0, 0, 0] > 100 else ["put the whole board in view"]}

    loop = FakeLoop()
    watch = SetupWatch(loop, "highway-dice", check=check, retry_seconds=0)
    assert loop.on_frame == watch.offer and loop.camera_checks[1]["state"] == "waiting"
    loop.on_frame(frame(0, 10))  # a dark first frame; the check blocks, the loop does not
    assert loop.camera_checks[1]["state"] == "running"
    loop.on_frame(frame(1, 200))  # while it runs no second check starts
    release.set()
    watch.thread.join(5)
    assert seen == [10] and loop.camera_checks[1]["state"] == "done"
    assert loop.camera_checks[1]["message"] == ("outside the envelope: the board's markers were not found; "
                                                "put the whole board in view")
    loop.on_frame(frame(2, 200))  # the markers were not found: tried again on a later frame
    watch.thread.join(5)
    assert seen == [10, 200] and loop.camera_checks[1]["message"] == "set-up OK"
    assert loop.camera_checks[1]["frame"] == 2
    loop.on_frame(frame(3, 10))  # a good answer stands ...
    assert seen == [10, 200]
    loop.hub.camera = {"status": "ok", "since": 2.0}  # ... until the camera was lost and came back
    loop.on_frame(frame(4, 10))
    watch.thread.join(5)
    assert seen == [10, 200, 10]


def test_the_referee_loop_never_waits_for_the_check(tmp_path):
    from referee_app.games.base import Observation
    from referee_app.games.grid import GridAdapter
    from referee_app.hub import Hub
    from referee_app.store import MatchStore

    class EmptyTable(GridAdapter):  # reads nothing from any frame, at once
        def __init__(self) -> None:
            pass

        def read(self, frame):
            return Observation({}, {}, None)

    release = threading.Event()

    def slow_check(image, game):
        release.wait(10)
        return {"localised": True, "inside_envelope": True, "reasons": [], "advice": []}

    hub = Hub(MatchStore(tmp_path))
    loop = RefereeLoop(hub, hub.create_match("highway-grid", ["A", "B"]), EmptyTable(),
                       [frame(k, 200) for k in range(6)], publish_video=False)
    watch = SetupWatch(loop, "highway-dice", check=slow_check)
    loop.run()  # every frame is refereed while the check of frame 0 still runs
    assert loop.stats.frames == 6 and loop.cameras()[0]["check"]["state"] == "running"
    release.set()
    watch.thread.join(5)
    check = loop.cameras()[0]["check"]
    assert check["state"] == "done" and check["frame"] == 0 and check["message"] == "set-up OK"
    hub.bus.close()


def test_a_game_whose_board_the_check_does_not_know_is_said_so():
    loop = FakeLoop()
    SetupWatch(loop, "highway-grid")
    assert loop.on_frame is None
    assert loop.camera_checks[1]["state"] == "unavailable" and "highway-dice" in loop.camera_checks[1]["message"]


# -- the page ------------------------------------------------------------------------------------------
browser = test_page_table.browser  # the same headless Chromium fixture (skips without Chromium)


def open_page(browser, port: int, match: str, width: int = 1280, height: int = 900):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.goto(f"http://127.0.0.1:{port}/?match={match}")  # no token: looking needs none
    return context, page


def test_the_panel_lists_previews_and_checks_a_camera(served, browser):
    context, page = open_page(browser, served.port, served.ok)
    try:
        # the live view of the camera match shows its own check
        page.wait_for_selector("#match-check.ok:has-text('set-up OK')", timeout=15000)
        page.click("#setup-btn")
        page.wait_for_function("document.getElementById('setup-dialog').open && "
                               "document.getElementById('setup-preview').naturalWidth > 0", timeout=15000)
        assert page.evaluate("[...document.getElementById('setup-camera').options].map(o => o.text)") == [
            "Camera 1 (1280×720)", "Camera 2 (1280×720)"]
        assert page.evaluate("document.getElementById('setup-preview').naturalWidth") == 1280
        assert page.input_value("#setup-game") == "highway-dice"
        page.click("#setup-check")
        page.wait_for_selector("#setup-verdict[data-inside=true]", timeout=60000)
        text = page.inner_text("#setup-verdict")
        assert "set-up OK" in text and "4 of 4" in text
        for figure in ("Pixels per mm", "Tilt", "Camera height", "Sharpness", "Glare", "Smallest die face"):
            assert figure in text
        # the steep, low camera: amber, with the reasons and what to change
        page.select_option("#setup-camera", "2")
        page.wait_for_selector("#setup-verdict", state="hidden", timeout=5000)
        page.click("#setup-check")
        page.wait_for_selector("#setup-verdict[data-inside=false]", timeout=60000)
        assert "outside the envelope" in page.inner_text("#setup-verdict .head")
        assert any("degrees from straight down" in r for r in page.locator("#setup-verdict .reasons li").all_inner_texts())
        assert any(a.startswith("raise the camera") for a in page.locator("#setup-verdict .advice li").all_inner_texts())
        assert "outside what the referee can read" in page.inner_text("#setup-message")
    finally:
        context.close()


def test_a_busy_or_vanished_camera_gets_a_clear_message(served, browser):
    context, page = open_page(browser, served.port, served.ok)
    try:
        page.click("#setup-btn")
        page.wait_for_function("document.getElementById('setup-preview').naturalWidth > 0", timeout=15000)
        Cameras.reading.clear()
        Cameras.answer.clear()
        Cameras.slow.set()  # the next snapshot takes a while: a check meanwhile is answered 429
        # another page (or tab) asks for a preview: the panel's own requests wait for each other, a
        # stranger's do not
        other = threading.Thread(target=lambda: urllib.request.urlopen(
            f"http://127.0.0.1:{served.port}/api/setup/cameras/1/preview.jpg", timeout=30).read())
        try:
            other.start()
            assert Cameras.reading.wait(20)
            page.click("#setup-check")
            page.wait_for_selector("#setup-message.bad:has-text('try again in a moment')", timeout=20000)
            assert "another camera set-up request is running" in page.inner_text("#setup-message")
        finally:
            Cameras.slow.clear()
            Cameras.answer.set()
            other.join(30)  # the slow snapshot arrives (so the next request finds the referee free)
        Cameras.gone = True  # unplugged after it was listed: the preview's 404 says so
        try:
            page.click("#setup-refresh")
            page.wait_for_selector("#setup-message.bad:has-text('camera 1: no such camera')", timeout=20000)
            page.click("#setup-find")
            page.wait_for_selector("#setup-message:has-text('No camera answered')", timeout=20000)
            assert page.is_disabled("#setup-check")
        finally:
            Cameras.gone = False
    finally:
        context.close()


def test_on_a_phone_the_panel_fits_and_the_match_shows_what_to_change(served, browser):
    context, page = open_page(browser, served.port, served.steep, width=390, height=800)
    try:
        page.wait_for_selector("#match-check.warn", timeout=15000)
        brief = page.inner_text("#match-check .head")
        assert brief.startswith("⚠ outside the envelope: ") and "; " in brief
        page.click("summary:has-text('New match')")
        page.click("#new-setup")  # reachable from New match
        page.wait_for_function("document.getElementById('setup-preview').naturalWidth > 0", timeout=15000)
        # choosing a camera fetches its preview; Check pressed at once must wait for it (the referee
        # answers one camera request at a time: the check got a 429 and no verdict on a loaded CI)
        held, checks = [], []
        page.route("**/preview.jpg", lambda route: held.append(route))
        page.on("request", lambda r: checks.append(r.url) if "/check?" in r.url else None)
        page.select_option("#setup-camera", "1")
        page.click("#setup-check")
        page.wait_for_timeout(500)
        assert held and not checks  # the check waits for the preview in flight
        for route in held:
            route.continue_()
        page.unroute("**/preview.jpg")
        page.wait_for_selector("#setup-verdict[data-inside=true]", timeout=60000)
        box = page.evaluate("(() => { const r = document.getElementById('setup-dialog').getBoundingClientRect();"
                            " return [r.left, r.right]; })()")
        assert box[0] >= 0 and box[1] <= 390
        assert page.evaluate("document.getElementById('setup-dialog').scrollWidth") <= 390
        page.click("#setup-close")
        assert not page.evaluate("document.getElementById('setup-dialog').open")
    finally:
        context.close()
