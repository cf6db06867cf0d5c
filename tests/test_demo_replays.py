"""The main job's demo replays the bundled recordings over and over (issue 23): each recording keeps
one match, replaced at every replay, so the Match list and what the referee holds in memory stay
bounded however long an idle demo runs; a match a person started is never touched."""

from __future__ import annotations

import gc
import json
import threading
import weakref

import pytest

from referee_app.demo import DEMO_ROOT, Demo, DemoReplays
from referee_app.hub import Hub
from referee_app.matchlog import read_log
from referee_app.session import SessionError
from referee_app.store import MatchStore
from referee_app.web.app import create_app

ROUNDS = 4


def short_demo() -> Demo:
    """The bundled 4x4 recording cut to its first scenes (the empty board, the first pieces)."""
    manifest = json.loads((DEMO_ROOT / "highway-grid" / "manifest.json").read_text())
    manifest["frames"] = manifest["frames"][:4]
    return Demo("highway-grid", DEMO_ROOT / "highway-grid", manifest)


def test_replays_keep_one_match_per_recording_and_free_the_last(tmp_path):
    hub = Hub(MatchStore(tmp_path), admin_token="t")
    client = create_app(hub).test_client()
    replays = DemoReplays(hub, demos=[short_demo()], realtime=False)
    mine = hub.create_match("highway-grid", ["Cy", "Di"])  # a match a person plays meanwhile
    mine.submit_notation("7@b2")
    gone: list[weakref.ref] = []
    featured = set()
    for _ in range(ROUNDS):
        loops = replays.new_round()
        for loop in loops:
            loop.run()
        hub.bus.drain()
        featured.add(hub.featured)
        assert loops[0].session.played, "the replay referees the recording"
        gone += [weakref.ref(loops[0]), weakref.ref(loops[0].session), weakref.ref(loops[0].adapter)]
        del loops
        listed = client.get("/api/matches").get_json()["matches"]
        assert sorted(m["match_id"] for m in listed) == sorted(["demo-highway-grid", mine.match_id])
    gc.collect()
    # everything of the replaced replays is freed; the hub holds one replay and the person's match
    assert sum(ref() is None for ref in gone) == len(gone) - 3
    assert set(hub.sessions) == {"demo-highway-grid", mine.match_id}
    assert set(hub.loops) == {"demo-highway-grid"}
    assert set(hub._history) <= {"demo-highway-grid", mine.match_id}
    assert set(hub._frames) <= {"demo-highway-grid"}
    assert featured == {"demo-highway-grid"}  # the page's featured match never changes
    # the replay's log holds one replay; the person's match is as played
    log = read_log(hub.store.path("demo-highway-grid"))
    assert log.header.extra == {"demo": "highway-grid"}
    assert sum(r["type"] == "action" for r in log.records) == len(hub.sessions["demo-highway-grid"].played)
    assert [r["notation"] for r in read_log(hub.store.path(mine.match_id)).records] == ["7@b2"]
    assert len(list((tmp_path / "matches").glob("*.jsonl"))) == 2
    hub.bus.close()


def test_run_replays_again_until_stopped(tmp_path):
    hub = Hub(MatchStore(tmp_path))
    replays = DemoReplays(hub, demos=[short_demo()], realtime=False)
    first = [loop.start() for loop in replays.new_round()]
    seen: list[int] = []
    replays.run(first, threading.Event(), pause=0, rounds=2, on_round=lambda loops: seen.append(len(loops)))
    assert seen == [1, 1, 1] and replays.rounds == 3
    assert [m.match_id for m in hub.store.list()] == ["demo-highway-grid"]
    hub.bus.close()


def test_a_log_that_is_not_a_replay_is_never_replaced(tmp_path):
    store = MatchStore(tmp_path)
    store.create("highway-grid", ["Cy", "Di"], match_id="demo-highway-grid").close()  # typed, not a replay
    hub = Hub(store)
    with pytest.raises(SessionError, match="not a demo replay"):
        DemoReplays(hub, demos=[short_demo()], realtime=False).new_round()
    assert read_log(store.path("demo-highway-grid")).header.players == ["Cy", "Di"]
    hub.bus.close()
