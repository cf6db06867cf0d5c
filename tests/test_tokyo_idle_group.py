"""Tuning seed 38 at 550/40, two cameras (camera 2 at the default 750 mm): on the scene where green's
illegal build is taken back (before the seventh move) nothing is built, but the scan along the standing
roads finds a faint place under purple's start road, and `purple s1 -> (-150,-110) h1` (illegal) and
its neighbours a grid step along the road share the belief with "no build" almost evenly (pixel
evidence 0-19 nats, where a column built shows hundreds). Each alone is behind "nothing"; summed, three
readings of which two the evidence puts below "nothing" beat it, and the group rule asked (issue 19,
branch tokyoq7). Read through the adapter and the decoder as `eval match` does, the scene stays silent."""

from __future__ import annotations

from tokyo_poses import two_camera_move


def test_tuning_seed_38s_take_back_scene_asks_nothing(tmp_path) -> None:
    from referee_app.decoder.decide import Decoder
    from vision.sources import OtherView, PairedFrame

    move = 7
    sim, state, adapter = two_camera_move(38, move, tmp_path)
    scene = next(k for k, sc in enumerate(sim.scenes) if sc.checkpoint == move) - 1
    assert sim.scenes[scene].note == "wrong build taken back"
    for sc in sim.scenes[:scene + 1]:
        if sc.bump:
            sim.photographer.bump()
    adapter.watch(state)
    decoder = Decoder(adapter, frames_needed=3)
    said = []
    sc, index = sim.scenes[scene], sum(s.hold for s in sim.scenes[:scene])
    for k in range(index, index + sc.hold):
        shots = [p.expose(p.light(sim.draw(sc.content, p.pose), sc, scene), k)
                 for p in (sim.photographer, *sim.others)]
        ex = decoder.push(adapter.read(PairedFrame(shots[0], 0.0, "sim", k,
                                                   others=[OtherView(shots[1], "sim:camera2")])), state)
        if ex is not None and (ex.candidates or ex.action is not None or ex.mismatch):
            said.append(ex)
    assert said == [], [[a.notation() for a, _ in ex.candidates] for ex in said]
