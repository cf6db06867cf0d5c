"""The page on a real waitress server on a free localhost port, and in a real headless Chromium."""

from __future__ import annotations

import http.client
import json
import shutil
import time

import numpy as np
import pytest
from waitress_server import serving

from referee_app.hub import Hub
from referee_app.store import MatchStore
from referee_app.web.app import create_app

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture()
def served(tmp_path):
    hub = Hub(MatchStore(tmp_path / "data"))
    # open streams may finish (they are bounded by their timeout) before the sockets close
    with serving(create_app(hub, stream_seconds=5), threads=12, drain=8) as port:
        yield hub, port
    hub.bus.close()


def request(port, method, path, body=None, token=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    h = dict(headers or {})
    if token:
        h["X-Referee-Token"] = token
    data = json.dumps(body).encode() if body is not None else None
    if data is not None:
        h["Content-Type"] = "application/json"
    conn.request(method, path, body=data, headers=h)
    resp = conn.getresponse()
    out = resp.status, resp.read()
    conn.close()
    return out


def test_real_server_streams_verdicts_live(served):
    hub, port = served
    status, body = request(port, "POST", "/api/matches", {"game": "highway-grid", "players": ["A", "B"]},
                           hub.admin_token)
    assert status == 201
    mid = json.loads(body)["match_id"]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", f"/api/matches/{mid}/events?timeout=4")
    stream = conn.getresponse()
    assert stream.status == 200 and stream.getheader("Content-Type").startswith("text/event-stream")
    time.sleep(0.2)
    assert request(port, "POST", f"/api/matches/{mid}/actions", {"notation": "2@d1"}, hub.admin_token)[0] == 200
    got = b""
    deadline = time.time() + 5
    while b"grid.place" not in got and time.time() < deadline:
        got += stream.readline()
    conn.close()
    assert b"event: verdict" in got and b"grid.place" in got


def test_real_server_refuses_bad_token_and_serves_video(served):
    hub, port = served
    status, body = request(port, "POST", "/api/matches", {"game": "highway-grid", "players": ["A", "B"]}, "nope")
    assert status == 403 and b"token" in body
    import cv2

    ok, jpeg = cv2.imencode(".jpg", np.full((32, 32, 3), 128, np.uint8))
    hub.publish_frame(jpeg.tobytes(), "m1")
    hub.publish_frame(b"other match", "m2")
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/video.mjpg?timeout=2&match=m1")
    resp = conn.getresponse()
    assert resp.getheader("Content-Type").startswith("multipart/x-mixed-replace")
    chunk = resp.read(200)
    conn.close()
    assert b"--frame" in chunk and b"image/jpeg" in chunk and b"other match" not in chunk


def test_many_viewers_stream_at_once(served):
    hub, port = served
    status, body = request(port, "POST", "/api/matches", {"game": "highway-grid", "players": ["A", "B"]},
                           hub.admin_token)
    mid = json.loads(body)["match_id"]
    conns = []
    for _ in range(8):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        c.request("GET", f"/api/matches/{mid}/events?timeout=3")
        conns.append((c, c.getresponse()))
    # the server still answers ordinary requests while 8 streams are open
    assert request(port, "GET", "/api/status")[0] == 200
    for c, r in conns:
        assert r.status == 200
        c.close()


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (scripts/test.sh installs it)")
def test_page_in_headless_chromium(served):
    sync_api = pytest.importorskip("playwright.sync_api")
    hub, port = served
    status, body = request(port, "POST", "/api/matches", {"game": "highway-grid", "players": ["Ann", "Bo"]},
                           hub.admin_token)
    mid = json.loads(body)["match_id"]
    hub.featured = mid
    args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=args)
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{port}/?token={hub.admin_token}")
        page.wait_for_selector("text=Ann to move", timeout=10000)
        # the board drawing is fetched after the state: wait for it rather than race it
        page.wait_for_selector("#board svg", timeout=10000)
        assert page.locator("#board svg").count() == 1
        # a manual move is judged and its verdict arrives in the feed
        page.fill("#move-input", "7@b2")
        page.click("#move-submit")
        page.wait_for_selector("#feed li.legal", timeout=10000)
        assert "grid.place" in page.inner_text("#feed")
        # a verdict made elsewhere (another referee, the camera) arrives live
        request(port, "POST", f"/api/matches/{mid}/actions", {"notation": "7@c2"}, hub.admin_token)
        page.wait_for_selector("#feed li.illegal", timeout=10000)
        assert "grid.piece-in-reserve" in page.inner_text("#feed")
        # with a wrong token the page says the move was refused
        page.evaluate("localStorage.setItem('referee-token', 'wrong')")
        page.fill("#move-input", "1@a1")
        page.click("#move-submit")
        page.wait_for_selector("#move-result.bad", timeout=10000)
        assert "token" in page.inner_text("#move-result")
        page.set_viewport_size({"width": 390, "height": 844})  # a phone
        page.screenshot(path=str(hub.store.data_dir / "phone.png"), full_page=True)
        browser.close()
