"""Decoder against the exact-match path on the bundled dice match, its real readings perturbed.

Each frame of the bundled match is read once by the board reader; then, per seed, each die read on a
cell or in a pool is, per frame with probability P, read one pip off with a confidence drawn from
0.55-0.85 (the reader's misread confidences). The exact-match path (gate + explain) and the decoder
see the same frames. A synthetic check of robustness to misreads, not the per-move accuracy of
`eval match` (the noise model is this script's: independent per frame, where real misreads persist).

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python bench/decoder_noise.py [P] [SEEDS] [FIRST_SEED]
"""

from __future__ import annotations

import random
import sys
import tempfile
import types
from pathlib import Path

from referee_app import events
from referee_app.demo import bundled_demos
from referee_app.games import get_adapter
from referee_app.games.base import Observation
from referee_app.games.dice import COLOUR_SURE, PRESENT, TRAY, die_value_belief
from referee_app.hub import Hub
from referee_app.loop import RefereeLoop
from referee_app.store import MatchStore
from vision.beliefs import joint, present_belief, value_belief


def perturb(obs: Observation, rng: random.Random, p: float) -> Observation:
    if obs.blocked:
        return obs
    items, conf, beliefs = dict(obs.items), dict(obs.confidence), dict(obs.beliefs)
    for k, v in obs.items.items():
        if k == TRAY or rng.random() >= p:
            continue
        value = v[0] if isinstance(v, tuple) else v
        new = value + rng.choice((-1, 1))
        new = new if 1 <= new <= 6 else 2 * value - new
        c = rng.uniform(0.55, 0.85)
        conf[k] = c
        if isinstance(v, tuple):
            items[k] = (new, v[1])
            colour = value_belief(v[1], COLOUR_SURE, range(4))
            beliefs[k] = present_belief(PRESENT, joint(die_value_belief(new, c), colour))
        else:
            items[k] = new
            beliefs[k] = present_belief(PRESENT, die_value_belief(new, c))
    return Observation(items, conf, obs.blocked, list(obs.warnings), None, obs.frame_index, obs.timestamp,
                       beliefs)


def referee(demo, frames, seen: list[Observation], decode: bool) -> tuple[list[str], int, int]:
    adapter = get_adapter("highway-dice").__class__()
    adapter.read = types.MethodType(lambda self, f: seen[f.index], adapter)
    with tempfile.TemporaryDirectory() as d:
        hub = Hub(MatchStore(Path(d)))
        said: list = []
        hub.bus.subscribe(said.append)
        session = hub.create_match("highway-dice", list(demo.manifest["players"]), {})
        loop = RefereeLoop(hub, session, adapter, iter(frames), 3, publish_video=False)
        if not decode:
            loop.decoder = None  # the exact-match path: stability gate, then explain
        loop.run()
        hub.bus.drain()
        hub.bus.close()
    got = [p.action.notation() for p in session.played]
    return (got, sum(e.kind == events.MISMATCH for e in said), sum(e.kind == events.CONFIRM for e in said))


def main() -> None:
    p = float(sys.argv[1]) if len(sys.argv) > 1 else 0.03
    first = int(sys.argv[3]) if len(sys.argv) > 3 else 100  # seeds 0-19 were looked at while building
    seeds = range(first, first + (int(sys.argv[2]) if len(sys.argv) > 2 else 20))
    demo = {d.name: d for d in bundled_demos()}["highway-dice"]
    frames = list(demo.frames(realtime=False))
    reader = get_adapter("highway-dice").__class__()
    clean = [reader.read(f) for f in frames]
    expected = [e["notation"] for e in demo.manifest["expected"]]
    for decode in (False, True):
        whole = prefix = mismatches = confirmations = 0
        for seed in seeds:
            rng = random.Random(seed)
            got, mm, cf = referee(demo, frames, [perturb(o, rng, p) for o in clean], decode)
            whole += got == expected
            prefix += next((i for i, (a, b) in enumerate(zip(got, expected, strict=False)) if a != b),
                           min(len(got), len(expected)))
            mismatches += mm
            confirmations += cf
        name = "decoder" if decode else "exact-match"
        print(f"{name} P={p}: {len(seeds)} matches of {len(expected)} moves; "
              f"whole match right {whole}, moves right before the first wrong one {prefix}, "
              f"mismatches {mismatches}, confirmations {confirmations}", flush=True)


if __name__ == "__main__":
    main()
