"""The web API against a hostile page on the same machine: bad bodies and tokens, matches that
cannot start, hints that would run for ever, streams that would hold every thread (issue #22)."""

from __future__ import annotations

import http.client
import json
import threading
import time

import pytest
from waitress_server import serving
from web_hub import auth, files_and_rows

from referee_app.web.app import create_app
from referee_app.web.streams import default_cap


def new_match(client, hub, game="highway-grid", players=("Ann", "Bo")):
    r = client.post("/api/matches", json={"game": game, "players": list(players)}, headers=auth(hub))
    assert r.status_code == 201, r.get_json()
    return r.get_json()["match_id"]


def deep_match(client, hub) -> str:
    """A 4x4 match one move in, off the opening book (engine/grid/book.json answers the empty board
    at once): its hint is a real search, as deep as a position gets."""
    mid = new_match(client, hub)
    r = client.post(f"/api/matches/{mid}/actions", json={"notation": "5@b2"}, headers=auth(hub))
    assert r.status_code in (200, 201), r.get_json()
    return mid


# -- tokens and bodies ------------------------------------------------------------------------------
@pytest.mark.parametrize("token", ["é", "日本語", "tok\x7fen", "\u00ff" * 200, "\ud800"])
def test_a_non_ascii_token_is_refused_not_a_crash(hub, token):
    client = create_app(hub).test_client()
    r = client.post("/api/matches", json={"game": "highway-grid", "players": ["A", "B"]},
                    headers={"X-Referee-Token": token})
    assert r.status_code == 403 and "token" in r.get_json()["error"]
    mid = new_match(client, hub)
    r = client.post(f"/api/matches/{mid}/actions", json={"notation": "1@a1"}, headers={"X-Referee-Token": token})
    assert r.status_code == 403


@pytest.mark.parametrize("raw,message", [
    (b"[" * 30000 + b"]" * 30000, "nested more than"),
    (b'{"notation": "' + b"[" * 30000 + b'"}', "notation"),  # brackets inside a string are only text
    (b'{"notation": ' + b"9" * 5000 + b"}", "number that cannot be read"),
    (b'{"notation": "1@a1"', "not valid JSON"),
    (b'{"notation": "\xff"}', "not UTF-8"),
    (b'["1@a1"]', "must be a JSON object"),
    (b'{"notation": 7}', "'notation'"),
    (b'{"notation": ["1@a1"]}', "'notation'"),
    (b'{"notation": ""}', "'notation'"),
])
def test_every_bad_body_is_a_400_with_a_reason(hub, raw, message):
    client = create_app(hub).test_client()
    mid = new_match(client, hub)
    before = hub.store.path(mid).read_bytes()
    r = client.post(f"/api/matches/{mid}/actions", data=raw, headers=auth(hub) | {"Content-Type": "application/json"})
    assert r.status_code == 400, r.get_json()
    assert message in r.get_json()["error"]
    assert hub.store.path(mid).read_bytes() == before


@pytest.mark.parametrize("body", [{"target": "x"}, {"target": True}, {"target": 10**30},
                                  {"replacement": 5}, {"reason": ["a"]}])
def test_corrections_with_fields_of_the_wrong_type_are_400(hub, body):
    client = create_app(hub).test_client()
    mid = new_match(client, hub)
    assert client.post(f"/api/matches/{mid}/actions", json={"notation": "1@a1"}, headers=auth(hub)).status_code == 200
    before = hub.store.path(mid).read_bytes()
    r = client.post(f"/api/matches/{mid}/corrections", json=body, headers=auth(hub))
    assert r.status_code == 400, r.get_json()
    assert hub.store.path(mid).read_bytes() == before


@pytest.mark.parametrize("body,message", [
    ({"game": "chess", "players": ["A", "B"]}, "unknown game"),
    ({"game": "../../etc/passwd", "players": ["A", "B"]}, "unknown game"),
    ({"game": "highway-grid", "players": []}, "players"),
    ({"game": "highway-grid", "players": ["A"]}, "players"),
    ({"game": "highway-dice", "players": ["A", "B", "C", "D", "E"]}, "players"),
    ({"game": "highway-dice", "players": ["p"] * 5000}, "players"),
    ({"game": "highway-grid", "players": ["A", "B"], "variant": {"size": 9}}, "variant"),
    ({"game": "highway-grid", "players": ["A", "B"], "variant": [1]}, "variant"),
    ({"game": "railroad-ink", "players": ["A", "B"], "variant": {"expansions": 7}}, "railroad-ink"),
    ({"game": "highway-grid", "players": 2}, "players"),
])
def test_a_match_that_cannot_start_writes_nothing(hub, body, message):
    client = create_app(hub).test_client()
    before = files_and_rows(hub)
    r = client.post("/api/matches", json=body, headers=auth(hub))
    assert r.status_code == 400, r.get_json()
    assert message in r.get_json()["error"]
    assert files_and_rows(hub) == before == ([], [])


# -- hints --------------------------------------------------------------------------------------------
def _in_thread(fn):
    out: dict = {}

    def run():
        out["result"] = fn()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, out


def test_the_web_hint_on_a_deep_4x4_position_answers_under_its_budget(hub):
    client = create_app(hub, hint_seconds=0.5).test_client()
    mid = deep_match(client, hub)
    before = hub.store.path(mid).read_bytes()
    t, out = _in_thread(lambda: client.get(f"/api/matches/{mid}/hint"))
    t.join(60)  # a guard against a hang only: without a budget this search runs for many minutes
    assert not t.is_alive(), "the hint never answered"
    r = out["result"]
    assert r.status_code == 200
    found = r.get_json()
    assert found["budget_seconds"] == 0.5 and found["hint"]["notation"]
    assert found["hint"]["exact"] is False and "estimate" in found["hint"]["text"]
    assert hub.store.path(mid).read_bytes() == before  # a hint changes nothing


def test_hints_beyond_the_cap_get_a_429_at_once(hub):
    app = create_app(hub, hint_seconds=1.5, max_hints=1)
    client = app.test_client()
    mid = deep_match(client, hub)
    hints = app.config["hints"]
    t, out = _in_thread(lambda: client.get(f"/api/matches/{mid}/hint"))
    for _ in range(500):
        if hints.running:
            break
        time.sleep(0.01)
    assert hints.running == 1
    r = client.get(f"/api/matches/{mid}/hint")
    assert r.status_code == 429 and "hints are being worked out" in r.get_json()["error"]
    assert r.headers["Retry-After"]
    t.join(60)
    assert out["result"].status_code == 200 and hints.running == 0


# -- streams ------------------------------------------------------------------------------------------
def test_streams_for_an_unknown_match_end_at_once_with_404(hub):
    client = create_app(hub, stream_seconds=60).test_client()
    for path in ("/api/matches/doesnotexist/events", "/video.mjpg?match=doesnotexist", "/video.mjpg"):
        r = client.get(path)
        assert r.status_code == 404, path
        assert "error" in r.get_json()
    assert client.application.config["streams"].open == 0


def test_an_idle_event_stream_ends_by_itself(hub):
    client = create_app(hub, stream_seconds=120, idle_seconds=0.3).test_client()
    mid = new_match(client, hub)
    t, out = _in_thread(lambda: client.get(f"/api/matches/{mid}/events").get_data())
    t.join(60)  # guard only: the old stream lived for its whole 120 s
    assert not t.is_alive(), "an idle stream kept its thread"
    assert out["result"].startswith(b"retry:")
    assert client.application.config["streams"].open == 0


def test_the_default_stream_cap_leaves_threads_for_the_api():
    assert default_cap(32) == 24 and default_cap(8) == 4 and default_cap(4) == 1
    assert all(n - default_cap(n) >= min(4, n - 1) for n in range(2, 100))


@pytest.fixture()
def served(hub):
    app = create_app(hub, stream_seconds=20, idle_seconds=20, max_streams=default_cap(8))
    # reading ahead lets a stream see its client leave, as `serve` runs it
    with serving(app, threads=8, connection_limit=200, channel_request_lookahead=1) as port:
        yield app, port


def _get(port, path, timeout=10.0, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    conn.request("GET", path, headers=headers or {})
    return conn, conn.getresponse()


def test_open_streams_never_take_every_thread_and_the_extra_get_429(hub, served):
    app, port = served
    mid = hub.create_match("highway-grid", ["A", "B"]).match_id
    hub.publish_frame(b"\xff\xd8jpeg", mid)
    opened, codes = [], []
    for k in range(20):  # 10 to a match that does not exist, 10 to a real one (cap: 4 streams)
        path = ("/api/matches/doesnotexist/events" if k % 4 == 0 else "/video.mjpg?match=doesnotexist"
                if k % 4 == 1 else f"/api/matches/{mid}/events" if k % 4 == 2 else f"/video.mjpg?match={mid}")
        conn, resp = _get(port, path)
        codes.append(resp.status)
        if resp.status == 200:
            opened.append((conn, resp))  # the response owns the socket: keep it open
        else:
            body = json.loads(resp.read())
            assert body["status"] == resp.status
            conn.close()
    assert codes.count(404) == 10 and codes.count(200) == 4 and codes.count(429) == 6
    assert app.config["streams"].open == 4
    conn, resp = _get(port, "/api/status", timeout=5)  # answers although 4 streams are open
    assert resp.status == 200 and "games" in json.loads(resp.read())
    conn.close()
    for c, r in opened:
        r.close()
        c.close()


def test_a_stream_whose_client_left_frees_its_thread_within_seconds(hub, served):
    app, port = served  # streams would otherwise last their 20 s
    mid = hub.create_match("highway-grid", ["A", "B"]).match_id
    hub.publish_frame(b"\xff\xd8jpeg", mid)
    conns = [_get(port, f"/api/matches/{mid}/events"), _get(port, f"/video.mjpg?match={mid}")]
    slots = app.config["streams"]
    time.sleep(1.5)
    assert slots.open == 2  # open while their clients are there
    for c, r in conns:
        r.close()
        c.close()
    for _ in range(150):  # a guard only: each stream looks once a second
        if slots.open == 0:
            break
        time.sleep(0.1)
    assert slots.open == 0
