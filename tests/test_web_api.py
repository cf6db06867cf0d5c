"""The web API through Flask's test client: tokens, verdicts, corrections, events, bad requests."""

from __future__ import annotations

import json
import threading

import pytest
from web_hub import auth

from referee_app.hub import Hub
from referee_app.store import MatchStore
from referee_app.web.app import MAX_BODY, create_app


@pytest.fixture()
def client(hub):
    app = create_app(hub, stream_seconds=2.0)
    return app.test_client()


def new_match(client, hub, game="highway-grid"):
    r = client.post("/api/matches", json={"game": game, "players": ["Ann", "Bo"]}, headers=auth(hub))
    assert r.status_code == 201, r.get_json()
    return r.get_json()["match_id"]


def log_bytes(hub, match_id):
    return hub.store.path(match_id).read_bytes()


def test_page_and_static_files_are_served(client):
    r = client.get("/")
    assert r.status_code == 200 and b"Highway Referee" in r.data
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/style.css").mimetype == "text/css"
    assert client.get("/static/..%2Fapp.py").status_code == 404


def test_creating_a_match_needs_the_token(client, hub):
    r = client.post("/api/matches", json={"game": "highway-grid", "players": ["A", "B"]})
    assert r.status_code == 403 and "token" in r.get_json()["error"]
    r = client.post("/api/matches", json={"game": "highway-grid", "players": ["A", "B"]},
                    headers={"X-Referee-Token": "wrong"})
    assert r.status_code == 403
    r = client.post("/api/matches", json={"game": "no-such-game", "players": ["A", "B"]}, headers=auth(hub))
    assert r.status_code == 400 and "unknown game" in r.get_json()["error"]


def test_manual_moves_are_judged_and_logged(client, hub):
    mid = new_match(client, hub)
    r = client.post(f"/api/matches/{mid}/actions", json={"notation": "7@b2"}, headers=auth(hub))
    body = r.get_json()
    assert r.status_code == 200 and body["verdict"]["legal"] and body["verdict"]["rule"] == "grid.place"
    r = client.post(f"/api/matches/{mid}/actions", json={"notation": "7@c3"}, headers=auth(hub))
    v = r.get_json()["verdict"]
    assert not v["legal"] and v["rule"] == "grid.piece-in-reserve"
    summary = client.get(f"/api/matches/{mid}").get_json()
    assert [h["notation"] for h in summary["history"]] == ["7@b2", "7@c3"]
    assert summary["extras"]["player_1_best_path"] >= 0
    lines = log_bytes(hub, mid).decode().splitlines()
    assert json.loads(lines[-1])["verdict"]["rule"] == "grid.piece-in-reserve"
    svg = client.get(f"/api/matches/{mid}/board.svg")
    assert svg.status_code == 200 and b"<svg" in svg.data


def test_per_match_token_works_only_for_its_match(client, hub):
    r = client.post("/api/matches", json={"game": "highway-grid", "players": ["A", "B"]}, headers=auth(hub))
    mid, token = r.get_json()["match_id"], r.get_json()["token"]
    other = new_match(client, hub)
    ok = client.post(f"/api/matches/{mid}/actions", json={"notation": "1@a1"}, headers={"X-Referee-Token": token})
    assert ok.status_code == 200
    refused = client.post(f"/api/matches/{other}/actions", json={"notation": "1@a1"},
                          headers={"X-Referee-Token": token})
    assert refused.status_code == 403


def test_bad_requests_get_clear_json_errors_and_lose_nothing(client, hub):
    mid = new_match(client, hub)
    client.post(f"/api/matches/{mid}/actions", json={"notation": "3@a1"}, headers=auth(hub))
    before = log_bytes(hub, mid)
    cases = [
        (client.post(f"/api/matches/{mid}/actions", data="{not json", headers=auth(hub)), 400, "JSON"),
        (client.post(f"/api/matches/{mid}/actions", json=["a"], headers=auth(hub)), 400, "object"),
        (client.post(f"/api/matches/{mid}/actions", json={"notation": "zz"}, headers=auth(hub)), 400, "PIECE@CELL"),
        (client.post(f"/api/matches/{mid}/actions", json={"notation": "4@a1"}), 403, "token"),
        (client.post(f"/api/matches/{mid}/actions", data="x" * (MAX_BODY + 10), headers=auth(hub)), 413, ""),
        (client.get("/api/matches/nosuchmatch"), 404, "no match"),
        (client.get("/api/matches/bad.id"), 400, "malformed"),
        (client.get("/api/matches/..%2F..%2Fetc"), 404, ""),
        (client.get(f"/api/matches/{mid}/export?format=pdf"), 400, "format"),
        (client.get(f"/api/matches/{mid}/events", headers={"Last-Event-ID": "x"}), 400, "number"),
    ]
    for resp, status, words in cases:
        assert resp.status_code == status, (resp.status_code, resp.data[:200])
        data = resp.get_json()
        assert isinstance(data, dict) and "error" in data
        assert words in data["error"]
        assert b"Traceback" not in resp.data
    assert log_bytes(hub, mid) == before


def test_host_header_must_be_local_by_default(hub):
    client = create_app(hub).test_client()
    assert client.get("/api/status", headers={"Host": "evil.example:8765"}).status_code == 403
    assert client.get("/api/status", headers={"Host": "localhost:8765"}).status_code == 200
    remote = create_app(hub, allow_remote=True).test_client()
    assert remote.get("/api/status", headers={"Host": "evil.example:8765"}).status_code == 200


def test_corrections_withdraw_only_the_latest_move(client, hub):
    mid = new_match(client, hub)
    s1 = client.post(f"/api/matches/{mid}/actions", json={"notation": "5@a1"}, headers=auth(hub)).get_json()["seq"]
    s2 = client.post(f"/api/matches/{mid}/actions", json={"notation": "6@d4"}, headers=auth(hub)).get_json()["seq"]
    stale = client.post(f"/api/matches/{mid}/corrections", json={"target": s1}, headers=auth(hub))
    assert stale.status_code == 409 and "latest" in stale.get_json()["error"]
    r = client.post(f"/api/matches/{mid}/corrections", json={"target": s2, "replacement": "6@d3"},
                    headers=auth(hub))
    assert r.status_code == 200
    hist = client.get(f"/api/matches/{mid}").get_json()["history"]
    assert [h["notation"] for h in hist] == ["5@a1", "6@d3"]
    steps = client.get(f"/api/matches/{mid}/replay?step=99").get_json()
    assert steps["steps"] == 5  # start, 5@a1, 6@d4, correction, 6@d3
    assert steps["info"]["notation"] == "6@d3"


def test_two_browsers_correcting_at_once_get_one_success(client, hub):
    mid = new_match(client, hub)
    seq = client.post(f"/api/matches/{mid}/actions", json={"notation": "5@a1"}, headers=auth(hub)).get_json()["seq"]
    app = client.application
    results = []

    def correct():
        with app.test_client() as c:
            results.append(c.post(f"/api/matches/{mid}/corrections", json={"target": seq}, headers=auth(hub))
                           .status_code)

    threads = [threading.Thread(target=correct) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [200, 409, 409, 409]
    corrections = [json.loads(x) for x in log_bytes(hub, mid).decode().splitlines()[1:]]
    assert sum(1 for r in corrections if r["type"] == "correction") == 1


def test_event_stream_sends_ids_and_resumes(client, hub):
    mid = new_match(client, hub)
    client.post(f"/api/matches/{mid}/actions", json={"notation": "5@a1"}, headers=auth(hub))
    client.post(f"/api/matches/{mid}/actions", json={"notation": "5@b1"}, headers=auth(hub))
    hub.bus.drain()
    text = client.get(f"/api/matches/{mid}/events?timeout=0.2").get_data(as_text=True)
    blocks = [b for b in text.split("\n\n") if b.startswith("id:")]
    ids = [int(b.split("\n")[0][4:]) for b in blocks]
    kinds = [b.split("\n")[1][7:] for b in blocks]
    assert "verdict" in kinds and ids == sorted(ids)
    verdicts = [json.loads(b.split("\n")[2][6:]) for b in blocks if "event: verdict" in b]
    assert verdicts[-1]["data"]["verdict"]["rule"] == "grid.piece-in-reserve"
    resumed = client.get(f"/api/matches/{mid}/events?timeout=0.2", headers={"Last-Event-ID": str(ids[1])})
    again = [int(b.split("\n")[0][4:]) for b in resumed.get_data(as_text=True).split("\n\n") if b.startswith("id:")]
    assert again == ids[2:]


def test_exports(client, hub):
    mid = new_match(client, hub)
    client.post(f"/api/matches/{mid}/actions", json={"notation": "5@a1"}, headers=auth(hub))
    assert client.get(f"/api/matches/{mid}/export").data == log_bytes(hub, mid)
    csv_text = client.get(f"/api/matches/{mid}/export?format=csv").get_data(as_text=True)
    assert "grid.place" in csv_text and csv_text.startswith("seq,type")
    js = client.get(f"/api/matches/{mid}/export?format=json").get_json()
    assert js["header"]["game"] == "highway-grid" and js["records"][0]["notation"] == "5@a1"


def test_a_restarted_server_resumes_the_match_from_its_log(tmp_path):
    store = MatchStore(tmp_path / "d")
    hub1 = Hub(store)
    client1 = create_app(hub1).test_client()
    mid = new_match(client1, hub1)
    client1.post(f"/api/matches/{mid}/actions", json={"notation": "9@c2"}, headers=auth(hub1))
    hub2 = Hub(MatchStore(tmp_path / "d"))
    client2 = create_app(hub2).test_client()
    r = client2.post(f"/api/matches/{mid}/actions", json={"notation": "9@c3"}, headers=auth(hub2))
    assert r.get_json()["verdict"]["rule"] == "grid.piece-in-reserve"
    assert [h["notation"] for h in client2.get(f"/api/matches/{mid}").get_json()["history"]] == ["9@c2", "9@c3"]


def test_match_list_follows_the_index(client, hub):
    mid = new_match(client, hub)
    client.post(f"/api/matches/{mid}/actions", json={"notation": "5@a1"}, headers=auth(hub))
    hub.bus.drain()
    rows = client.get("/api/matches").get_json()["matches"]
    row = next(r for r in rows if r["match_id"] == mid)
    assert row["actions"] == 1 and row["status"] == "playing" and "path" not in row


def test_a_corrupt_log_is_a_clear_error(client, hub):
    mid = new_match(client, hub)
    hub.sessions.clear()
    path = hub.store.path(mid)
    path.write_bytes(b"not a header\n")
    r = client.get(f"/api/matches/{mid}")
    assert r.status_code == 422 and "header" in r.get_json()["error"]
    assert path.read_bytes() == b"not a header\n"


@pytest.mark.parametrize("game", ["highway-grid", "highway-dice", "tokyo-highway", "railroad-ink"])
def test_every_game_can_be_refereed_by_manual_entry(client, hub, game):
    import engine

    mid = new_match(client, hub, game)
    board = client.get(f"/api/matches/{mid}/board.svg")
    assert board.status_code == 200 and b"<svg" in board.data
    state = hub.sessions[mid].state
    first = next(iter(state.legal_actions()))
    r = client.post(f"/api/matches/{mid}/actions", json={"notation": first.notation()}, headers=auth(hub))
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["verdict"]["legal"], r.get_json()
    summary = client.get(f"/api/matches/{mid}").get_json()
    assert summary["history"][0]["notation"] == first.notation()
    assert engine.get_game(game).parse_action(first.notation()).notation() == first.notation()
