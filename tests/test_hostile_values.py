"""Values Python's JSON parser takes but strict JSON has no room for (NaN, Infinity, 1e400,
integers of hundreds of digits, lone UTF-16 surrogates): a 400 from every route, nothing written,
and no engine check that raises OverflowError instead of saying what is wrong (audit23)."""

from __future__ import annotations

import pytest
from web_hub import JSON_BODY, auth, files_and_rows

from engine import EngineError
from engine.tokyo.actions import check_height, check_point
from engine.tokyo.config import Block, SetGeometry
from referee_app.matchlog import Header, MatchLogError, MatchLogWriter
from referee_app.web.app import create_app

BIG = "1" + "0" * 400  # a JSON integer no float holds


@pytest.mark.parametrize("players,variant,message", [
    ('["A", "B"]', '{"first_player": NaN}', "NaN"),
    ('["A", "B", "C"]', '{"blocks": [[0, 0, 10, 10, Infinity]]}', "Infinity"),
    ('["A", "B"]', '{"geometry": {"stick_length_mm": -Infinity}}', "Infinity"),
    ('["A", "B"]', '{"geometry": {"stick_length_mm": 1e400}}', "cannot be read"),
    ('["A", "B"]', '{"geometry": {"stick_length_mm": ' + BIG + '}}', "cannot be read"),
    ('["A", "B", "C"]', '{"blocks": [[' + BIG + ', 0, 10, 10, 10]]}', "cannot be read"),
    ('["A", "B"]', '{"grey": ' + BIG + '}', "cannot be read"),
    ('["A\\ud800", "B"]', '{}', "surrogate"),
    ('["A", "B"]', '{"colors": ["purple", "\\udfff"]}', "surrogate"),
])
def test_a_new_match_with_values_strict_json_refuses_is_a_400_and_writes_nothing(hub, players, variant, message):
    client = create_app(hub).test_client()
    raw = f'{{"game": "tokyo-highway", "players": {players}, "variant": {variant}}}'
    r = client.post("/api/matches", data=raw.encode(), headers=auth(hub) | JSON_BODY)
    assert r.status_code == 400, r.get_json()
    assert message in r.get_json()["error"]
    assert files_and_rows(hub) == ([], [])  # main: a 500, and a lone surrogate left a headless log file


@pytest.mark.parametrize("path,raw", [
    ("corrections", '{"reason": "mis\\ud83dread"}'),
    ("end", '{"reason": "\\ud800"}'),
    ("actions", '{"notation": "5@b2", "x": NaN}'),
])
def test_changes_with_such_values_are_400_and_leave_the_log_alone(hub, path, raw):
    client = create_app(hub).test_client()
    mid = hub.create_match("highway-grid", ["A", "B"]).match_id
    assert client.post(f"/api/matches/{mid}/actions", json={"notation": "5@b2"},
                       headers=auth(hub) | JSON_BODY).status_code == 200
    before = hub.store.path(mid).read_bytes()
    r = client.post(f"/api/matches/{mid}/{path}", data=raw.encode(), headers=auth(hub) | JSON_BODY)
    assert r.status_code == 400, r.get_json()
    assert hub.store.path(mid).read_bytes() == before


def test_a_tokyo_move_with_a_height_of_hundreds_of_digits_is_a_400(hub):
    client = create_app(hub).test_client()
    mid = hub.create_match("tokyo-highway", ["A", "B"]).match_id
    before = hub.store.path(mid).read_bytes()
    r = client.post(f"/api/matches/{mid}/actions", headers=auth(hub) | JSON_BODY,
                    json={"notation": "start (0,-57) table (102,-57) h" + "9" * 400})
    assert r.status_code == 400, r.get_json()  # main: 500 (OverflowError in math.isfinite)
    assert "support height" in r.get_json()["error"]
    assert hub.store.path(mid).read_bytes() == before


@pytest.mark.parametrize("make", [
    lambda: check_height(10**400),
    lambda: check_point((10**400, 0), "support position"),
    lambda: SetGeometry(stick_length_mm=10**400),
    lambda: Block(10**400, 0, 10, 10, 10),
])
def test_engine_checks_name_an_integer_too_large_for_a_float(make):
    """A log or a --variant may carry such a number: an EngineError, not an OverflowError."""
    with pytest.raises(EngineError):
        make()


def test_a_log_header_that_cannot_be_written_creates_no_file(tmp_path):
    header = Header(match_id="m1", game="highway-grid", players=["A\ud800", "B"])
    with pytest.raises(MatchLogError, match="cannot be written"):
        MatchLogWriter.create(tmp_path / "m1.jsonl", header)
    assert list(tmp_path.iterdir()) == []
