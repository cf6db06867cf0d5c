"""One scenario per rule of the Tokyo Highway seed (002), played through notation as a user would."""

from __future__ import annotations

import pytest

from engine import Consequence, EngineError, NotationError, get_game
from engine.tokyo import Build, NewSupport, new_state, parse_action

OPENING = ["purple start (0,-100) table (-100,-100)", "green start (60,-20) table (60,80)", "purple s1 -> (0,0) h2"]


def play(lines, state=None, **options):
    """Apply each line; return the state and the verdicts (illegal builds leave the table as it was)."""
    s = state if state is not None else new_state(**options)
    verdicts = []
    for line in lines:
        v = s.judge(parse_action(line))
        s = s.apply(parse_action(line), v)
        verdicts.append(v)
    return s, verdicts


def opened(*extra: str, **options):
    s, vs = play(OPENING + list(extra), **options)
    return s, vs


# -- setup (seed 一、2 搭建起始道路; 一、3 确定起始玩家) -----------------------------------------

def test_start_roads_and_first_car() -> None:
    s, vs = play(OPENING[:2])
    assert [v.rule for v in vs] == ["tokyo.start", "tokyo.start"]
    view = s.table_view()
    assert [st["kind"] for st in view["sticks"]] == ["start", "start"]
    assert [c["model"] for c in view["cars"]] == ["sedan", "sedan"]  # the first car needs no crossing
    assert [p["cars"] for p in view["players"]] == [9, 9]
    assert view["phase"] == "play" and view["to_move"] == 0


def test_start_road_rules() -> None:
    s = new_state()
    v = s.judge(parse_action("purple start (0,-100) table (-100,-100) h2"))
    assert v.rule == "tokyo.start" and not v.legal and "1 column high" in v.reason
    s, _ = play(OPENING[:1])
    assert s.judge(parse_action("purple start (0,100) table (100,100)")).rule == "tokyo.start"  # twice
    v = s.judge(parse_action("purple s1 -> (0,0) h2"))
    assert v.rule == "tokyo.setup" and "green" in v.reason  # green's start road first
    v = s.judge(parse_action("green start (60,-20) table (60,150)"))  # 170 mm: too far for one stick
    assert v.rule == "tokyo.reach"


def test_first_player_option_and_turns() -> None:
    s, _ = play(OPENING[:2], first_player=1)
    assert s.current_player() == 1
    v = s.judge(parse_action("purple s1 -> (0,0) h2"))
    assert v.rule == "tokyo.turn" and v.consequence is Consequence.MUST_CORRECT and "green's turn" in v.reason


# -- 第一步：建造圆柱 (height rule, reach) ---------------------------------------------------

@pytest.mark.parametrize(("height", "rule"), [(2, "tokyo.build"), (1, "tokyo.height"), (3, "tokyo.height")])
def test_grey_support_is_one_higher_or_lower(height: int, rule: str) -> None:
    s, _ = play(OPENING[:2])
    v = s.judge(parse_action(f"purple s1 -> (0,0) h{height}"))
    assert v.rule == rule
    if rule == "tokyo.height":
        assert "must be 2 high" in v.reason and "junction" in v.reason  # says how to fix it


def test_reach_is_one_stick() -> None:
    s, _ = play(OPENING[:2])
    v = s.judge(parse_action("purple s1 -> (0,20) h2"))  # 120 mm away
    assert v.rule == "tokyo.reach" and "closer" in v.reason and v.details["span_mm"] > 114


# -- 黄色交叉点圆柱 (junction: any height, on a grey column, one split, ±1 returns) --------------

def test_junction_lifts_the_height_rule_then_grey_returns_to_plus_minus_one() -> None:
    s, vs = opened("green s2 -> (-40,-60) h4 junction")  # from 1 high to 4 high: allowed with a junction
    assert vs[-1].legal
    s, _ = play(["purple s3 -> (0,100) h3"], s)
    assert s.judge(parse_action("green s4 -> (-60,-150) h2")).rule == "tokyo.height"  # 4 -> 2: grey again
    assert s.judge(parse_action("green s4 -> (-60,-150) h3")).legal
    assert s.judge(parse_action("green s4 -> (-60,-150) h4 junction")).legal  # equal height with a junction


def test_junction_never_alone_on_the_table() -> None:
    s, _ = play(OPENING[:2])
    v = s.judge(parse_action("purple s1 -> (0,0) h1 junction"))
    assert v.rule == "tokyo.junction" and "grey column" in v.reason


def test_junction_splits_once_and_grey_supports_carry_one_road() -> None:
    s, _ = opened("green s2 -> (-40,-60) h4 junction", "purple s3 -> (0,100) h3",
                  "green s4 -> (-60,-150) h3", "purple s5 -> (-90,60) h2")
    assert [b.id for b in s.open_bases(1)] == [4, 6]  # the junction's second road, and the new end
    s, vs = play(["green s4 -> (-140,-40) h3", "purple s7 -> (-150,140) h3"], s)
    assert vs[0].legal and [b.id for b in s.open_bases(1)] == [6, 8]
    v = s.judge(parse_action("green s4 -> (-100,20) h5"))
    assert v.rule == "tokyo.base" and "s6, s8" in v.reason  # split used up: says where to build
    assert s.judge(parse_action("green s2 -> (100,0) h2")).rule == "tokyo.base"  # grey support used


# -- 第二步：铺设道路 (contact, footprint, loops) ------------------------------------------------

def test_no_contact_with_an_opponent_road_says_where_and_how_to_fix() -> None:
    s, _ = opened()
    v = s.judge(parse_action("green s2 -> (-40,-60) h2"))
    assert v.rule == "tokyo.no-contact" and not v.legal and v.consequence is Consequence.MUST_CORRECT
    assert v.reason.startswith("the new road touches purple road 3 at (0, -44): raise or lower")
    assert v.details["touches"] == {"kind": "road", "id": 3, "owner": 0}
    s2 = s.apply(parse_action("green s2 -> (-40,-60) h2"))
    assert s2 is s  # must be corrected: the table is not changed


def test_new_support_may_not_touch_an_opponent_support() -> None:
    s, _ = opened()
    v = s.judge(parse_action("green s2 -> (15.5,-100) h2"))
    assert v.rule == "tokyo.no-contact" and "purple support s1" in v.reason


def test_no_loop_and_roads_end_on_new_supports() -> None:
    s, _ = opened("green s2 -> (-40,-60) h4 junction")
    assert s.judge(parse_action("purple s3 -> s1")).rule == "tokyo.no-loop"
    assert s.judge(parse_action("purple s3 -> s4")).rule == "tokyo.new-support"


# -- 第三步：放置小车 (first crossings over/under, old roads, counts) ---------------------------

def test_first_crossing_over_earns_a_car() -> None:
    s, vs = opened("green s2 -> (-40,-60) h4 junction cars 1")
    v = vs[-1]
    assert v.legal and v.details["cars"] == 1
    assert v.details["earned"] == [{"rule": "tokyo.cars.over", "road": 3, "owner": 0}]
    assert "first over purple road 3" in v.reason
    assert s.table_view()["players"][1]["cars"] == 8


def test_first_crossing_under_earns_a_car() -> None:
    s, vs = play([*OPENING[:2], "purple s1 -> (0,0) h5 junction", "green s2 -> (-40,-60) h2"])
    assert vs[-1].legal and vs[-1].details["earned"][0]["rule"] == "tokyo.cars.under"


def test_each_direction_pays_once_per_road_and_old_roads_never_earn() -> None:
    s, _ = opened("green s2 -> (-40,-60) h4 junction", "purple s3 -> (0,100) h3")
    # a second green road over purple road 3 (from the junction's second branch): already crossed over
    v = s.judge(parse_action("green s4 -> (40,-90) h5"))
    assert v.legal and v.details["cars"] == 0, v.reason
    assert [c["road"] for c in v.details["crossings"]] == [3]
    s, vs = play(["green s4 -> (40,-90) h5"], s)
    assert s.sticks[3].cars_earned == 1  # green road 4 kept its one car; nothing added later
    # crossing is mutual: purple road 3 has a road over it, green road 4 a road under it
    r3, r4 = s.stick_by_id[3], s.stick_by_id[4]
    assert (r3.crossed_over, r3.crossed_under, r4.crossed_over, r4.crossed_under) == (True, False, False, True)


MUTUAL = [
    "p1 start (0,-57) table (102.1,-57)", "p2 start (0,57) table (-102.1,57)", "p1 s1 -> (-56.6,-24.3) h3 junction",
    "p2 s2 -> (92.2,110.2) h3 junction", "p1 s3 -> (-56.6,-92) h2", "p2 s4 -> (92.2,42.5) h4",
    "p1 s5 -> (51.2,-92) h3", "p2 s6 -> (24.5,42.5) h3", "p1 s3 -> (-115.8,-58.5) h3 junction",
    "p2 s8 -> (24.5,-25.9) h3 junction", "p1 s7 -> (51.2,14.4) h5 junction",
]


def test_a_road_built_over_another_already_has_a_road_under_it() -> None:
    # purple road 11 was laid over purple road 1: a green road passing under road 11 is not the first
    # (published wording: "the only road below"), so it earns nothing
    s, vs = play(MUTUAL)
    assert vs[-1].details["crossings"][0]["road"] == 1 and vs[-1].details["crossings"][0]["new_on_top"]
    v = s.judge(parse_action("p2 s10 -> (132.3,-25.9) h2"))
    (c,) = v.details["crossings"]
    assert v.legal and c["road"] == 11 and not c["new_on_top"] and v.details["cars"] == 0


def test_placed_cars_must_match_the_earned_number() -> None:
    s, _ = opened()
    v = s.judge(parse_action("green s2 -> (-40,-60) h4 junction cars 2"))
    assert v.rule == "tokyo.cars" and "place 1, not 2" in v.reason
    s2, _ = play(OPENING[:2])
    v = s2.judge(parse_action("purple s1 -> (0,0) h2 cars 1"))
    assert v.rule == "tokyo.cars" and "take the 1 car(s) back" in v.reason


OWN_CROSSING = [
    "p1 start (0,-57) table (102.1,-57)", "p2 start (0,57) table (-102.1,57)", "p1 s1 -> (33.8,1.6) h2",
    "p2 s2 -> (0,124.7) h2", "p1 s3 -> (-24.8,35.4) h1", "p2 s4 -> (-92.2,71.5) h4 junction",
    "p1 s5 -> (-78.7,-58) h2",
]


@pytest.mark.parametrize(("seed_reading", "cars"), [(True, 0), (False, 1)])
def test_crossing_an_own_road_earns_nothing_in_the_seed_reading(seed_reading: bool, cars: int) -> None:
    s, vs = play(OWN_CROSSING, own_crossing_blocks_cars=seed_reading)
    assert all(v.legal for v in vs)
    v = s.judge(parse_action("p2 s6 -> (-38.3,-21.9) h3"))
    owners = sorted(c["owner"] for c in v.details["crossings"])
    assert v.legal and owners == [0, 1]  # crosses a purple road and its own green start road
    assert v.details["cars"] == cars
    assert ("crosses your own road 2" in v.reason) is seed_reading


# -- 匝道 (ramps) --------------------------------------------------------------------------

def test_ramp_earns_a_car_and_is_a_dead_end() -> None:
    s, vs = opened("green s2 -> ramp (60,-120)")
    v = vs[-1]
    assert v.legal and v.details["earned"] == [{"rule": "tokyo.cars.ramp"}]
    assert s.open_bases(1) == []  # nothing continues from the ramp's table end
    view = s.table_view()
    assert view["sticks"][-1]["to"] == [60.0, -120.0] and view["sticks"][-1]["kind"] == "ramp"


def test_ramp_only_from_a_one_column_support() -> None:
    s, _ = opened("green s2 -> (-40,-60) h4 junction")
    v = s.judge(parse_action("purple s3 -> ramp (-80,40)"))
    assert v.rule == "tokyo.ramp" and "2 high" in v.reason


# -- 碰倒部件的处罚 (knock-over penalty) ----------------------------------------------------------

@pytest.mark.parametrize(("per_piece", "given"), [(False, 1), (True, 3)])
def test_knock_over_penalty(per_piece: bool, given: int) -> None:
    s, _ = opened(knock_per_piece=per_piece)
    before = s.stock
    v = s.judge(parse_action("green knocks purple:3"))
    assert v.rule == "tokyo.knock" and v.consequence is Consequence.PENALTY and not v.legal
    s2 = s.apply(parse_action("green knocks purple:3"), v)
    assert s2.stock[1].grey == before[1].grey - given and s2.stock[0].grey == before[0].grey + given
    assert s2.current_player() == s.current_player()  # an accident does not pass the turn


def test_knock_pays_in_junctions_when_asked_and_own_pieces_cost_nothing() -> None:
    s, _ = opened()
    s2 = s.apply(parse_action("green knocks purple:1 give junction"))
    assert (s2.stock[1].junctions, s2.stock[0].junctions) == (2, 4)
    v = s.judge(parse_action("green knocks green:2"))
    assert v.legal and v.rule == "tokyo.knock.own"
    assert s.apply(parse_action("green knocks green:2")).stock == s.stock


# -- 建材不足 (out of material) ------------------------------------------------------------------

def test_material_shortage_skip_and_loss() -> None:
    s, _ = opened(sticks=2)  # purple has used both its sticks
    assert s.judge(parse_action("green skip")).rule == "tokyo.skip"
    assert not s.judge(parse_action("green skip")).legal  # green still has material
    s, _ = play(["green s2 -> ramp (60,-120)"], s)
    v = s.judge(parse_action("purple s3 -> (0,100) h3"))
    assert v.rule == "tokyo.material" and "road stick" in v.reason


def test_out_of_columns_skip_then_lose_after_the_opponents_turn() -> None:
    s, _ = opened("green s2 -> ramp (60,-120)", grey=3)  # purple: 1 + 2 grey used; green: a dead end
    v = s.judge(parse_action("purple s3 -> (0,100) h3"))
    assert v.rule == "tokyo.material" and "grey columns" in v.reason
    s, vs = play(["purple skip"], s)
    assert vs[0].legal and "loses unless green's next turn" in vs[0].reason
    assert not s.is_terminal()
    s, _ = play(["green skip"], s)  # green finished a turn without giving purple a column
    assert s.is_terminal() and s.outcome().winners == (1,) and "ran out of material" in s.outcome().reason


def test_shortage_rescued_by_a_penalty_column() -> None:
    s, _ = opened("green s2 -> ramp (60,-120)", grey=3)
    s, _ = play(["purple skip", "green knocks purple:1", "green skip"], s)
    assert not s.is_terminal() and s.current_player() == 0  # purple got a column: still playing
    assert s.judge(parse_action("purple s3 -> (0,100) h1")).legal


def test_ramp_dead_end_with_no_open_base_is_a_shortage() -> None:
    s, _ = opened("green s2 -> ramp (60,-120)", "purple s3 -> (0,100) h3")
    assert s.judge(parse_action("green skip")).legal


# -- 进阶规则：相同车型奖励 (same car model) ---------------------------------------------------------

@pytest.mark.parametrize(("option", "gain"), [(True, 1), (False, 0)])
def test_same_model_bonus(option: bool, gain: int) -> None:
    s, _ = opened(same_model_bonus=option)
    grey = s.stock[1].grey
    v = s.judge(parse_action("green s2 -> (-40,-60) h4 junction models sedan"))  # purple has a sedan
    assert ("rule tokyo.same-model" in v.reason) is option
    s2 = s.apply(parse_action("green s2 -> (-40,-60) h4 junction models sedan"))
    s3 = s.apply(parse_action("green s2 -> (-40,-60) h4 junction models truck"))
    assert s3.stock[1].grey == grey - 3  # no purple truck on the table: nothing taken
    assert s2.stock[1].grey == grey - 3 + gain and s2.stock[0].grey == s.stock[0].grey - gain


# -- 游戏结束 (winning with the last car) --------------------------------------------------------

def test_last_car_wins_at_once() -> None:
    s, vs = opened("green s2 -> (-40,-60) h4 junction", cars=2)
    assert "wins" in vs[-1].reason
    assert s.is_terminal() and s.outcome().winners == (1,)
    assert s.judge(parse_action("purple s3 -> (0,100) h3")).rule == "tokyo.game-over"


# -- camera disagreement ---------------------------------------------------------------------

def test_observed_over_under_is_checked_against_heights() -> None:
    s, _ = opened()
    v = s.judge(parse_action("green s2 -> (-40,-60) h4 junction under r3"))
    assert v.legal  # judged on the heights; the disagreement is reported
    (d,) = v.details["disagreements"]
    assert d["computed"] == "over" and d["seen"] == "under" and "heights or the reading are wrong" in d["reason"]
    v = s.judge(parse_action("green s2 -> (-40,-60) h4 junction over r3 over r1"))
    assert [d["road"] for d in v.details["disagreements"]] == [1]  # r1 is not crossed at all
    assert "disagreements" not in s.judge(parse_action("green s2 -> (-40,-60) h4 junction over r3")).details


# -- 3-4 players (published 4-player edition) ------------------------------------------------

def test_four_player_material_and_buildings() -> None:
    s = new_state(4, blocks=[[0, 0, 40, 40, 30]])
    assert [st.cars for st in s.stock] == [7] * 4 and s.rules.colors == ("blue", "green", "pink", "orange")
    s, vs = play(["blue start (-20,-100) table (-120,-100)", "green start (100,-20) table (100,80)",
                  "pink start (20,100) table (120,100)", "orange start (-100,20) table (-100,-80)"], s)
    assert all(v.legal for v in vs) and s.current_player() == 0
    low = s.judge(parse_action("blue s1 -> (-20,0) h2"))  # into the 30 mm high building
    assert low.rule == "tokyo.no-contact" and "building 1" in low.reason
    assert new_state(3).stock[0].cars == 8


# -- bad input -------------------------------------------------------------------------------

@pytest.mark.parametrize("height", [-1, 0, 1.5, float("nan"), True])
def test_bad_heights(height) -> None:
    with pytest.raises(EngineError, match="support height"):
        NewSupport(0, 0, height)


def test_bad_input_errors() -> None:
    s, _ = opened()
    with pytest.raises(EngineError, match="s1 is purple's"):
        s.judge(parse_action("green s1 -> (-40,-60) h2"))
    with pytest.raises(EngineError, match="same place"):
        s.judge(parse_action("green s2 -> (5,-100) h2"))
    with pytest.raises(EngineError, match="no support s9"):
        s.judge(parse_action("green s9 -> (5,-100) h2"))
    with pytest.raises(EngineError, match="unknown car colour 'red'"):
        Build(2, NewSupport(0, 0, 2), player="red")
    with pytest.raises(EngineError, match="nobody|no player plays orange"):
        s.judge(Build(2, NewSupport(-40, -60, 2), player="orange"))
    with pytest.raises(NotationError):
        parse_action("red s1 -> (0,0) h2")
    with pytest.raises(NotationError, match="no half columns"):
        parse_action("purple s1 -> (0,0) h2.5")
    with pytest.raises(EngineError, match="unknown tokyo-highway option"):
        new_state(jumps=True)
    with pytest.raises(EngineError, match="2, 3 or 4"):
        get_game("tokyo-highway").new_state(players=5)


def test_three_players_out_of_material_drop_out_one_by_one() -> None:
    starts = ["blue start (-20,-100) table (-120,-100)", "green start (100,-20) table (100,80)",
              "pink start (20,100) table (120,100)"]
    s, vs = play(starts, new_state(3, sticks=1))  # the start roads use every stick
    assert all(v.legal for v in vs)
    s, vs = play(["blue skip", "green skip"], s)
    assert s.out == (0,) and not s.is_terminal() and s.current_player() == 2  # blue lost after green's turn
    s, _ = play(["pink skip"], s)
    assert s.is_terminal() and s.outcome().winners == (2,)
