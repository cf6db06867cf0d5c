"""CSV exports never hand a spreadsheet a formula typed by a player (page and `log export`)."""
from __future__ import annotations

import csv
import io

import pytest

from referee_app.cli import main
from referee_app.csv_cells import safe_cell
from referee_app.hub import Hub
from referee_app.store import MatchStore
from referee_app.web.app import create_app

FORMULA = '=HYPERLINK("http://x","y")'


@pytest.mark.parametrize("text", ["=1+1", "+1", "-2+3", "@SUM(A1)", "\tx", "\r=1"])
def test_formula_text_is_quoted(text):
    assert safe_cell(text) == "'" + text


@pytest.mark.parametrize("value", ["5@a1", "grid.place", "", "a=b", 3, -1.5, None, True])
def test_other_cells_are_unchanged(value):
    assert safe_cell(value) == value


@pytest.fixture()
def played(tmp_path):
    hub = Hub(MatchStore(tmp_path / "data"))
    client = create_app(hub, stream_seconds=2.0).test_client()
    tok = {"X-Referee-Token": hub.admin_token}
    r = client.post("/api/matches", json={"game": "highway-grid", "players": ["=cmd|' /C calc'!A0", "Bo"]},
                    headers=tok)
    mid = r.get_json()["match_id"]
    seq = client.post(f"/api/matches/{mid}/actions", json={"notation": "5@a1"}, headers=tok).get_json()["seq"]
    r = client.post(f"/api/matches/{mid}/corrections", json={"target": seq, "reason": FORMULA}, headers=tok)
    assert r.status_code == 200, r.get_json()
    yield hub, client, mid
    hub.bus.close()


def _cells(text: str) -> list[str]:
    return [c for row in csv.reader(io.StringIO(text)) for c in row]


def test_page_export_quotes_a_typed_formula(played):
    _, client, mid = played
    cells = _cells(client.get(f"/api/matches/{mid}/export?format=csv").get_data(as_text=True))
    assert "'" + FORMULA in cells
    assert not any(c.startswith(("=", "+", "@")) for c in cells)


def test_log_export_quotes_typed_formulas(played, capsys):
    hub, _, mid = played
    assert main(["log", "export", str(hub.store.path(mid)), "--format", "csv"]) == 0
    cells = _cells(capsys.readouterr().out)
    assert "'" + FORMULA in cells and "'=cmd|' /C calc'!A0" in cells
    assert not any(c.startswith(("=", "+", "@")) for c in cells)
