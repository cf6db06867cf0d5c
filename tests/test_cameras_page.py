"""Every camera on the page, over HTTP on a real waitress server: the bundled Tokyo match (recorded
by two cameras) as `serve --demo tokyo-highway` sets it up, its first frames refereed, then camera 2's
picture read without a token, clear 404s for cameras that do not exist, and in headless Chromium the
thumbnail that opens enlarged."""

from __future__ import annotations

import http.client
import itertools
import json
import shutil

import cv2
import numpy as np
import pytest
from waitress_server import serving

from referee_app.cli import load_commands
from referee_app.commands.serve import build_referee
from referee_app.demo import DEMO_ROOT
from referee_app.web.app import create_app

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FRAMES = 3  # the empty table (held 2 frames) and a hand building the first road


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    data = tmp_path_factory.mktemp("cameras_page")
    args = load_commands().build().parse_args(
        ["serve", "--demo", "tokyo-highway", "--speed", "100", "--port", "0", "--data", str(data)])
    hub, loops = build_referee(args)
    loop = loops[0]
    loop.frames = itertools.islice(loop.frames, FRAMES)  # the match's first frames are enough here
    loop.run()
    hub.bus.drain()
    manual = hub.create_match("highway-grid", ["A", "B"])  # a match nobody films
    with serving(create_app(hub, stream_seconds=5), threads=4, drain=8) as port:
        yield hub, port, loop.session.match_id, manual.match_id
    hub.bus.close()


def get(port: int, path: str) -> tuple[int, str, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path)
    resp = conn.getresponse()
    out = resp.status, resp.getheader("Content-Type") or "", resp.read()
    conn.close()
    return out


def test_camera_two_of_the_bundled_match_is_served_without_a_token(served):
    hub, port, mid, _ = served
    status, kind, body = get(port, f"/api/matches/{mid}/cameras")
    assert status == 200 and kind.startswith("application/json")
    cams = json.loads(body)["cameras"]
    assert [c["camera"] for c in cams] == [1, 2]
    assert all(c["has_picture"] and c["frame"] == FRAMES - 1 for c in cams)
    assert cams[1]["source"] == "demo:tokyo-highway:camera2"
    status, kind, body = get(port, f"/api/matches/{mid}/cameras/2.jpg")
    assert status == 200 and kind == "image/jpeg"
    picture = cv2.imdecode(np.frombuffer(body, np.uint8), cv2.IMREAD_COLOR)
    plain = cv2.imread(str(DEMO_ROOT / "tokyo-highway" / "camera2" / "001.jpg"))
    first = cv2.imread(str(DEMO_ROOT / "tokyo-highway" / "001.jpg"))
    assert picture is not None and picture.shape == plain.shape
    # the latest frame of camera 2 (the hand over the table), not camera 1's
    assert np.abs(picture.astype(int) - plain.astype(int)).mean() < 8
    if first.shape == plain.shape:
        assert np.abs(picture.astype(int) - first.astype(int)).mean() > \
            2 * np.abs(picture.astype(int) - plain.astype(int)).mean()
    # the match summary the page loads lists the cameras too
    summary = json.loads(get(port, f"/api/matches/{mid}")[2])
    assert [c["camera"] for c in summary["loop"]["cameras"]] == [1, 2]
    status, kind, body = get(port, f"/api/matches/{mid}/cameras/1.jpg")
    assert status == 200 and cv2.imdecode(np.frombuffer(body, np.uint8), cv2.IMREAD_COLOR).shape == first.shape


@pytest.mark.parametrize(("path", "words"), [
    ("{mid}/cameras/3.jpg", "has no camera 3: its cameras are 1, 2"),
    ("{mid}/cameras/0.jpg", "has no camera 0"),
    ("{mid}/cameras/two.jpg", "a camera's picture is <n>.jpg"),
    ("{manual}/cameras/1.jpg", "no camera watches match"),
    ("{manual}/cameras", "no camera watches match"),
    ("nosuchmatch/cameras/1.jpg", "no match 'nosuchmatch'"),
])
def test_cameras_that_do_not_exist_are_a_clear_json_404(served, path, words):
    hub, port, mid, manual = served
    status, kind, body = get(port, "/api/matches/" + path.format(mid=mid, manual=manual))
    assert status == 404 and kind.startswith("application/json")
    error = json.loads(body)
    assert words in error["error"] and error["status"] == 404


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (scripts/test.sh installs it)")
def test_the_page_shows_camera_two_and_enlarges_it_on_click(served):
    sync_api = pytest.importorskip("playwright.sync_api")
    hub, port, mid, _ = served
    args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=args)
        page = browser.new_page()  # no token: looking needs none
        page.goto(f"http://127.0.0.1:{port}/?match={mid}")
        thumb = '#cameras [data-camera="2"] img'
        page.wait_for_function(f"document.querySelector('{thumb}') && "
                               f"document.querySelector('{thumb}').naturalWidth > 0", timeout=15000)
        assert page.locator("#cameras [data-camera]").count() == 1  # camera 1 is the live view itself
        assert "Camera 2" in page.inner_text("#cameras")
        page.click('#cameras [data-camera="2"]')
        page.wait_for_function("document.getElementById('camera-dialog').open && "
                               "document.getElementById('camera-big').naturalWidth > 0", timeout=10000)
        assert page.evaluate("document.getElementById('camera-big').naturalWidth") == 1280
        assert page.text_content("#camera-dialog-title") == "Camera 2"
        page.click("#camera-dialog-close")
        assert not page.evaluate("document.getElementById('camera-dialog').open")
        browser.close()
