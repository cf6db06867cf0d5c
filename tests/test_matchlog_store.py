"""MatchStore: logs in a folder plus a SQLite index that can always be rebuilt from them."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee_app.cli import main
from referee_app.matchlog import MatchLogError, read_log
from referee_app.store import MatchStore, default_data_dir


def test_default_data_dir_precedence(monkeypatch, tmp_path):
    monkeypatch.setenv("HIGHWAY_REFEREE_DATA", str(tmp_path / "explicit"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_data_dir() == tmp_path / "explicit"
    monkeypatch.delenv("HIGHWAY_REFEREE_DATA")
    assert default_data_dir() == tmp_path / "xdg" / "highway-referee"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_data_dir() == tmp_path / "home" / ".local" / "share" / "highway-referee"


def test_create_write_update_list_get(tmp_path):
    store = MatchStore(tmp_path)
    w = store.create("highway-grid", ["Ann", "Bob"], match_id="m1")
    w.action({"type": "place", "piece": 7, "cell": "b2"}, "7@b2",
             {"legal": True, "rule": "grid.place", "reason": "ok", "consequence": "none"}, "manual")
    w.close()
    assert store.path("m1") == tmp_path / "matches" / "m1.jsonl" and store.path("m1").exists()
    info = store.get("m1")
    assert (info.game, info.players, info.status) == ("highway-grid", ["Ann", "Bob"], "playing")
    assert info.actions == 0  # the index row written at creation
    info = store.update("m1")  # refresh from the log
    assert info.actions == 1 and info.status == "playing"
    store.update("m1", status="finished", outcome={"winners": [0], "draw": False})
    assert store.get("m1").status == "finished" and store.get("m1").outcome["winners"] == [0]
    assert [i.match_id for i in store.list()] == ["m1"]
    w2 = store.open_writer("m1")
    assert w2.next_seq == 2
    w2.close()
    with pytest.raises(MatchLogError, match="already exists"):
        store.create("highway-grid", ["A", "B"], match_id="m1")
    with pytest.raises(MatchLogError, match="no match 'nope'"):
        store.get("nope")
    with pytest.raises(MatchLogError, match="unknown match status"):
        store.update("m1", status="weird")


@pytest.mark.parametrize("bad", ["../etc/passwd", "a/b", "", ".hidden", "a" * 65, "x.jsonl", "..", "a b",
                                 "é", "a\x00b", "abc\n"])
def test_match_ids_cannot_leave_the_folder(tmp_path, bad):
    store = MatchStore(tmp_path)
    with pytest.raises(MatchLogError, match="invalid match id"):
        store.path(bad)
    with pytest.raises(MatchLogError, match="invalid match id"):
        store.get(bad)


def test_reindex_lists_corrupt_logs_and_never_drops_or_rewrites_them(tmp_path):
    store = MatchStore(tmp_path)
    store.create("highway-grid", ["A", "B"], match_id="good").close()
    damaged = store.create("highway-grid", ["A", "B"], match_id="damaged")
    damaged.event("note", "fine")
    damaged.close()
    with open(store.path("damaged"), "ab") as fh:
        fh.write(b'{"type":"action","seq":2,"act\xff\n{"type":"event","seq":3,"kind":"x","message":""}\n')
    torn = store.create("highway-grid", ["A", "B"], match_id="torn")
    torn.close()
    with open(store.path("torn"), "ab") as fh:
        fh.write(b'{"type":"action","seq":1,"act')  # a crash mid-line: nothing acknowledged is lost
    (store.matches_dir / "garbage.jsonl").write_bytes(b"not json at all\n")
    before = {p.name: p.read_bytes() for p in store.matches_dir.iterdir()}
    store.index_path.unlink()  # the index is only a cache
    infos = {i.match_id: i for i in MatchStore(tmp_path).reindex()}
    assert set(infos) == {"good", "damaged", "torn", "garbage"}
    assert infos["good"].status == "playing"
    assert infos["damaged"].status == "damaged" and "line 3: not valid UTF-8" in infos["damaged"].problem
    assert infos["torn"].status == "playing" and "line 2: truncated record" in infos["torn"].problem
    assert infos["garbage"].status == "corrupt" and "line 1" in infos["garbage"].problem
    assert {p.name: p.read_bytes() for p in store.matches_dir.iterdir()} == before
    assert len(store.list()) == 4


def test_a_log_copied_in_by_hand_is_indexed_on_get(tmp_path, repo_dir):
    store = MatchStore(tmp_path)
    demo = repo_dir / "referee_app" / "data" / "matches" / "highway-grid-demo.jsonl"
    store.path("highway-grid-demo").write_bytes(demo.read_bytes())
    info = store.get("highway-grid-demo")
    assert info.status == "finished" and info.outcome["winners"] == [1] and info.actions == 19


def test_log_list_and_reindex_commands(capsys, tmp_path, repo_dir):
    demo = repo_dir / "referee_app" / "data" / "matches" / "highway-grid-demo.jsonl"
    (tmp_path / "matches").mkdir()
    Path(tmp_path / "matches" / "highway-grid-demo.jsonl").write_bytes(demo.read_bytes())
    (tmp_path / "matches" / "broken.jsonl").write_bytes(b'{"type":"header","format":99}\n')
    assert main(["log", "reindex", "--data", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "highway-grid-demo" in out and "won by Bruno" in out
    assert "broken" in out and "corrupt" in out and "newer than this software" in out
    assert "2 match logs indexed" in out
    assert main(["log", "list", "--data", str(tmp_path)]) == 0
    assert "highway-grid-demo" in capsys.readouterr().out
    assert read_log(tmp_path / "matches" / "highway-grid-demo.jsonl").header.game == "highway-grid"
