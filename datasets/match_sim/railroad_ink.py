"""A simulated Railroad Ink match (the watched player's sheet and the dice tray under one camera, as
in the bundled recording): each round the four dice are rolled, the player draws the rolled routes,
sometimes one that was not rolled or one that joins a railway to a highway (erased again once
judged), then clears the tray. Shadows, glare, hands, dice nudged in the tray and one camera bump.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from datasets.match_sim.core import Photographer, Script, Setup, SimMatch, TrueMove, camera_pose

GAME = "railroad-ink"
ILLEGAL_SHARE = 0.1  # of drawings that break a rule
FRAMES_NEEDED = 3
RASTER_PX_PER_MM = 5.0  # the table's flat picture (sheet + tray) before the camera sees it


def _illegal_drawing(state: Any, faces: list[str], rng: np.random.Generator) -> Any | None:
    """A drawing the engine rules illegal: a route that was not rolled, or a railway drawn onto a
    highway with no station between."""
    from datasets.demo_railroad_ink import _illegal

    spare = [p for p in ("highway_curve", "railway_straight", "highway_t", "railway_t") if p not in faces]
    railways = [f for f in faces if f.startswith("rail")]
    options = [("rri.roll.not-rolled", spare), ("rri.connect.mismatch", railways)]
    rng.shuffle(options)
    for rule, pieces in options:
        if not pieces:
            continue
        try:
            return _illegal(state, rule, pieces)
        except RuntimeError:
            continue
    return None


def simulate(seed: int, setup: Setup, turns: int = 4) -> SimMatch:
    """`turns` rounds (of the game's seven) for one watched player, scripted from `seed`."""
    import engine
    from datasets.demo_railroad_ink import TABLE_MM, TableCamera, TableScene, game_overpass
    from engine.railroad_ink import FACES, Done, Roll

    game = engine.get_game(GAME)
    rng = np.random.default_rng([seed, 1])
    photographer = Photographer(setup, camera_pose(setup, TABLE_MM, np.random.default_rng([seed, 2])), seed)
    camera = TableCamera(seed)  # only its rasters (sheet squares in the player's hand, tray, dice)
    moves: list[TrueMove] = []
    film = Script(setup, rng, FRAMES_NEEDED)
    scenes = film.scenes
    drawn: dict[int, tuple[str, bool, int | None]] = {}
    state = game.new_state(players=1)
    bump_round = int(rng.integers(1, max(2, turns)))

    def add(tray: list[str], note: str, checkpoint: int | None = None, extra: dict | None = None,
            nudge: int = 0) -> None:
        film.still((TableScene(dict(drawn) | (extra or {}), list(tray)), nudge), note, checkpoint)

    def hand(tray: list[str], note: str) -> None:
        film.hand((TableScene(dict(drawn), list(tray)), 0), note)

    def play(action: Any, scripted: bool = False) -> Any:
        nonlocal state
        verdict = state.judge(action)
        moves.append(TrueMove(action.notation(), verdict.legal, verdict.rule, scripted))
        state = state.apply(action, verdict)
        return verdict

    add([], "empty sheet, empty tray")
    for k in range(turns):
        if state.is_terminal():
            break
        faces = [str(rng.choice(FACES[die])) for die in state.dice]
        hand([], "hand rolling the dice")
        play(Roll(state.normalise_roll(sorted(faces))))
        add(faces, f"round {k + 1} roll: {', '.join(faces)}", len(moves) - 1)
        if k == bump_round:
            scenes[-1].bump = True
        nudge = 0
        for face in faces:
            if rng.random() < ILLEGAL_SHARE:
                wrong = _illegal_drawing(state, faces, rng)
                if wrong is not None:
                    square = (wrong.sides, game_overpass(wrong.piece), state.round)
                    hand(faces, f"drawing {wrong.notation()}")
                    play(wrong, scripted=True)
                    add(faces, f"drew {wrong.notation()}: illegal", len(moves) - 1, {wrong.cell: square},
                        nudge)
                    hand(faces, "erasing it")
                    add(faces, "erased", nudge=nudge)
            options = list(state.legal_placements(0, [face]))
            if not options:
                continue
            action = options[int(rng.integers(len(options)))]
            square = (action.sides, game_overpass(action.piece), state.round)
            hand(faces, f"drawing {action.notation()}")
            play(action)
            drawn[action.cell] = square
            if rng.random() < 0.25:  # the pencil knocks a die a few mm across the tray
                nudge += 1
            add(faces, f"drew {action.notation()}", len(moves) - 1, nudge=nudge)
        hand(faces, "clearing the tray")
        play(Done(0))
        add([], f"round {k + 1}: tray cleared", len(moves) - 1)

    def draw(content: Any, pose: Any) -> np.ndarray:
        from datasets.camera import composite_objects, render_sheet

        scene, nudge = content
        s = RASTER_PX_PER_MM
        raster = np.full((round(TABLE_MM[1] * s), round(TABLE_MM[0] * s), 3), 150, np.uint8)
        sheet = cv2.resize(camera._sheet_raster(scene), (round(200 * s), round(200 * s)),
                           interpolation=cv2.INTER_AREA)
        tray = cv2.resize(camera._tray_raster(), (round(150 * s), round(200 * s)),
                          interpolation=cv2.INTER_AREA)
        raster[:sheet.shape[0], :sheet.shape[1]] = sheet
        raster[:tray.shape[0], round(212 * s):round(212 * s) + tray.shape[1]] = tray
        image, _ = render_sheet(raster, TABLE_MM, pose, background=photographer.table, effects=0.0)
        dice = camera._dice(scene.tray)
        shift = np.random.default_rng([seed, 6, nudge]).uniform(-2.5, 2.5, (len(dice), 2)) if nudge else None
        for j, die in enumerate(dice):
            if shift is not None:
                die.center_mm = (die.center_mm[0] + shift[j, 0], die.center_mm[1] + shift[j, 1])
        composite_objects(image, pose, dice)
        return image

    return SimMatch(GAME, ["Ann"], moves, scenes, photographer, draw, extra={"frames_needed": FRAMES_NEEDED})
