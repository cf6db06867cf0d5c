"""Railroad Ink decoded through the referee loop (scripted sheet and tray readings)."""

from __future__ import annotations

import numpy as np

from referee_app import events
from referee_app.games.base import Observation
from referee_app.games.railroad_ink import TRAY, RailroadInkAdapter, square_belief
from referee_app.hub import Hub
from referee_app.loop import RefereeLoop
from referee_app.store import MatchStore
from vision.types import Frame

ROLL = ("highway_straight", "railway_curve", "railway_t", "station_straight")


class Scripted(RailroadInkAdapter):
    def __init__(self, script: list[Observation]) -> None:
        super().__init__()
        self.script = script

    def read(self, frame):
        return self.script[frame.index]


def seen(items: dict, conf: dict | None = None) -> Observation:
    return Observation(dict(items), {k: (conf or {}).get(k, 0.99) for k in items})


def run(tmp_path, moves: list[str], script: list[Observation]):
    hub = Hub(MatchStore(tmp_path))
    said = []
    hub.bus.subscribe(said.append)
    session = hub.create_match("railroad-ink", ["Ann"])
    for m in moves:
        session.submit_notation(m)
    img = np.zeros((16, 16, 3), np.uint8)
    loop = RefereeLoop(hub, session, Scripted(script), (Frame(img, 0.0, "t", i) for i in range(len(script))),
                       frames_needed=2, publish_video=False)
    loop.run()
    hub.bus.drain()
    return session, [e for e in said if e.kind in (events.MISMATCH, events.CONFIRM)]


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
