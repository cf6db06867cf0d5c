"""Hand-drawn Railroad Ink sheets: printing, reading squares, refusing bad views, evaluation CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from datasets.sheets.scenes import random_content, sheet_scene
from referee_app.cli import main
from vision.sheets import read_sheet, square_names

SAMPLES = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "sheets"


def test_print_sheet(tmp_path: Path) -> None:
    assert main(["print", "railroad-ink-sheet", "--out", str(tmp_path), "--dpi", "100"]) == 0
    assert 'width="200mm"' in (tmp_path / "railroad-ink-sheet.svg").read_text()
    geo = json.loads((tmp_path / "railroad-ink-sheet-geometry.json").read_text())
    assert geo["squares"] == 7 and len(geo["exits"]) == 12


def test_drawn_routes_are_read_square_by_square() -> None:
    content = {
        "a1": {"sides": "H-H-", "overpass": False, "station": False, "round": 1},
        "b2": {"sides": "HRHR", "overpass": True, "station": False, "round": 2},
        "c3": {"sides": "H-R-", "overpass": False, "station": True, "round": 3},
        "d4": {"sides": "RRR-", "overpass": False, "station": False, "round": None},
        "e5": {"sides": "-HH-", "overpass": False, "station": False, "round": 5},
    }
    image, truth = sheet_scene(content, seed=3, effects=0.3, tilt_deg=(0, 15))
    got = read_sheet(image)
    assert set(got) == set(square_names())
    for name in square_names():
        t, r = truth[name], got[name]
        assert r.status == "read", (name, r)
        assert (r.sides, r.overpass, r.station) == (t["sides"], t["overpass"], t["station"]), (name, r, t)
        assert r.round_number in (t["round"], None), (name, r)


def test_covered_squares_are_refused() -> None:
    rng = np.random.default_rng(7)
    image, truth = sheet_scene(random_content(rng), seed=7, occlude=True, effects=0.3)
    got = read_sheet(image)
    covered = [n for n, t in truth.items() if t == "unreadable"]
    assert covered
    for name in covered:
        assert got[name].status == "unreadable" and got[name].region_mm is not None


def test_steep_view_is_refused() -> None:
    image, _ = sheet_scene({}, seed=5, effects=0.0, tilt_deg=(62, 64))
    got = read_sheet(image)
    assert all(r.status == "unreadable" and "steep" in r.reason for r in got.values())


def test_eval_sheets_on_the_shipped_sample(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    assert main(["eval", "sheets", str(SAMPLES), "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["squares"] > 50
    assert report["square_accuracy"] >= 0.9
    assert report["rounds_wrong"] <= 0.05 * report["rounds"]
