"""Three guards of the stick fusion across views (sixth session): a part of a confirmed stick read again
by views[0] alone is dropped; two roads side by side are not one read twice; a part takes a whole
reading's ends only from a reading lying along it."""

from __future__ import annotations

import numpy as np
from tokyo_views_scene import ORANGE, PURPLE, calibs, road_scene
from tokyo_views_scene import draw as _draw
from tokyo_views_scene import px as _px
from tokyo_views_scene import stick as _stick
from tokyo_views_scene import z as _z

from vision.tokyo.stereo import fuse_views
from vision.tokyo.stick_fusion import StickLink, _refine_from_readers, column_index

COLS = [(-57.0, 0.0, 2), (57.0, 0.0, 3), (0.0, 120.0, 1)]
ROAD = ((-57.0, 0.0, _z(2)), (57.0, 0.0, _z(3)))


def _on_road(t: float) -> tuple[float, float, float]:
    a, b = np.array(ROAD[0]), np.array(ROAD[1])
    return tuple(float(v) for v in a + t * (b - a))  # type: ignore[return-value]


def test_part_of_a_confirmed_stick_read_again_by_one_view_is_dropped() -> None:
    cams = calibs((20, 120))
    obs, cams, images = road_scene(cams, COLS, ROAD, (True, True))
    # views[0] also reads 15 %..70 % of the road as a stick of its own, 3 px off its axis; view 1's
    # image shows pieces all along it, so the one-view vote alone would keep it
    part = _stick(cams[0], _on_road(0.15), _on_road(0.70), (None, None))
    part.endpoints = tuple((x + 2.0, y + 2.0) for x, y in part.endpoints)  # type: ignore[assignment]
    obs[0].sticks.append(part)
    fused = fuse_views(obs, cams, images)
    assert len(obs[0].sticks) == 1
    assert sorted(ln.status for ln in fused.sticks) == ["dropped", "views"]
    assert obs[0].sticks[0].rests == (0, 1)


def test_two_roads_side_by_side_are_not_one_read_twice() -> None:
    cams = calibs((20, 120))
    obs, cams, images = road_scene(cams, COLS, ROAD, (True, True))
    # a second whole road 12 mm beside the first (about two widths in views[0]): views[0] alone reads
    # it, both images show it
    beside = tuple((x, y + 12.0, h) for x, y, h in ROAD)
    for img, cam in zip(images, cams, strict=True):
        _draw(img, cam, *beside, ORANGE)
    obs[0].sticks.append(_stick(cams[0], *beside, (None, None), "orange"))
    gap = max(np.hypot(*np.subtract(_px(cams[0], p), _px(cams[0], q))) for p, q in zip(ROAD, beside, strict=True))
    assert gap < 2.5 * obs[0].sticks[0].width_px  # its ends lie within the duplicate rule's reach
    fused = fuse_views(obs, cams, images)
    assert [s.color for s in obs[0].sticks] == ["purple", "orange"]
    assert sorted(ln.status for ln in fused.sticks) == ["kept", "views"]


def test_a_part_takes_no_ends_from_a_reading_of_another_stick() -> None:
    cams = calibs((20, 120))
    obs, cams, images = road_scene(cams, COLS, ROAD, (False, True))
    other = ((0.0, -57.0, _z(1)), (0.0, 57.0, _z(1)))  # a whole road across the first
    _draw(images[1], cams[1], *other, PURPLE)
    obs[1].sticks = [_stick(cams[1], *other, (None, None))]
    part = _stick(cams[0], _on_road(0.0), _on_road(0.6), (0, None))
    obs[0].sticks = [part]
    before = part.endpoints
    link = StickLink((0, 0), "views")
    # the two readings handed over as one stick (a wrong match of ends across views)
    _refine_from_readers(part, (0, 0), obs, cams, images[0].shape, column_index([]), link)
    assert part.endpoints == before and link.status == "views"
    # the same call with view 1 reading the road itself does refine
    obs[1].sticks = [_stick(cams[1], *ROAD, (0, 1))]
    _refine_from_readers(part, (0, 0), obs, cams, images[0].shape, column_index([]), link)
    want = [_px(cams[0], e) for e in ROAD]
    assert link.status == "refined"
    assert max(np.hypot(*np.subtract(p, q)) for p, q in zip(part.endpoints, want, strict=True)) < 1.0


def test_a_reading_resting_right_but_short_in_the_image_takes_the_whole_ends() -> None:
    cams = calibs((20, 120))
    obs, cams, images = road_scene(cams, COLS, ROAD, (True, True))
    st = obs[0].sticks[0]  # its 3D ends rest on the right columns: a whole stick apart
    want = [_px(cams[0], e) for e in ROAD]
    for lo, hi, refined in ((0.1, 0.75, True), (0.05, 0.95, False)):
        ends = (_px(cams[0], _on_road(lo)), _px(cams[0], _on_road(hi)))
        st.endpoints = ends
        link = StickLink((0, 0), "views")
        _refine_from_readers(st, (0, 0), obs, cams, images[0].shape, column_index([]), link, True)
        assert (link.status == "refined") == refined
        if refined:  # the image ends stopped short: the whole reading's ends are taken
            got = st.endpoints
            assert max(np.hypot(*np.subtract(p, q)) for p, q in zip(got, want, strict=True)) < 1.0
        else:  # short by little: its own ends stay
            assert st.endpoints == ends
