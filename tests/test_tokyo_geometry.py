"""Exact geometry cases for Tokyo Highway: contacts, crossings, clearances, column footprints."""

from __future__ import annotations

import pytest

from engine import EngineError
from engine.tokyo import SetGeometry, new_state, parse_action
from engine.tokyo.checks import TableIndex
from engine.tokyo.geometry import (
    Bar,
    bars_contact,
    clip_near_support,
    clip_to_rect,
    point_segment,
    segment_intersection,
)
from engine.tokyo.model import Car, Stick, Support

CLEAR = 1.0  # default clearance: flat sticks need 1.5 + 1.5 + 1 = 4 mm between centrelines


def bar(x1: float, y1: float, z1: float, x2: float, y2: float, z2: float, ref: int = 1, rests=()) -> Bar:
    return Bar(x1, y1, z1, x2, y2, z2, 5.0, 1.5, 0, "road", ref, tuple(rests))


def test_point_segment_distance_and_parameter() -> None:
    d, t = point_segment(0, 10, -10, 0, 10, 0)
    assert (d, t) == (10.0, 0.5)
    d, t = point_segment(20, 0, -10, 0, 10, 0)  # beyond the end: distance to the end point
    assert (d, t) == (10.0, 1.0)


def test_perpendicular_crossing_point_and_heights() -> None:
    a, b = bar(-50, 0, 10, 50, 0, 10), bar(0, -50, 30, 0, 50, 30)
    s, u = segment_intersection(a, b)
    assert (s, u) == (0.5, 0.5)
    assert bars_contact(a, b, CLEAR) is None  # 20 mm apart vertically


@pytest.mark.parametrize(("gap", "touch"), [(0.0, True), (3.5, True), (3.99, True), (4.01, False), (10.0, False)])
def test_crossing_vertical_clearance(gap: float, touch: bool) -> None:
    # flat sticks 3 mm thick: they touch below 3 mm, and a near miss within the 1 mm clearance counts
    a, b = bar(-50, 0, 10, 50, 0, 10), bar(0, -50, 10 + gap, 0, 50, 10 + gap)
    hit = bars_contact(a, b, CLEAR)
    assert (hit is not None) is touch
    if touch:
        assert hit[:2] == pytest.approx((0.0, 0.0))
        assert hit[2] == pytest.approx(gap)


def test_sloped_crossing_needs_more_room_across_the_width() -> None:
    # a road climbing 1 mm per 2 mm: across its 10 mm width its height changes by 2.5 mm each side
    steep = bar(-20, 0, 0, 20, 0, 20)
    flat_ok = bar(0, -50, 10 + 4.5, 0, 50, 10 + 4.5)
    assert bars_contact(bar(-20, 0, 10, 20, 0, 10), flat_ok, CLEAR) is None
    assert bars_contact(steep, flat_ok, CLEAR) is not None


def test_parallel_roads_side_by_side() -> None:
    a = bar(0, 0, 10, 100, 0, 10)
    assert bars_contact(a, bar(0, 8, 10, 100, 8, 10), CLEAR) is not None  # 8 mm apart < 5+5+1
    assert bars_contact(a, bar(0, 12, 10, 100, 12, 10), CLEAR) is None  # clear by 1 mm
    assert bars_contact(a, bar(0, 8, 20, 100, 8, 20), CLEAR) is None  # close in plan, 10 mm higher
    assert segment_intersection(a, bar(0, 8, 10, 100, 8, 10)) is None  # parallel: no crossing point


def test_parallel_roads_whose_heights_pass_each_other_touch() -> None:
    # neither end is close in height, but in the middle the two roads are at the same height
    a, b = bar(0, 0, 10, 100, 0, 30), bar(0, 8, 30, 100, 8, 10)
    hit = bars_contact(a, b, CLEAR)
    assert hit is not None and hit[2] == 0.0


def test_collinear_roads() -> None:
    a = bar(0, 0, 10, 100, 0, 10)
    assert segment_intersection(a, bar(50, 0, 10, 150, 0, 10)) is None  # overlap has no single crossing
    assert bars_contact(a, bar(50, 0, 10, 150, 0, 10), CLEAR) is not None  # one lies on the other
    assert bars_contact(a, bar(50, 0, 30, 150, 0, 30), CLEAR) is None  # runs along 20 mm above
    assert bars_contact(a, bar(120, 0, 10, 200, 0, 10), CLEAR) is None  # in line, 20 mm apart


def test_touching_at_an_end() -> None:
    a = bar(-50, 0, 10, 50, 0, 10)
    assert bars_contact(a, bar(0, 5, 10, 0, 60, 10), CLEAR) is not None  # end butts against the side
    assert bars_contact(a, bar(0, 12, 10, 0, 60, 10), CLEAR) is None  # end stops 1 mm short
    assert bars_contact(a, bar(50, 0, 10, 100, 40, 10), CLEAR) is not None  # ends meet


def test_clip_near_shared_support() -> None:
    # two roads leaving the same support top: only the parts beyond the support's rim are compared
    a = bar(0, 0, 10, 100, 0, 10, rests=(7,))
    clipped = clip_near_support(a, 0, 0, 17.5)
    assert clipped is not None
    assert clipped.x1 == pytest.approx(17.5) and clipped.x2 == pytest.approx(100)
    assert clip_near_support(bar(0, 0, 10, 10, 0, 10), 0, 0, 17.5) is None  # wholly on the support


def test_clip_to_rect() -> None:
    a = bar(-100, 0, 0, 100, 0, 0)
    t0, t1 = clip_to_rect(a, -10, -10, 10, 10)
    assert (t0, t1) == pytest.approx((0.45, 0.55))
    assert clip_to_rect(a, -10, 20, 10, 30) is None


# -- on the table: the engine applies the geometry -------------------------------------------

OPENING = ["purple start (0,-100) table (-100,-100)", "green start (60,-20) table (60,80)", "purple s1 -> (0,0) h2"]


def table(*extra: str, **options):
    s = new_state(**options)
    for line in OPENING + list(extra):
        s = s.apply(parse_action(line))
    return s


def test_crossing_heights_are_computed_at_the_crossing_point() -> None:
    s = table()
    v = s.judge(parse_action("green s2 -> (-40,-60) h4 junction"))
    assert v.legal, v.reason
    (c,) = v.details["crossings"]
    # purple road 3 runs x=0 from y=-100 (z 11.5) to y=0 (z 21.5); green crosses it at y=-44
    assert c["road"] == 3 and c["at"] == [0.0, -44.0]
    assert c["z_old"] == pytest.approx(11.5 + 10 * 0.56, abs=0.1)
    assert c["z_new"] == pytest.approx(11.5 + 30 * 0.6, abs=0.1)
    assert c["new_on_top"] is True


def test_crossing_at_a_support_is_over_its_footprint() -> None:
    # a green road passing right over purple's support s3 at (0, 0), high enough not to touch it
    s = table()
    v = s.judge(parse_action("green s2 -> (-40,15) h5 junction"))
    assert not v.legal and v.rule == "tokyo.footprint"
    assert "s3" in v.reason and "move the new support" in v.reason


@pytest.mark.parametrize(("x", "rule"), [(12.0, "tokyo.footprint"), (13.2, "tokyo.footprint"),
                                         (13.8, "tokyo.build"), (20.0, "tokyo.build")])
def test_support_under_a_road_near_misses_within_the_clearance(x: float, rule: str) -> None:
    # purple road 3 runs along x = 0. A support closer than column radius 7.5 + half stick width 5
    # touches its outline; up to 1 mm more (the clearance) is a near miss the referee rejects too.
    s = table()
    v = s.judge(parse_action(f"green s2 -> ({x},-50) h2"))
    assert v.rule == rule, v.reason
    if rule == "tokyo.footprint":
        assert "purple road 3 passes over the place of the new support" in v.reason


def test_a_new_car_may_not_touch_a_road_passing_above() -> None:
    s = new_state()
    for line in [*OPENING[:2], "purple s1 -> (0,0) h4 junction"]:
        s = s.apply(parse_action(line))
    # green passes under purple road 3 with room for the road (crossing 65 mm along it), not for a car
    assert s.judge(parse_action("green s2 -> (-40,-60) h2 cars 1")).legal
    v = s.judge(parse_action("green s2 -> (-40,-60) h2 at 65"))
    assert v.rule == "tokyo.no-contact" and v.reason.startswith("car 1 on the new road touches purple road 3")
    assert s.judge(parse_action("green s2 -> (-40,-60) h2 at 10")).legal
    with pytest.raises(EngineError, match="along a road"):
        s.judge(parse_action("green s2 -> (-40,-60) h2 at 200"))


def test_cars_with_a_known_place_are_obstacles() -> None:
    g = SetGeometry()
    road = Stick(1, 0, "road", 1, 2, (0.0, 0.0, 11.5), (100.0, 0.0, 11.5))
    supports = (Support(1, 0, 0, 1, False, 0), Support(2, 100, 0, 1, False, 0))
    low = bar(50, -50, 11.5 + 9, 50, 50, 11.5 + 9, ref=9)  # 9 mm above the road: clears it, not a car
    with_car = TableIndex(supports, (road,), (Car(0, 1, "sedan", 50.0),), g, ())
    unplaced = TableIndex(supports, (road,), (Car(0, 1, "sedan"),), g, ())
    (p,) = with_car.bar_problems(low, ("purple", "green"), "the new road")
    assert p.rule == "tokyo.no-contact" and "a purple car on road 1" in p.reason
    assert unplaced.bar_problems(low, ("purple", "green"), "the new road") == []
    assert with_car.bar_problems(bar(50, -50, 40, 50, 50, 40), ("purple", "green"), "the new road") == []
