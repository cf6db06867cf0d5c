"""Three calibrated views of one table (vision.tokyo.stereo, vision.tokyo.stick_fusion): the votes on
hand-made readings over drawn images (a stick one view alone reads that the other two see as table, a
stick two other views read, a column one view misplaces, a column carrying only a stick no other view
reads), and `eval sticks` on a tiny rendered `dataset tokyo --views 3` set through the CLI."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from tokyo_views_scene import ORANGE, SIZES, calibs, road_scene
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

YAWS = (20, 140, 260)  # three cameras around the table


def _calibs(n: int = 3) -> list[TokyoCalibration]:
    return calibs(YAWS[:n])


COLS = [(-57.0, 0.0, 2), (57.0, 0.0, 3)]
ROAD = ((-57.0, 0.0, _z(2)), (57.0, 0.0, _z(3)))  # a whole stick (114 mm) between the two columns
# a loose stick on the table, away from the road
LOOSE = ((-60.0, -90.0, SIZES.stick_thickness_mm / 2), (54.0, -90.0, SIZES.stick_thickness_mm / 2))


def _three_views(
    road_in: tuple[bool, bool, bool],
) -> tuple[list[TokyoObservation], list[TokyoCalibration], list[np.ndarray]]:
    return road_scene(_calibs(), COLS, ROAD, road_in)


def test_stick_of_one_view_two_views_see_as_table_is_dropped() -> None:
    obs, calibs, images = _three_views((True, True, True))
    obs[0].sticks.append(_stick(calibs[0], *LOOSE, (None, None), "orange"))  # view 0 alone reads it
    _draw(images[0], calibs[0], *LOOSE, ORANGE)  # ... and only its image shows it
    fused = fuse_views(obs, calibs, images)
    assert [s.color for s in obs[0].sticks] == ["purple"]
    assert sorted((ln.status, ln.sticks) for ln in fused.sticks) == [
        ("dropped", (None, None, None)),
        ("views", (0, 0, 0)),
    ]
    assert any("dropped" in w for w in fused.warnings)


def test_stick_of_one_view_the_others_show_is_kept() -> None:
    obs, calibs, images = _three_views((True, True, True))
    obs[0].sticks.append(_stick(calibs[0], *LOOSE, (None, None), "orange"))
    for img, cal in zip(images, calibs, strict=True):  # every image shows it; only view 0 read it
        _draw(img, cal, *LOOSE, ORANGE)
    fused = fuse_views(obs, calibs, images)
    assert [s.color for s in obs[0].sticks] == ["purple", "orange"]
    assert sorted(ln.status for ln in fused.sticks) == ["kept", "views"]


def test_stick_of_one_view_one_other_view_sees_as_table_is_dropped() -> None:
    # view 1 shows pieces along it, view 2 bare table: one view that can see it and does not is enough
    # (on the tuning renders waiting for two such views kept more false sticks and found no true one)
    obs, calibs, images = _three_views((True, True, True))
    obs[0].sticks.append(_stick(calibs[0], *LOOSE, (None, None), "orange"))
    for v in (0, 1):
        _draw(images[v], calibs[v], *LOOSE, ORANGE)
    fused = fuse_views(obs, calibs, images)
    assert [s.color for s in obs[0].sticks] == ["purple"]
    assert sorted(ln.status for ln in fused.sticks) == ["dropped", "views"]


def test_stick_view0_reads_twice_keeps_the_reading_the_others_confirm() -> None:
    obs, calibs, images = _three_views((True, True, True))
    # a second, unconfirmed reading of the road run on 14 px past both ends (its ends' rays miss the
    # other views' by more than a match allows), carrying the crossing with a loose stick
    twin = _stick(calibs[0], *ROAD, (0, 1))
    ends = np.array(twin.endpoints)
    out = (ends[1] - ends[0]) / np.linalg.norm(ends[1] - ends[0]) * 14.0
    twin.endpoints = (tuple(ends[0] - out), tuple(ends[1] + out))  # type: ignore[assignment]
    obs[0].sticks.append(twin)
    obs[0].sticks.append(_stick(calibs[0], (0.0, -60.0, _z(0)), (0.0, 54.0, _z(0)), (None, None), "orange"))
    obs[0].crossings.append(CrossingReading(1, 2, (0.0, 0.0), 1, 0.8, "colour"))
    for img, cal in zip(images, calibs, strict=True):
        _draw(img, cal, (0.0, -60.0, _z(0)), (0.0, 54.0, _z(0)), ORANGE)
    fused = fuse_views(obs, calibs, images)
    assert [s.color for s in obs[0].sticks] == ["purple", "orange"]
    assert sorted(ln.status for ln in fused.sticks) == ["dropped", "kept", "views"]
    # the crossing the dropped twin carried is its kept twin's now
    assert [(c.a, c.b, c.top) for c in obs[0].crossings] == [(0, 1, 0)]


def test_stick_read_twice_keeps_the_confirmed_reading_with_the_whole_ones_ends() -> None:
    # every view reads the road stopping 16 mm short of its end (no whole stick: it stops at a stick
    # crossing near that end); views[0] also reads the whole road, alone, with the crossing on it
    obs, calibs, images = _three_views((False, False, False))
    a, b = ROAD
    short_end = (b[0] - 16.0, b[1], a[2] + (b[2] - a[2]) * (b[0] - 16.0 - a[0]) / (b[0] - a[0]))
    cross = ((50.0, -60.0, _z(0)), (50.0, 54.0, _z(0)))  # under the road, 7 mm inside its end
    for o, cal, img in zip(obs, calibs, images, strict=True):
        o.sticks.append(_stick(cal, a, short_end, (0, None)))
        _draw(img, cal, *cross, ORANGE)
    obs[0].sticks.append(_stick(calibs[0], a, b, (0, 1)))
    obs[0].sticks.append(_stick(calibs[0], *cross, (None, None), "orange"))
    obs[0].crossings.append(CrossingReading(1, 2, _px(calibs[0], (50.0, 0.0, _z(2))), 1, 0.8, "colour"))
    for st in obs[0].sticks:
        st.width_px = 14.0  # the two readings' far ends lie within 2.5 widths: one stick read twice
    fused = fuse_views(obs, calibs, images)
    # the short reading three views confirm stays, with the whole reading's ends and its crossing
    assert sorted(ln.status for ln in fused.sticks) == ["dropped", "kept", "refined"]
    assert [s.color for s in obs[0].sticks] == ["purple", "orange"]
    want = [_px(calibs[0], e) for e in ROAD]
    got = obs[0].sticks[0].endpoints
    assert max(np.hypot(*np.subtract(p, q)) for p, q in zip(got, want, strict=True)) < 1.0
    assert obs[0].sticks[0].rests == (0, 1)
    assert [(c.a, c.b, c.top) for c in obs[0].crossings] == [(0, 1, 0)]


def test_refined_stick_takes_the_crossing_another_view_reads() -> None:
    # views[0] reads the road stopping 16 mm short, before the stick crossing it, so it reads no
    # crossing; views 1 and 2 read the whole road, and view 1 the crossing
    obs, calibs, images = _three_views((False, True, True))
    a, b = ROAD
    short_end = (b[0] - 16.0, b[1], a[2] + (b[2] - a[2]) * (b[0] - 16.0 - a[0]) / (b[0] - a[0]))
    cross = ((50.0, -60.0, _z(0)), (50.0, 54.0, _z(0)))
    obs[0].sticks.append(_stick(calibs[0], a, short_end, (0, None)))
    for o, cal, img in zip(obs, calibs, images, strict=True):
        o.sticks.append(_stick(cal, *cross, (None, None), "orange"))
        _draw(img, cal, *cross, ORANGE)
    obs[1].crossings.append(CrossingReading(0, 1, _px(calibs[1], (50.0, 0.0, _z(2))), 0, 0.8, "colour"))
    fused = fuse_views(obs, calibs, images)
    assert sorted(ln.status for ln in fused.sticks) == ["refined", "views"]
    assert [(c.a, c.b, c.top) for c in obs[0].crossings] == [(0, 1, 0)]


def test_stick_view0_runs_on_past_an_end_takes_the_whole_ends_the_others_read() -> None:
    obs, calibs, images = _three_views((True, True, True))
    a, b = ROAD
    past = (b[0] + 18.0, b[1], b[2])  # views[0] runs the road on 18 mm past its end: no whole stick
    obs[0].sticks[0] = _stick(calibs[0], a, past, (0, None))
    fused = fuse_views(obs, calibs, images)
    assert [(ln.status, ln.sticks) for ln in fused.sticks] == [("refined", (0, 0, 0))]
    want = [_px(calibs[0], e) for e in ROAD]
    got = obs[0].sticks[0].endpoints
    assert max(np.hypot(*np.subtract(p, q)) for p, q in zip(got, want, strict=True)) < 1.0
    assert obs[0].sticks[0].rests == (0, 1)


def test_stick_two_other_views_read_is_added_once() -> None:
    obs, calibs, images = _three_views((False, True, True))
    fused = fuse_views(obs, calibs, images)
    # one stick, carrying both readers' indices: not added once per view
    assert len(obs[0].sticks) == 1 and obs[0].sticks[0].rests == (0, 1)
    assert [(ln.status, ln.sticks) for ln in fused.sticks] == [("added", (0, 0, 0))]
    want = [_px(calibs[0], e) for e in ROAD]
    got = obs[0].sticks[0].endpoints
    assert max(np.hypot(*np.subtract(p, q)) for p, q in zip(got, want, strict=True)) < 1.0


def test_stick_one_other_view_reads_and_the_third_sees_as_table_is_not_added() -> None:
    obs, calibs, images = _three_views((False, True, False))
    images[2] = _table(2)  # view 2 shows bare table where view 1 reads the road
    fused = fuse_views(obs, calibs, images)
    assert obs[0].sticks == [] and fused.sticks == []


def test_column_one_view_misplaces_joins_the_column_the_others_triangulate() -> None:
    obs, calibs, images = _three_views((True, True, True))
    # view 2 reads column 0 13 mm off its place and three units too tall: its top ray misses the
    # others', so it is no match; but two columns cannot stand 13 mm apart
    wrong = _support(calibs[2], -44.0, 0.0, 5)
    obs[2].supports[0] = wrong
    fused = fuse_views(obs, calibs, images)
    assert len(fused.columns) == 2
    col = next(c for c in fused.columns if c.supports[0] == 0)
    assert col.supports == (0, 0, 0) and col.height == 2 and col.source == "views"
    assert obs[2].supports[0].height == 2  # the misplaced reading takes the fused height and place
    assert abs(obs[2].supports[0].x_mm - (-57.0)) < 1.0


def _top_16px_low(obs: list[TokyoObservation], calibs: list[TokyoCalibration]) -> None:
    # view 2 misreads column 0's top by 16 px and every view's own height is wrong: the three rays miss
    # by over 6 mm
    sp = obs[2].supports[0]
    sp.top_px = (sp.top_px[0], sp.top_px[1] + 16.0)
    for o in obs:
        o.supports[0].height = 4


def _top_on_a_road_end(obs: list[TokyoObservation], calibs: list[TokyoCalibration]) -> None:
    # view 2 takes column 0's top point on something 12 mm above and 8 mm beside it (a road end resting
    # there): the three rays still pass within 6 mm of one point, a unit above the top
    obs[2].supports[0].top_px = _px(calibs[2], (-49.0, 0.0, _z(2) + 12.0))


@pytest.mark.parametrize("misread", [_top_16px_low, _top_on_a_road_end], ids=["16px-low", "road-end"])
def test_top_misread_in_one_of_three_views_is_left_out_of_the_triangulation(misread) -> None:
    obs, calibs, images = _three_views((False, False, False))  # columns only: their tops decide
    misread(obs, calibs)
    fused = fuse_views(obs, calibs, images)
    col = next(c for c in fused.columns if c.supports[0] == 0)
    # the two right views meet exactly without view 2's ray: they decide, and view 2 takes their answer
    assert col.supports == (0, 0, 0) and col.source == "views" and col.ray_gap_mm < 1.0
    assert col.height == 2 and all(o.supports[0].height == 2 for o in obs)


def test_column_carrying_only_a_stick_no_other_view_reads_is_left_out() -> None:
    obs, calibs, images = _three_views((True, True, True))
    far = (130.0, 90.0)
    obs[1].supports.append(_support(calibs[1], *far, 2))  # view 1 alone reads a column ...
    end = (far[0], far[1], _z(2))
    obs[1].sticks.append(_stick(calibs[1], end, (far[0] - 100.0, far[1] + 55.0, _z(0)), (2, None), "orange"))
    fused = fuse_views(obs, calibs, images)  # ... under a stick only it reads
    assert len(fused.columns) == 2 and all(c.supports[1] != 2 for c in fused.columns)
    assert any("no other view reads" in w for w in fused.warnings)
    # with two views the same column stays (the rule needs a third view to outvote one)
    obs2, calibs2, images2 = _three_views((True, True, True))
    obs2[1].supports.append(_support(calibs2[1], *far, 2))
    obs2[1].sticks.append(
        _stick(calibs2[1], end, (far[0] - 100.0, far[1] + 55.0, _z(0)), (2, None), "orange")
    )
    assert len(fuse_views(obs2[:2], calibs2[:2], images2[:2]).columns) == 3
    # ... and so it does when the second camera is given twice: one camera is one vote
    twice = fuse_views(
        [obs2[0], obs2[1], copy.deepcopy(obs2[1])], [calibs2[0], calibs2[1], calibs2[1]], images2
    )
    assert len(twice.columns) == 3 and not any("no other view reads" in w for w in twice.warnings)


@pytest.fixture(scope="module")
def three_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("three_views") / "set"
    assert main(["dataset", "tokyo", "--out", str(out), "--n", "2", "--seed", "8", "--views", "3"]) == 0
    return out


def test_eval_three_views_through_the_cli(three_set: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "m.json"
    assert main(["eval", "sticks", str(three_set), "--json", str(out)]) == 0
    assert "views_per_group" in capsys.readouterr().out
    res = json.loads(out.read_text())
    assert res["images"] == 6 and res["view_groups"] == 2 and res["views_per_group"] == 3.0
    for key in (
        "support_recall_views",
        "support_precision_views",
        "height_exact_views",
        "junction_accuracy_views",
        "stick_recall_views",
        "stick_precision_views",
        "over_under_accuracy_views",
    ):
        assert 0.0 <= res[key] <= 1.0, key
    # three views find at least the columns one view finds, and read the sticks about as well
    assert res["support_recall_views"] >= res["support_recall"] and res["height_exact_views"] >= 0.8
    assert (
        res["stick_recall_views"] >= res["stick_recall_first_view"] - 0.05 and res["stick_recall_views"] > 0.8
    )


def test_read_tokyo_views_three_and_one(three_set: Path) -> None:
    items = json.loads((three_set / "labels.json").read_text())["items"]
    group = sorted((it for it in items if it["view_of"] == items[0]["view_of"]), key=lambda it: it["view"])
    images = [cv2.imread(str(three_set / it["image"])) for it in group]
    calibs = [it["calibration"] for it in group]
    views = read_tokyo_views(images, calibs)
    assert len(views.views) == 3 and all(len(c.supports) == 3 for c in views.columns)
    n = len(views.views[0].sticks)
    assert sorted(ln.sticks[0] for ln in views.sticks if ln.status != "dropped") == list(range(n))
    assert all(len(ln.sticks) == 3 for ln in views.sticks)
    one = read_tokyo_views(images[:1], calibs[:1])  # one view: its own reading, nothing fused
    assert one.sticks == [] and all(c.source == "one-view" for c in one.columns)


def test_three_rays_meeting_closely_keep_every_view() -> None:
    obs, calibs, images = _three_views((False, False, False))
    # view 2's top 1 px off: the rays meet within a millimetre, no view is left out
    sp = obs[2].supports[0]
    sp.top_px = (sp.top_px[0] + 1.0, sp.top_px[1])
    fused = fuse_views(obs, calibs, images)
    col = next(c for c in fused.columns if c.supports[0] == 0)
    assert col.source == "views" and col.height == 2 and 0.0 < col.ray_gap_mm < 2.0
