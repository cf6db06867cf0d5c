"""Column heights from two calibrated views (vision.tokyo.stereo): the geometry on exact synthetic
cases, the fusion rules on hand-made readings, and the user's path (`dataset tokyo --views 2`, then
`eval sticks`) on a small rendered set."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from datasets.tokyo.camera import camera_looking_at
from referee_app.cli import main
from vision.tokyo import PieceSizes, StickReading, SupportReading, TokyoCalibration, TokyoObservation
from vision.tokyo.stereo import (
    MATCH_GAP_MM,
    TRUST_GAP_MM,
    closest_points,
    fuse_views,
    read_tokyo_views,
    triangulate,
)
from vision.types import VisionError

SIZES = PieceSizes()


def _calibs() -> list[TokyoCalibration]:
    """Two cameras of the renderer's kind, 100 degrees of yaw apart."""
    cams = [camera_looking_at((0, 0, 0), 750, 30, yaw, 50, 1280, 720) for yaw in (20, 120)]
    return [TokyoCalibration(c, SIZES) for c in cams]


def _top(x: float, y: float, h: int) -> np.ndarray:
    # the top point the reader reports lies on the road axes: half a stick above the column's top
    return np.array([x, y, h * SIZES.unit_mm + SIZES.stick_thickness_mm / 2])


def _ray(calib: TokyoCalibration, uv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = calib.camera.centre
    d = calib.camera.ray_to_plane(uv[None], 0.0)[0] - c
    return c, d / np.linalg.norm(d)


def _reading(calib: TokyoCalibration, top: np.ndarray, height: int, conf: float = 0.5) -> SupportReading:
    """A support as one view would read it: its top point seen exactly, its height `height` (maybe
    wrong), its table position where the ray through the top meets the plane of that height."""
    uv = calib.camera.project(top[None])[0][0]
    z = height * SIZES.unit_mm + SIZES.stick_thickness_mm / 2
    xy = calib.camera.ray_to_plane(uv[None], z)[0]
    return SupportReading(
        (float(uv[0]), float(uv[1])), (0.0, 0.0, 1.0, 1.0), False, 0.9, height, conf, xy[0], xy[1]
    )


def test_rays_through_one_point_meet_there() -> None:
    calibs = _calibs()
    p = _top(12.0, -30.0, 4)
    rays = [_ray(c, c.camera.project(p[None])[0][0]) for c in calibs]
    mid, gap, s, t = closest_points(rays[0][0], rays[0][1], rays[1][0], rays[1][1])
    assert gap < 1e-6 and s > 0 and t > 0
    np.testing.assert_allclose(mid, p, atol=1e-6)
    q, gap2 = triangulate(np.array([r[0] for r in rays]), np.array([r[1] for r in rays]))
    np.testing.assert_allclose(q, p, atol=1e-6)
    assert gap2 < 1e-6
    # a top misread by 5 px in one view: the rays miss each other
    uv = calibs[1].camera.project(p[None])[0][0] + [5.0, 0.0]
    c1, d1 = _ray(calibs[1], uv)
    _, gap3, _, _ = closest_points(rays[0][0], rays[0][1], c1, d1)
    assert gap3 > 0.5


def test_parallel_rays_do_not_meet() -> None:
    c = np.zeros(3)
    d = np.array([0.0, 0.0, -1.0])
    _, gap, _, _ = closest_points(c, d, c + [10.0, 0, 0], d)
    assert gap == float("inf")


def test_two_views_correct_wrong_one_view_heights() -> None:
    calibs = _calibs()
    columns = [(-60.0, 10.0, 2), (40.0, 50.0, 5), (70.0, -80.0, 3)]
    views = []
    for v, cal in enumerate(calibs):
        obs = TokyoObservation(calibrated=True)
        for x, y, h in columns:
            # each view misreads a different column by one unit
            wrong = h + 1 if (x, y, h) == columns[v] else h
            obs.supports.append(_reading(cal, _top(x, y, h), wrong))
        views.append(obs)
    views[1].supports.reverse()  # the order of supports differs between views
    fused = fuse_views(views, calibs)
    assert len(fused.columns) == 3
    for col in fused.columns:
        assert col.source == "views" and None not in col.supports
        truth = min(columns, key=lambda c: np.hypot(c[0] - col.x_mm, c[1] - col.y_mm))
        assert col.height == truth[2]
        assert col.ray_gap_mm is not None and col.ray_gap_mm < 0.1
        assert abs(col.top_mm[2] - _top(*truth)[2]) < 0.1
    assert len(json.loads(json.dumps(fused.to_dict()))["columns"]) == 3
    # the views' own readings are updated: heights, table positions
    for obs in views:
        for sp in obs.supports:
            truth = min(columns, key=lambda c: np.hypot(c[0] - sp.x_mm, c[1] - sp.y_mm))
            assert sp.height == truth[2] and np.hypot(truth[0] - sp.x_mm, truth[1] - sp.y_mm) < 0.5


def test_column_seen_once_keeps_its_one_view_height() -> None:
    calibs = _calibs()
    a = TokyoObservation(calibrated=True)
    b = TokyoObservation(calibrated=True)
    a.supports.append(_reading(calibs[0], _top(0, 0, 3), 4))
    a.supports.append(_reading(calibs[0], _top(150, 90, 2), 2))  # hidden from view b
    a.supports.append(_reading(calibs[0], _top(-150, 60, 1), 1))  # carries no road, seen once
    b.supports.append(_reading(calibs[1], _top(0, 0, 3), 3))
    # a road from the first column to the second, as view a reads it (its far end out of view b)
    a.sticks.append(
        StickReading(
            (a.supports[0].top_px, a.supports[1].top_px), 8.0, "grey", (128, 128, 128), 0.9, "road", (0, 1)
        )
    )
    fused = fuse_views([a, b], calibs)
    by_source = {col.source: col for col in fused.columns}
    assert len(fused.columns) == 2
    assert by_source["views"].height == 3 and by_source["views"].supports == (0, 0)
    assert by_source["one-view"].height == 2 and by_source["one-view"].supports == (1, None)
    # the bare column only view a reads is left out, and said so
    assert any("carries no road" in w for w in fused.warnings)


def test_rays_that_disagree_keep_the_one_view_height() -> None:
    calibs = _calibs()
    top = _top(20, 20, 4)
    # move view b's top point along the image until its ray misses view a's by more than a reading
    # error allows but still less than the matching limit
    for shift in np.arange(1.0, 40.0, 0.5):
        b_sp = _reading(calibs[1], top, 2, conf=0.9)
        b_sp.top_px = (b_sp.top_px[0] + shift, b_sp.top_px[1])
        a_uv = calibs[0].camera.project(top[None])[0][0]
        _, gap, _, _ = closest_points(*_ray(calibs[0], a_uv), *_ray(calibs[1], np.array(b_sp.top_px)))
        if TRUST_GAP_MM + 1 < gap < MATCH_GAP_MM - 1:
            break
    else:
        pytest.fail("no shift gives a gap between the trust and matching limits")
    a = TokyoObservation(calibrated=True, supports=[_reading(calibs[0], top, 5, conf=0.2)])
    b = TokyoObservation(calibrated=True, supports=[b_sp])
    col = fuse_views([a, b], calibs).columns[0]
    assert col.supports == (0, 0) and col.ray_gap_mm > TRUST_GAP_MM
    assert col.source == "one-view" and col.height == 2  # the surer view's reading
    assert a.supports[0].height == 5  # the views' own readings are left alone


def test_rays_meeting_at_the_table_keep_the_one_view_height() -> None:
    calibs = _calibs()
    # both views' "top points" are one point on the table (e.g. a road end lying there): the rays meet,
    # but no column's top is that low, so the surer view's own height stands
    point = np.array([30.0, -40.0, SIZES.stick_thickness_mm / 2])
    a = TokyoObservation(calibrated=True, supports=[_reading(calibs[0], point, 2, conf=0.9)])
    b = TokyoObservation(calibrated=True, supports=[_reading(calibs[1], point, 1, conf=0.3)])
    col = fuse_views([a, b], calibs).columns[0]
    assert col.supports == (0, 0) and col.ray_gap_mm < 0.1 and col.top_mm[2] < SIZES.unit_mm / 2
    assert col.source == "one-view" and col.height == 2
    assert b.supports[0].height == 1  # the views' own readings are left alone


def test_read_tokyo_views_refuses_odd_input() -> None:
    img = np.full((120, 160, 3), 200, np.uint8)
    cal = _calibs()[0]
    with pytest.raises(VisionError, match="at least one image"):
        read_tokyo_views([], [])
    with pytest.raises(VisionError, match="2 images but 1 calibrations"):
        read_tokyo_views([img, img], [cal])
    with pytest.raises(VisionError, match="view 1 has no calibration"):
        read_tokyo_views([img, img], [cal, None])
    with pytest.raises(VisionError, match="malformed"):
        read_tokyo_views([img], [{"camera": {}}])
    one = read_tokyo_views([img], [cal])  # one view: the one-view reading
    assert len(one.views) == 1 and all(c.source == "one-view" for c in one.columns)
    assert json.loads(json.dumps(one.to_dict()))["views"][0]["calibrated"] is True


@pytest.fixture(scope="module")
def pair_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("views") / "set"
    assert main(["dataset", "tokyo", "--out", str(out), "--n", "3", "--seed", "3", "--views", "2"]) == 0
    return out


def test_dataset_views_share_the_table(pair_set: Path) -> None:
    items = json.loads((pair_set / "labels.json").read_text())["items"]
    assert len(items) == 6
    groups: dict[str, list[dict]] = {}
    for it in items:
        groups.setdefault(it["view_of"], []).append(it)
        assert (pair_set / it["image"]).is_file()
    assert len(groups) == 3
    for its in groups.values():
        a, b = sorted(its, key=lambda it: it["view"])
        assert [s["id"] for s in a["supports"]] == [s["id"] for s in b["supports"]]
        assert [s["height"] for s in a["supports"]] == [s["height"] for s in b["supports"]]
        assert a["render"]["table"] == b["render"]["table"]
        yaws = []
        for it in (a, b):
            axis = np.array(it["calibration"]["camera"]["R"])[2]
            yaws.append(np.degrees(np.arctan2(-axis[0], axis[1])))
        gap = abs(yaws[0] - yaws[1]) % 360
        assert min(gap, 360 - gap) >= 59.9  # seen from different sides


def test_eval_two_views_beat_one_view(pair_set: Path, tmp_path: Path) -> None:
    out = tmp_path / "m.json"
    assert main(["eval", "sticks", str(pair_set), "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["view_groups"] == 3 and res["views_per_group"] == 2
    assert res["heights_from_views"] > 0.8
    assert res["support_recall_views"] >= res["support_recall"]
    # on these three tables one view reads about 0.7 of the heights exactly, two views over 0.9
    assert res["height_exact_views"] > res["height_exact"] + 0.1
    for key in ("stick_recall", "stick_precision", "crossing_recall", "over_under_accuracy", "height_exact"):
        assert key in res  # the one-view numbers are all still there


def test_eval_view_group_of_one_falls_back(pair_set: Path, tmp_path: Path) -> None:
    out = tmp_path / "m.json"
    # --limit 1 keeps one view of the first table: its group is read as one view
    assert main(["eval", "sticks", str(pair_set), "--json", str(out), "--limit", "1"]) == 0
    res = json.loads(out.read_text())
    assert res["view_groups"] == 1 and res["views_per_group"] == 1
    assert res["heights_from_views"] == 0
    assert res["height_exact_views"] == res["height_exact"]


def test_eval_view_group_without_calibration(pair_set: Path, tmp_path: Path, capsys) -> None:
    doc = json.loads((pair_set / "labels.json").read_text())
    doc["items"] = doc["items"][:2]
    del doc["items"][1]["calibration"]
    folder = tmp_path / "broken"
    folder.mkdir()
    for it in doc["items"]:
        (folder / it["image"]).write_bytes((pair_set / it["image"]).read_bytes())
    (folder / "labels.json").write_text(json.dumps(doc))
    assert main(["eval", "sticks", str(folder)]) == 1
    err = capsys.readouterr().err
    assert doc["items"][1]["image"] in err and "no calibration" in err and "Traceback" not in err
    # without calibration at all, the two-view numbers are not scored, and that is said
    out = tmp_path / "m.json"
    assert main(["eval", "sticks", str(folder), "--no-calibration", "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert "height_exact_views" not in res and "calibration" in res["views"]


def test_dataset_views_out_of_range(tmp_path: Path, capsys) -> None:
    assert main(["dataset", "tokyo", "--out", str(tmp_path / "x"), "--n", "1", "--views", "5"]) == 2
    assert "--views must be between 1 and 4" in capsys.readouterr().err
