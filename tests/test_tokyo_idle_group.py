"""Tuning seed 38 at 550/40, two cameras (camera 2 at the default 750 mm): on the scene where green's
illegal build is taken back (before the seventh move) nothing is built, but the scan along the standing
roads finds a faint place under purple's start road, and `purple s1 -> (-150,-110) h1` (illegal) and
its neighbours a grid step along the road share the belief with "no build" almost evenly (pixel
evidence 0-19 nats, where a column built shows hundreds). Each alone is behind "nothing"; summed, three
readings of which two the evidence puts below "nothing" beat it, and the group rule asked (issue 19,
branch tokyoq7). Read through the adapter and the decoder as `eval match` does, the scene stays silent."""

from __future__ import annotations

from tokyo_poses import scene_frames, take_bumps, two_camera_move


def test_tuning_seed_38s_take_back_scene_asks_nothing(tmp_path) -> None:
    from referee_app.decoder.decide import Decoder

    move = 7
    sim, state, adapter = two_camera_move(38, move, tmp_path)
    scene = next(k for k, sc in enumerate(sim.scenes) if sc.checkpoint == move) - 1
    assert sim.scenes[scene].note == "wrong build taken back"
    take_bumps(sim, scene)
    adapter.watch(state)
    decoder = Decoder(adapter, frames_needed=3)
    said = []
    for frame in scene_frames(sim, scene):
        ex = decoder.push(adapter.read(frame), state)
        if ex is not None and (ex.candidates or ex.action is not None or ex.mismatch):
            said.append(ex)
    assert said == [], [[a.notation() for a, _ in ex.candidates] for ex in said]


def test_a_place_beside_a_judged_illegal_road_is_forgotten_and_not_kept_again() -> None:
    from referee_app.games.tokyo_builds import KeptPlaces

    state = object()
    kept = KeptPlaces()
    # 24 mm beside the road of an illegal build from (-110,-120) to (-200,-170), 50 mm from its column
    kept.of(state).extend([(-150.0, -170.0, 8.0), (100.0, 100.0, 8.0)])
    kept.forget(state, -200.0, -170.0, 30.0, base=(-110.0, -120.0))
    assert kept.of(state) == []
    assert kept.barred(-150.0, -170.0) and not kept.barred(-140.0, -190.0) and not kept.barred(100.0, 100.0)
    kept.forget(state, 100.0, 100.0, 30.0)  # no base: its column alone, as before
    assert kept.barred(100.0, 110.0) and not kept.barred(60.0, 100.0)


def test_tuning_seed_32s_take_back_scene_asks_nothing(tmp_path) -> None:
    """Seed 32's ninth move, `p1 s5 -> (-200,-170) h4 junction over r1` (illegal), is flagged on its
    scene; a grey blob beside its road in the scene's last frame kept the place (-150,-170), and on the
    take-back scene a column from s7 there read as strongly as a column built (a start road's end), two
    readings a grid step apart: a question though nothing was built."""
    sim, state, adapter, scene, decoder = _illegal_then_taken_back(32, 8, tmp_path)
    said = []
    for at in (scene, scene + 1):
        for frame in scene_frames(sim, at):
            ex = decoder.push(adapter.read(frame), state)
            if ex is not None and (ex.candidates or ex.action is not None or ex.mismatch):
                said.append((at, ex))
                decoder.note_state(state)  # an illegal build leaves the match as it was
    assert said[0][0] == scene and said[0][1].action is not None  # the illegal build, judged
    assert all(not ex.candidates for _, ex in said), [[a.notation() for a, _ in ex.candidates] for _, ex in said]


def test_a_loop_tells_the_adapter_when_the_players_confirm_an_illegal_move(tmp_path) -> None:
    """A question answered with an illegal move is judged as the decoder's own commit is: the adapter
    hears of it (Tokyo Highway: it forgets the places it kept of the pieces to be taken back)."""
    from test_referee_loop import ScriptedGrid, frames, obs

    from referee_app.hub import Hub
    from referee_app.loop import RefereeLoop
    from referee_app.store import MatchStore

    told = []

    class Told(ScriptedGrid):
        def judged_illegal(self, state, action) -> None:
            told.append(action.notation())

    hub = Hub(MatchStore(tmp_path))
    session = hub.create_match("highway-grid", ["A", "B"])
    loop = RefereeLoop(hub, session, Told([obs({"c1": 16}, conf=0.3)] * 3), frames(3), frames_needed=3,
                       publish_video=False)
    loop.run()
    hub.bus.drain()
    assert loop.confirm("16@c1")["verdict"]["legal"] and told == []
    assert not loop.confirm("16@c1")["verdict"]["legal"] and told == ["16@c1"]


def test_tuning_seed_63s_take_back_scene_asks_nothing(tmp_path) -> None:
    """Seed 63's tenth move, `p1 s7 -> (-380,-80) h3 junction` (illegal), is asked and the players
    confirm it; its scene kept two places from grey blobs far from the illegal build ((110,10),
    (120,-30)), and on the take-back scene `green s4 -> (120,-30) h1` read there at 5 nats over
    "nothing", spread over grid steps: a question though nothing was built."""
    sim, state, adapter, scene, decoder = _illegal_then_taken_back(63, 9, tmp_path)
    illegal = sim.moves[9]
    said = []
    for at in (scene, scene + 1):
        if at == scene + 1:  # the players confirm the illegal build asked about (RefereeLoop.confirm)
            from engine.tokyo.actions import parse_action

            adapter.judged_illegal(state, parse_action(illegal.notation))
        for frame in scene_frames(sim, at):
            ex = decoder.push(adapter.read(frame), state)
            if ex is not None and (ex.candidates or ex.action is not None or ex.mismatch):
                said.append((at, ex))
    assert all(at == scene for at, _ in said), [(at, [a.notation() for a, _ in ex.candidates]) for at, ex in said]


def _illegal_then_taken_back(seed: int, move: int, tmp_path):
    """Seed `seed`'s illegal move `move` and the scene after it, where it is taken back: the simulated
    match, the state before it, its watching adapter, the illegal move's scene and a fresh decoder
    (camera 1's bumps up to the take-back taken)."""
    from referee_app.decoder.decide import Decoder

    sim, state, adapter = two_camera_move(seed, move, tmp_path)
    assert not sim.moves[move].legal
    scene = next(k for k, sc in enumerate(sim.scenes) if sc.checkpoint == move)
    assert sim.scenes[scene + 1].note == "wrong build taken back"
    take_bumps(sim, scene + 1)
    adapter.watch(state)
    return sim, state, adapter, scene, Decoder(adapter, frames_needed=3)
