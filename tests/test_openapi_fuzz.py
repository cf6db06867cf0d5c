"""docs/protocols/openapi.yaml describes every route, and a bounded schema-based fuzzer (hypothesis,
Flask's test client: nothing leaves the process) finds no 5xx and no change made without a token."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from openapi_fuzz import load_spec, operations, requests

from referee_app.hub import Hub
from referee_app.store import MatchStore
from referee_app.web.app import create_app

BUSY_OK = {"GET /api/matches/{match_id}/hint", "GET /api/matches/{match_id}/events", "GET /video.mjpg"}


def referee(tmp_path: Path):
    """A hub with a match of each game, one with moves, one damaged and one cut by a crash."""
    hub = Hub(MatchStore(tmp_path / "data"))
    app = create_app(hub, stream_seconds=0.2, idle_seconds=0.2, hint_seconds=0.05)
    ids = []
    for game, players in (("highway-grid", ["A", "B"]), ("highway-dice", ["A", "B"]),
                          ("railroad-ink", ["A"]), ("tokyo-highway", ["A", "B"])):
        ids.append(hub.create_match(game, players).match_id)
    grid = hub.sessions[ids[0]]
    for move in ("7@b2", "3@a1", "12@c3"):
        grid.submit_notation(move)
    hub.publish_frame(b"\xff\xd8 a picture", ids[0])
    damaged = hub.create_match("highway-grid", ["C", "D"])
    damaged.submit_notation("1@a1")
    damaged.submit_notation("2@b1")
    torn = hub.create_match("highway-grid", ["E", "F"])
    torn.submit_notation("5@c2")
    hub.bus.drain()
    path = hub.store.path(damaged.match_id)
    lines = path.read_bytes().split(b"\n")
    lines[1] = lines[1][:20] + b"\xff" + lines[1][21:]
    path.write_bytes(b"\n".join(lines))
    path = hub.store.path(torn.match_id)
    path.write_bytes(path.read_bytes()[:-7])
    ids += [damaged.match_id, torn.match_id]
    hub.sessions.clear()  # as after a restart: every request reads the logs
    return hub, app, ids


def snapshot(hub: Hub) -> tuple:
    files = tuple((p.name, hashlib.sha256(p.read_bytes()).hexdigest())
                  for p in sorted(hub.store.data_dir.rglob("*.jsonl")))
    return files, tuple(tuple(sorted(i.to_json().items(), key=lambda kv: kv[0])) for i in hub.store.list())


def send(client, req):
    r = client.open(req.path, method=req.method, headers=req.headers, data=req.body)
    r.get_data()  # streams end by their timeout (0.2 s here)
    return r


def check(r, req) -> None:
    assert r.status_code < 500, (r.status_code, req)  # a full cap is a 429, never a 5xx
    assert r.status_code != 429 or req.operation in BUSY_OK, (r.status_code, req)
    if r.status_code >= 400:
        body = r.get_json(silent=True)
        assert isinstance(body, dict) and body.get("error") and body.get("status") == r.status_code, req


def test_the_spec_describes_every_route_and_only_those(tmp_path):
    hub = Hub(MatchStore(tmp_path))
    routes = set()
    for rule in create_app(hub).url_map.iter_rules():
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            routes.add(f"{method} " + re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", r"{\1}", rule.rule))
    hub.bus.close()
    assert routes == {f"{op.method} {op.path}" for op in operations(load_spec())}


@settings(max_examples=1, deadline=None)
@given(requests(operations(load_spec()), ["m1"]))
def test_the_request_strategy_draws(req):
    assert req.method in ("GET", "POST") and req.path.startswith("/")


def test_fuzzed_requests_without_a_token_change_nothing_and_never_5xx(tmp_path):
    hub, app, ids = referee(tmp_path)
    client = app.test_client()
    before = snapshot(hub)
    seen: set[str] = set()

    @settings(max_examples=200, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(requests(operations(load_spec()), ids))
    def run(req):
        r = send(client, req)
        check(r, req)
        seen.add(req.operation)
        if req.secured:
            assert r.status_code in (400, 403, 404, 413), (r.status_code, req)
        assert snapshot(hub) == before, req

    run()
    assert len(seen) >= 15  # (almost) every operation was tried
    hub.bus.close()


def test_fuzzed_requests_with_the_token_never_5xx(tmp_path):
    hub, app, ids = referee(tmp_path)
    client = app.test_client()

    @settings(max_examples=100, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(requests(operations(load_spec()), ids, token=hub.admin_token))
    def run(req):
        check(send(client, req), req)

    run()
    hub.bus.close()
