"""Sticks and junction flags from two calibrated views (vision.tokyo.stick_fusion, vision.tokyo.junctions):
the fusion rules on hand-made readings over drawn images, and `eval sticks` on a small rendered
`dataset tokyo --views 2` set through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from tokyo_views_scene import ORANGE, PURPLE, SIZES, calibs, road_scene
from tokyo_views_scene import draw as _draw
from tokyo_views_scene import px as _px
from tokyo_views_scene import stick as _stick
from tokyo_views_scene import support as _support
from tokyo_views_scene import table as _table
from tokyo_views_scene import z as _z

from referee_app.cli import main
from vision.tokyo import TokyoCalibration, TokyoObservation
from vision.tokyo.observation import CrossingReading
from vision.tokyo.stereo import fuse_views, read_tokyo_views
from vision.types import VisionError


def _calibs() -> list[TokyoCalibration]:
    return calibs((20, 120))


# two columns and the road between them (a whole stick: 114 mm), a third column off to the side
COLS = [(-57.0, 0.0, 2), (57.0, 0.0, 3), (0.0, 120.0, 1)]
ROAD = ((-57.0, 0.0, _z(2)), (57.0, 0.0, _z(3)))


def _views(road_in: tuple[bool, bool]) -> tuple[list[TokyoObservation], list[TokyoCalibration], list[np.ndarray]]:
    return road_scene(_calibs(), COLS, ROAD, road_in)


def test_stick_one_view_misses_is_added_from_the_other() -> None:
    obs, calibs, images = _views((False, True))
    fused = fuse_views(obs, calibs, images)
    assert len(obs[0].sticks) == 1
    st = obs[0].sticks[0]
    want = [_px(calibs[0], e) for e in ROAD]
    assert max(np.hypot(*np.subtract(p, q)) for p, q in zip(st.endpoints, want, strict=True)) < 1.0
    assert st.rests == (0, 1) and st.color == "purple"
    assert [ln.status for ln in fused.sticks] == ["added"] and fused.sticks[0].sticks == (0, 0)
    assert json.loads(json.dumps(fused.to_dict()))["sticks"][0]["status"] == "added"


def test_stick_with_no_pieces_in_the_view_that_misses_it_is_not_added() -> None:
    obs, calibs, images = _views((False, True))
    images[0] = _table(0)  # view 0 shows bare table where view 1 reads the road
    fused = fuse_views(obs, calibs, images)
    assert obs[0].sticks == [] and fused.sticks == []


def test_stick_both_views_read_is_confirmed() -> None:
    obs, calibs, images = _views((True, True))
    before = obs[0].sticks[0].confidence
    fused = fuse_views(obs, calibs, images)
    assert len(obs[0].sticks) == 1 and [ln.status for ln in fused.sticks] == ["views"]
    assert fused.sticks[0].sticks == (0, 0)
    assert obs[0].sticks[0].confidence > before


def test_part_of_a_stick_takes_the_whole_ends_the_other_view_reads() -> None:
    obs, calibs, images = _views((False, True))
    a, b = ROAD
    part = tuple(np.array(a) + 0.65 * (np.array(b) - np.array(a)))
    obs[0].sticks.append(_stick(calibs[0], a, part, (0, None)))  # view 0 reads only part of the road
    fused = fuse_views(obs, calibs, images)
    assert len(obs[0].sticks) == 1 and [ln.status for ln in fused.sticks] == ["refined"]
    want = [_px(calibs[0], e) for e in ROAD]
    got = obs[0].sticks[0].endpoints
    assert max(np.hypot(*np.subtract(p, q)) for p, q in zip(got, want, strict=True)) < 1.0
    assert obs[0].sticks[0].rests == (0, 1)


def _false_stick_views(draw_in_b: bool) -> tuple[list[TokyoObservation], list[TokyoCalibration], list]:
    """View 0 reads the road and a short false stick (60 mm) over pieces of its own image; view 1 reads
    the road only; the false stick's place is drawn in view 1's image when draw_in_b."""
    obs, calibs, images = _views((True, True))
    a, b = (-40.0, -90.0, _z(0)), (20.0, -90.0, _z(0))
    obs[0].sticks.append(_stick(calibs[0], a, b, (None, None), "orange"))
    obs[0].sticks[1].role = "loose"
    _draw(images[0], calibs[0], a, b, ORANGE)
    if draw_in_b:
        _draw(images[1], calibs[1], a, b, ORANGE)
    # a crossing between the two, to see the indices follow
    obs[0].crossings.append(CrossingReading(0, 1, (0.0, 0.0), 1, 0.8, "colour"))
    return obs, calibs, images


def test_false_stick_seen_in_one_view_only_is_dropped() -> None:
    obs, calibs, images = _false_stick_views(draw_in_b=False)
    fused = fuse_views(obs, calibs, images)
    assert len(obs[0].sticks) == 1 and obs[0].sticks[0].color == "purple"
    assert obs[0].crossings == []  # the crossing with the dropped stick goes with it
    assert sorted((ln.status, ln.sticks) for ln in fused.sticks) == [
        ("dropped", (None, None)),
        ("views", (0, 0)),
    ]
    assert any("dropped" in w for w in fused.warnings)


def test_one_view_stick_with_pieces_in_the_other_view_is_kept() -> None:
    obs, calibs, images = _false_stick_views(draw_in_b=True)  # view 1 shows it but did not read it
    fused = fuse_views(obs, calibs, images)
    assert len(obs[0].sticks) == 2
    assert sorted(ln.status for ln in fused.sticks) == ["kept", "views"]
    assert len(obs[0].crossings) == 1


def test_added_stick_takes_its_crossing_from_the_view_that_reads_it() -> None:
    calibs = _calibs()
    cross = ((0.0, -60.0, _z(1)), (0.0, 54.0, _z(1)))  # lower road, under ROAD at x = 0
    obs, images = [], []
    for v, cal in enumerate(calibs):
        o = TokyoObservation(calibrated=True, supports=[_support(cal, x, y, h) for x, y, h in COLS])
        o.supports.append(_support(cal, 0.0, -60.0, 1))
        o.supports.append(_support(cal, 0.0, 54.0, 1))
        o.sticks.append(_stick(cal, *ROAD, (0, 1)))
        img = _table(v)
        _draw(img, cal, *cross, ORANGE)
        _draw(img, cal, *ROAD, PURPLE)
        if v == 1:  # only view 1 reads the lower road, and reads the purple one on top
            o.sticks.append(_stick(cal, *cross, (3, 4), "orange"))
            o.crossings.append(CrossingReading(0, 1, (0.0, 0.0), 0, 0.9, "colour"))
        obs.append(o)
        images.append(img)
    fuse_views(obs, calibs, images)
    assert [s.color for s in obs[0].sticks] == ["purple", "orange"]
    assert len(obs[0].crossings) == 1
    cr = obs[0].crossings[0]
    assert {cr.a, cr.b} == {0, 1} and cr.top == 0


def test_junction_flags_vote_instead_of_any_view() -> None:
    calibs = _calibs()
    obs = []
    for cal in calibs:
        o = TokyoObservation(calibrated=True, supports=[_support(cal, x, y, h) for x, y, h in COLS])
        o.sticks.append(_stick(cal, *ROAD, (0, 1)))
        obs.append(o)
    # view 0 calls column 0 a junction on little (low confidence); view 1, sure, says it is not; the
    # plain table images show no yellow side, so the flags vote
    obs[0].supports[0].junction, obs[0].supports[0].confidence = True, 0.3
    images = [_table(0), _table(1)]
    fused = fuse_views(obs, calibs, images)
    col = next(c for c in fused.columns if c.supports[0] == 0)
    assert col.junction is False and obs[0].supports[0].junction is False
    # a yellow top unit drawn in both images is read as a junction whatever the flags said
    for v, cal in enumerate(calibs):
        x, y, h = COLS[2]
        for z in np.linspace((h - 1) * SIZES.unit_mm, h * SIZES.unit_mm, 5):
            cv2.circle(images[v], tuple(int(round(c)) for c in _px(cal, (x, y, z))), 9, (0, 220, 240), -1)
    obs2 = [
        TokyoObservation(calibrated=True, supports=[_support(c, x, y, h) for x, y, h in COLS]) for c in calibs
    ]
    for o, cal in zip(obs2, calibs, strict=True):
        o.sticks.append(_stick(cal, *ROAD, (0, 1)))
        o.sticks.append(_stick(cal, (0.0, 120.0, _z(1)), (0.0, 6.0, _z(1)), (2, None)))
    fused = fuse_views(obs2, calibs, images)
    col = next(c for c in fused.columns if c.supports[0] == 2)
    assert col.junction is True and all(o.supports[2].junction for o in obs2)


def test_fuse_views_refuses_images_that_do_not_fit() -> None:
    obs, calibs, images = _views((True, True))
    with pytest.raises(VisionError, match="1 images but 2 readings"):
        fuse_views(obs, calibs, images[:1])


@pytest.fixture(scope="module")
def pair_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("stick_views") / "set"
    assert main(["dataset", "tokyo", "--out", str(out), "--n", "3", "--seed", "8", "--views", "2"]) == 0
    return out


def test_eval_two_view_sticks_through_the_cli(pair_set: Path, tmp_path: Path) -> None:
    out = tmp_path / "m.json"
    assert main(["eval", "sticks", str(pair_set), "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["sticks_first_view"] > 0
    # on these three tables view 0 misses sticks that view 1 reads
    assert res["stick_recall_views"] > res["stick_recall_first_view"]
    assert res["stick_precision_views"] >= res["stick_precision_first_view"] - 0.02
    assert res["over_under_accuracy_views"] >= 0.95
    assert 0 <= res["junction_accuracy"] <= 1 and 0 <= res["junction_accuracy_views"] <= 1
    for key in ("stick_recall", "stick_precision", "over_under_accuracy", "height_exact_views"):
        assert key in res


def test_eval_single_view_folder_has_no_view_numbers(tmp_path: Path) -> None:
    folder = tmp_path / "one"
    assert main(["dataset", "tokyo", "--out", str(folder), "--n", "1", "--seed", "8"]) == 0
    out = tmp_path / "m.json"
    assert main(["eval", "sticks", str(folder), "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert "stick_recall" in res and not any(k.endswith("_views") or "first_view" in k for k in res)


def test_read_tokyo_views_keeps_views0_consistent(pair_set: Path) -> None:
    items = json.loads((pair_set / "labels.json").read_text())["items"]
    changed = 0
    for key in sorted({it["view_of"] for it in items}):
        group = sorted((it for it in items if it["view_of"] == key), key=lambda it: it["view"])
        images = [cv2.imread(str(pair_set / it["image"])) for it in group]
        views = read_tokyo_views(images, [it["calibration"] for it in group])
        first = views.views[0]
        n = len(first.sticks)
        # every stick of views[0] has one link, by its index after the fusion
        assert sorted(ln.sticks[0] for ln in views.sticks if ln.status != "dropped") == list(range(n))
        assert all(ln.sticks[0] is None for ln in views.sticks if ln.status == "dropped")
        changed += sum(ln.status in ("added", "dropped", "refined") for ln in views.sticks)
        for c in first.crossings:
            assert 0 <= c.a < n and 0 <= c.b < n and c.a != c.b and c.top in (c.a, c.b)
        assert all(car.stick is None or 0 <= car.stick < n for car in first.cars)
        assert all(r is None or 0 <= r < len(first.supports) for st in first.sticks for r in st.rests)
    assert changed > 0  # these tables do change views[0]
