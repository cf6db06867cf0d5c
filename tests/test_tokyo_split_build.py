"""Tuning seed 31's fourth move at 550/40, two cameras (camera 2 at the default 750 mm): green's
illegal `(150,-170) h2` at the table end of its own start road. The adapter reads it as the likeliest
build in the scene's still frames, but at 0.25-0.29, its belief shared with the same column a grid
step off and a unit lower; with the illegal prior "nothing" led the first frame it was seen, was
decided silently, and the same likeliest table was never ranked again though the build then led
(issue 19, branch tokyoask). Read through the adapter and the decoder as `eval match` does, the scene
now ends in a question that offers the build played."""

from __future__ import annotations

from tokyo_poses import scene_frames, take_bumps, two_camera_move


def test_tuning_seed_31s_fourth_move_is_asked_with_the_build_played(tmp_path) -> None:
    from referee_app.decoder.decide import Decoder

    move = 4
    sim, state, adapter = two_camera_move(31, move, tmp_path)
    assert sim.moves[move].notation == "p2 s2 -> (150,-170) h2" and not sim.moves[move].legal
    scene = next(k for k, sc in enumerate(sim.scenes) if sc.checkpoint == move)
    take_bumps(sim, scene)
    adapter.watch(state)
    decoder = Decoder(adapter, frames_needed=3)
    said = []
    # as in the match: the third move is committed on its scene's third frame, so its last two frames
    # (the table still, no hand between) are "nothing"'s first two votes, and the move's first frame
    # its third: "nothing" is decided, silently, on a table that already reads the build
    for at, skip in ((scene - 1, 3), (scene, 0)):
        for frame in scene_frames(sim, at, skip):
            ex = decoder.push(adapter.read(frame), state)
            if ex is not None and (ex.candidates or ex.action is not None or ex.mismatch):
                said.append(ex)
    assert len(said) == 1 and said[0].action is None and said[0].mismatch is None, said
    offered = [a.notation() for a, _ in said[0].candidates]
    assert "green s2 -> (150,-170) h2" in offered, offered
