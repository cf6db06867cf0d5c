"""Typed moves: lists split move by move for every notation, players named by name (the CLI's reader,
referee_app/typed_moves.py), and the page's move box taking a name through the web API."""

from __future__ import annotations

import engine
from referee_app.hub import Hub
from referee_app.store import MatchStore
from referee_app.typed_moves import MoveReader
from referee_app.web.app import create_app

ROLL = "roll railway_curve railway_straight railway_t overpass"


def reader(name: str, names: tuple[str, ...] = ()) -> MoveReader:
    return MoveReader(name, engine.get_game(name).parse_action, names)


def test_a_dice_play_with_a_store_stays_one_move():
    moves = reader("highway-dice").read_list("R 3 5 3>W07 +5 +4 pass")
    assert [m.action.notation() for m in moves] == ["R 3 5", "3>W07 +5", "+4", "pass"]


def test_unreadable_words_are_one_entry_and_reading_goes_on():
    moves = reader("highway-dice").read_list("R 1 x 1>W01 undo Q")
    assert [(m.text, bool(m.error), m.undo) for m in moves] == [
        ("R 1 x", True, False), ("1>W01", False, False), ("undo", False, True), ("Q", True, False)]
    assert "cannot read 'R 1 x'" in moves[0].error


def test_a_roll_ends_where_the_next_move_begins():
    moves = reader("railroad-ink", ("Ann",)).read_list(f"{ROLL} Ann railway_straight B0 -R-R p0 done")
    assert [m.action.notation() for m in moves] == [ROLL, "p0 railway_straight B0 -R-R", "p0 done"]
    bad = reader("railroad-ink").read_one("roll railway_curve railwya_straight")
    assert "'railwya_straight' is not a face of any die" in bad.error


def test_names_map_to_each_games_seat_token_and_back():
    rri = reader("railroad-ink", ("Ann", "Bo Ek"))
    assert rri.parse("bo ek done").notation() == "p1 done"
    assert rri.display("p1 done", ["Ann", "Bo Ek"]) == "Bo Ek done"
    tokyo = reader("tokyo-highway", ("Ann", "Bo"))
    assert tokyo.parse("Bo skip").notation() == tokyo.parse("p2 skip").notation()
    grid = reader("highway-grid", ("Ann", "Bo"))  # its notation names no player
    assert grid.display("7@b2", ["Ann", "Bo"]) == "7@b2"


def test_the_page_takes_a_move_that_names_its_player(tmp_path):
    hub = Hub(MatchStore(tmp_path / "data"))
    try:
        client = create_app(hub, stream_seconds=2.0).test_client()
        auth = {"X-Referee-Token": hub.admin_token}
        r = client.post("/api/matches", json={"game": "railroad-ink", "players": ["Ann"]}, headers=auth)
        assert r.status_code == 201, r.get_json()
        mid = r.get_json()["match_id"]
        for notation in (ROLL, "Ann railway_straight B0 -R-R"):
            r = client.post(f"/api/matches/{mid}/actions", json={"notation": notation}, headers=auth)
            assert r.status_code in (200, 201), r.get_json()
        history = client.get(f"/api/matches/{mid}").get_json()["history"]
        assert [h["notation"] for h in history] == [ROLL, "p0 railway_straight B0 -R-R"]
        assert history[1]["verdict"]["legal"]
    finally:
        hub.bus.close()
