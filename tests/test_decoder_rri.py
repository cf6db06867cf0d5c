"""Railroad Ink decoded through the referee loop (scripted sheet and tray readings)."""

from __future__ import annotations

from decoder_loop import run_loop, scripted

from referee_app import events
from referee_app.games.base import Observation
from referee_app.games.railroad_ink import TRAY, RailroadInkAdapter, square_belief

ROLL = ("highway_straight", "railway_curve", "railway_t", "station_straight")


def seen(items: dict, conf: dict | None = None) -> Observation:
    return Observation(dict(items), {k: (conf or {}).get(k, 0.99) for k in items})


def run(tmp_path, moves: list[str], script: list[Observation]):
    return run_loop(tmp_path, "railroad-ink", ["Ann"], scripted(RailroadInkAdapter, script), len(script), moves)


MOVES = ["roll " + " ".join(ROLL), "p0 highway_straight G5 H-H-"]
TABLE = {TRAY: tuple(sorted(ROLL)), "G5": "H-H-"}


def test_a_drawn_square_misread_for_a_few_frames_raises_no_mismatch(tmp_path):
    misread = TABLE | {"G5": "H-R-"}
    script = [seen(TABLE)] * 2 + [seen(misread, {"G5": 0.7})] * 3 + [seen(TABLE)] * 2
    session, said = run(tmp_path, MOVES, script)
    assert said == [] and len(session.played) == 2


def test_a_face_not_rolled_is_drawn_and_judged_illegal(tmp_path):
    script = [seen(TABLE)] * 2 + [seen(TABLE | {"F5": "H--H"})] * 3
    session, said = run(tmp_path, MOVES, script)
    last = session.played[-1]
    assert last.action.notation() == "p0 highway_curve F5 H--H" and last.verdict.rule == "rri.roll.not-rolled"
    assert said == []


def test_a_knocked_tray_die_is_a_mismatch_at_once(tmp_path):
    knocked = TABLE | {TRAY: tuple(sorted(("highway_curve", *ROLL[1:])))}
    script = [seen(TABLE)] * 2 + [seen(knocked)] * 2
    session, said = run(tmp_path, MOVES, script)
    assert [e.kind for e in said] == [events.MISMATCH] and "leave the dice" in said[0].data["message"]


def test_an_unclear_square_asks_with_the_likeliest_drawings(tmp_path):
    items = TABLE | {"F6": "-RR-"}
    unclear = Observation(items, {k: 0.99 for k in TABLE} | {"F6": 0.4},
                          beliefs={"F6": square_belief("-RR-", 0.4), "G5": square_belief("H-H-", 0.99),
                                   TRAY: {TABLE[TRAY]: 0.98}})
    session, said = run(tmp_path, MOVES, [seen(TABLE)] * 2 + [unclear] * 3)
    assert [e.kind for e in said] == [events.CONFIRM]
    options = [c["notation"] for c in said[0].data["candidates"]]
    assert options[0] == "p0 railway_curve F6 -RR-" and 2 <= len(options) <= 3
    assert len(session.played) == 2
