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


def test_ink_mask_gives_the_plain_formulas_values() -> None:
    """`ink_mask` (disc closing by rectangles, in-place arithmetic, one colour range) returns what
    the plain formulas give, on the bundled recording's sheet views (a hand over the sheet in one)."""
    import cv2

    from referee_app.demo import bundled_demos
    from referee_app.games.railroad_ink import read_table
    from vision.sheets.features import darkness
    from vision.sheets.reader import _open_wide, ink_mask

    def plain(view: np.ndarray, ppm: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        gray8 = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY)
        k = int(round(7 * ppm)) | 1
        paper8 = cv2.morphologyEx(gray8, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        paper = cv2.GaussianBlur(paper8.astype(np.float32), (0, 0), 2 * ppm)
        ratio = gray8.astype(np.float32) / np.maximum(paper, 1.0)
        ink = ratio < 0.62
        dark = _open_wide(ink.astype(np.uint8), int(round(8.0 * ppm)) | 1)
        hsv = cv2.cvtColor(view, cv2.COLOR_BGR2HSV)
        coloured = ((hsv[..., 1] > 55) & (hsv[..., 2] > 40) & ~ink).astype(np.uint8)
        coloured = cv2.morphologyEx(coloured, cv2.MORPH_OPEN, np.ones((int(3 * ppm), int(3 * ppm)), np.uint8))
        return ink, ratio, (dark | coloured | (paper < 35).astype(np.uint8)) > 0

    demo = next(d for d in bundled_demos() if d.game == "railroad-ink")
    checked = 0
    for entry in demo.manifest["frames"][::3]:
        reading, _ = read_table(cv2.imread(str(demo.folder / entry["file"])))
        if reading is None:
            continue
        view = reading.sheet_seen.view
        got, want = ink_mask(view.image, view.px_per_mm), plain(view.image, view.px_per_mm)
        assert all(np.array_equal(a, b) for a, b in zip(got, want, strict=True))
        assert np.array_equal(darkness(got[1]), np.clip(1.0 - want[1], 0.0, 1.0).astype(np.float32))
        checked += 1
    assert checked >= 8
