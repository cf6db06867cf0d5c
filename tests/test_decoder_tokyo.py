"""Tokyo Highway decoded through the referee loop: scripted reader observations (as the stick and
support reader gives them), the engine's matched build as the candidate."""

from __future__ import annotations

from decoder_loop import run_loop

import engine
from referee_app import demo_tokyo as dt
from referee_app import events
from referee_app.games.tokyo import TokyoAdapter, observation, table_read
from referee_app.matchlog import read_log

GAME = engine.get_game("tokyo-highway")
STARTED = ("purple start (-150,-60) table (-150,-170)", "green start (150,-60) table (150,-170)")
START_STICKS = [((-150.0, -168.0), (-152.0, -50.0), (None, 0), "road"),
                ((151.0, -171.0), (150.0, -52.0), (None, 1), "road")]
START_SUPPORTS = [(-151.2, -61.8, 1, False), (148.9, -58.7, 1, False)]
NEW_ROAD = ((-143.0, -64.0), (-55.0, -5.0), (0, 2), "road")


def reading(supports, sticks, support_conf: float = 0.95) -> dict:
    return {"calibrated": True, "warnings": [], "cars": [], "crossings": [],
            "supports": [{"x_mm": x, "y_mm": y, "height": h, "junction": j, "confidence": support_conf,
                          "height_confidence": 0.8, "top_px": (0.0, 0.0)} for x, y, h, j in supports],
            "sticks": [{"endpoints_mm": [[*a, 0.0], [*b, 0.0]], "endpoints": [(0.0, 0.0), (1.0, 1.0)],
                        "rests": list(r), "role": role, "color": "natural", "confidence": 0.9,
                        "width_px": 8.0} for a, b, r, role in sticks]}


class Scripted(TokyoAdapter):
    def __init__(self, script: list[dict]) -> None:
        super().__init__()
        self.script = script

    def read(self, frame):
        table = table_read(self.script[frame.index], 10.0)
        self._latest[table.signature] = table
        return observation(table, None)


def run(tmp_path, script: list[dict]):
    moves = []
    state = GAME.new_state()
    for move in STARTED:  # the start roads, entered by hand
        action = dt.seen_action(state, move)
        state = state.apply(action, state.judge(action))
        moves.append(action)
    return run_loop(tmp_path, "tokyo-highway", ["Ann", "Bo"], Scripted(script), len(script), moves)


def test_a_clear_build_is_committed_with_its_margin_logged(tmp_path):
    started = reading(START_SUPPORTS, START_STICKS)
    built = reading([*START_SUPPORTS, (-62.3, -8.4, 2, False)], [*START_STICKS, NEW_ROAD])
    session, said = run(tmp_path, [started] * 2 + [built] * 2)
    assert said == [] and session.played[-1].action.notation() == "purple s1 -> (-60,-10) h2"
    record = [r for r in read_log(session.writer.path).records if r["type"] == "action"][-1]
    assert record["source"] == "vision" and record["margin"] >= 1.0


def test_an_unsure_support_asks_with_the_other_heights(tmp_path):
    started = reading(START_SUPPORTS, START_STICKS)
    built = reading([*START_SUPPORTS, (-62.3, -8.4, 2, False)], [*START_STICKS, NEW_ROAD], support_conf=0.3)
    session, said = run(tmp_path, [started] * 2 + [built] * 3)
    assert [e.kind for e in said] == [events.CONFIRM]
    names = [c["notation"] for c in said[0].data["candidates"]]
    assert names[0] == "purple s1 -> (-60,-10) h2" and "purple s1 -> (-60,-10) h3" in names
    assert len(session.played) == 2


def test_a_knocked_road_is_a_mismatch(tmp_path):
    started = reading(START_SUPPORTS, START_STICKS)
    knocked = reading(START_SUPPORTS, [START_STICKS[0], ((100.0, -200.0), (200.0, -200.0), (None, None), "loose")])
    session, said = run(tmp_path, [started] * 2 + [knocked] * 2)
    assert [e.kind for e in said] == [events.MISMATCH] and "missing" in said[0].data["message"]


def test_a_short_lived_misread_of_other_items_does_not_make_a_clear_build_a_question():
    """A loose stick misread for two frames (never long enough to be raised) then the build, clear in
    every frame after: committed, not asked. It was a question while any change that had led in two
    frames counted as a rival, though it changed other items than the build's."""
    from referee_app.decoder import candidates as cand
    from referee_app.decoder.decide import Decoder
    from referee_app.games.base import Explanation, Observation

    state = engine.get_game("tokyo-highway").new_state()
    action = dt.seen_action(state, "purple start (-150,-60) table (-150,-170)")

    class Fake:
        def expected(self, state):
            return {}

        def candidates(self, state, table):
            return [cand.nothing(), cand.other(scope={"loose"}, loose=True), cand.act(action, {"build": "K"})]

        def explain(self, state, seen):
            return Explanation()

    decoder = Decoder(Fake(), frames_needed=2)
    loose = {"loose": {1: 0.85, None: 0.15}}
    built = {"build": {"K": 0.95, None: 0.05}}
    said = [decoder.push(Observation({}, beliefs=b), state) for b in (loose, loose, built, built)]
    assert said[:3] == [None, None, None]
    assert said[3] is not None and said[3].action == action and not said[3].candidates


def test_a_lead_counted_before_the_players_answered_is_no_rival_of_the_next_move():
    """After a question the scene's last frames still vote (here for the runner-up, two frames, too
    few to be said). Once the players answer, the match is in a new state: the next move, clear in
    every frame, is committed. Those stale votes made it a question too (tuning seed 4, moves 7-8)."""
    from referee_app.decoder import candidates as cand
    from referee_app.decoder.decide import Decoder
    from referee_app.games.base import Observation

    before = GAME.new_state()
    first = dt.seen_action(before, "purple start (-150,-60) table (-150,-170)")
    near = dt.seen_action(before, "purple start (-150,-60) table (-150,-160)")
    after = before.apply(first, before.judge(first))
    second = dt.seen_action(after, "green start (150,-60) table (150,-170)")

    class Fake:
        def expected(self, state):
            return {}

        def candidates(self, state, table):
            if state is before:
                return [cand.nothing(), cand.act(first, {"build": "A"}), cand.act(near, {"build": "B"})]
            return [cand.nothing(), cand.act(second, {"build": "C"})]

        def explain(self, state, seen):
            raise AssertionError("not asked")

    decoder = Decoder(Fake(), frames_needed=3)
    unsure = {"build": {"A": 0.5, "B": 0.4, None: 0.1}}
    flicker = {"build": {"A": 0.3, "B": 0.6, None: 0.1}}
    clear = {"build": {"C": 0.95, None: 0.05}}
    asked = [decoder.push(Observation({}, beliefs=b), before) for b in (unsure,) * 3 + (flicker,) * 2]
    assert asked[2] is not None and asked[2].candidates and asked[3:] == [None, None]
    # the players confirm `first`: the loop goes on in the state after it
    said = [decoder.push(Observation({}, beliefs=clear), after) for _ in range(3)]
    assert said[:2] == [None, None]
    assert said[2] is not None and said[2].action == second and not said[2].candidates


def _road_and_build_decoder():
    """A decoder over two changes: a start road only one camera saw ("road2") and the move made
    ("build"), with the state they are ranked against."""
    from referee_app.decoder import candidates as cand
    from referee_app.decoder.decide import Decoder
    from referee_app.games.base import Explanation

    state = GAME.new_state()
    made = dt.seen_action(state, "purple start (-150,-60) table (-150,-170)")
    spurious = dt.seen_action(state, "green start (150,-60) table (150,-170)")

    class Fake:
        def expected(self, state):
            return {}

        def candidates(self, state, table):
            return [cand.nothing(), cand.act(spurious, {"road2": "S"}), cand.act(made, {"build": "K"})]

        def explain(self, state, seen):
            return Explanation()

    return Decoder(Fake(), frames_needed=3), state, made


ROAD = {"road2": {"S": 0.9, None: 0.1}}
BUILT = {"road2": {"S": 0.05, None: 0.95}, "build": {"K": 0.95, None: 0.05}}


def test_a_lead_that_ended_before_the_move_was_made_is_no_rival():
    """A road read for two frames before the move, never after, then the move, clear in every frame:
    committed, not asked. It was a question while any change that led in two frames counted as a rival
    (Tokyo two-camera tuning seed 44, move 2)."""
    from referee_app.games.base import Observation

    decoder, state, made = _road_and_build_decoder()
    said = [decoder.push(Observation({}, beliefs=b), state) for b in (ROAD, ROAD, BUILT, BUILT, BUILT)]
    assert said[:4] == [None] * 4
    assert said[4] is not None and said[4].action == made and not said[4].candidates


def test_a_rival_that_leads_again_after_the_best_took_over_still_asks():
    """A reading flickering between the two (the road leads again after the move first did): a
    question, though the last frames rank the move clearly ahead."""
    from referee_app.games.base import Observation

    decoder, state, _ = _road_and_build_decoder()
    again = {"road2": {"S": 0.97, None: 0.03}, "build": {"K": 0.5, None: 0.5}}
    said = [decoder.push(Observation({}, beliefs=b), state) for b in (ROAD, BUILT, again, BUILT, BUILT)]
    assert said[:4] == [None] * 4
    assert said[4] is not None and said[4].candidates and said[4].margin == 0.0
    best, runner_up = decoder.last.ranked[:2]
    assert best.score - runner_up.score >= decoder.commit_margin
