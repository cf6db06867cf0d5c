"""Feed each frame of one simulated dice match to the dice adapter as it is and to variants with parts
of its reuse between frames switched off; print every frame where a variant reads otherwise.

Variants: `main` (as shipped), `noA` (no marker shortcut: every frame searches for markers), `noB`
(views warped whole, not only round the zones read), `off` (`DiceAdapter(reuse=False)`), `exact`
(every step branch dicefps, c99a357, made cheaper and not bit-exact put back:
`DiceAdapter(exact=vision.zones.EXACT_STEPS)`), `x-STEP[+STEP...]` (those steps exact besides
main's default, vision.zones.DEFAULT_EXACT: prep, faces, batch, f32, grey) and `x-none` (no step
exact). Every other variant keeps main's default exact steps. A frame's reading that differs from
the scene's truth (outside hand frames) is marked `WRONG` after the variant's name. A reading differs
when its items or `blocked` do; a confidence when it moves by more than 0.02 (the zone reuse keeps a
confirmed reading's confidence, so `off` differs there by design). Tuning seeds only.

    PYTHONPATH=. python bench/dice_reuse_ab.py 8 --camera 3840x2160 --variants main,noA,off
    PYTHONPATH=. python bench/dice_reuse_ab.py 29 --camera 1920x1080 --variants main,exact,x-prep --light dim
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from referee_app.commands.eval_match import make_setup, simulate
from referee_app.games.dice import DiceAdapter
from vision.zones import DEFAULT_EXACT, EXACT_STEPS

sys.path.insert(0, str(Path(__file__).resolve().parent))  # beside _match_frames.py
from _match_frames import add_setup  # noqa: E402
from dice_match_frames import _norm, _truth  # noqa: E402


def variant(name: str) -> DiceAdapter:
    """The adapter a variant's name stands for (see the module's doc). `x-STEP` adds its steps to
    main's default (DEFAULT_EXACT, which holds "prep" since b07a11b), so `x-faces` is prep+faces;
    `x-none` is every cheaper step on (c99a357's reader as it was)."""
    if name == "x-none":
        return DiceAdapter(exact=frozenset())
    if name.startswith("x-"):
        return DiceAdapter(exact=DEFAULT_EXACT | frozenset(name[2:].split("+")))
    return DiceAdapter(reuse=name != "off", exact=EXACT_STEPS if name == "exact" else None)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_setup(ap, "3840x2160", 850, 30)
    ap.add_argument("--variants", default="main,noA,noB,off")
    ap.add_argument("--sheet", type=float, default=None,
                    help="also print the zones whose learned empty sheets (normalised) differ between the "
                         "first variant and each other one by more than this in more than 5 %% of the zone")
    ap.add_argument("--frames", type=int, default=None, help="only the match's first N frames")
    args = ap.parse_args()
    if args.seed > 100:
        raise SystemExit("report seeds (101-105) are not for looking at frame by frame")
    cv2.setNumThreads(1)
    names = args.variants.split(",")
    ap_frames = args.frames
    sim = simulate("highway-dice", args.seed, make_setup(args.camera, args.height, args.tilt, args.light))
    adapters = {n: variant(n) for n in names}
    cpu = dict.fromkeys(names, 0.0)
    differ = dict.fromkeys(names[1:], 0)
    wrong = dict.fromkeys(names, 0)
    for n, f in enumerate(sim.frames()):
        if ap_frames is not None and n >= ap_frames:
            break
        sc = sim.scenes[f.scene]
        seen = {}
        for name, ad in adapters.items():
            t0 = time.process_time()
            if name == "noB" and ad._reader is not None:
                ad._reader._roi = lambda zones: None
            seen[name] = ad.read(f.image)
            if name == "noA":
                ad._reader._patches = []  # nothing to compare with: the next frame searches
            cpu[name] += time.process_time() - t0
        tag = f"frame {n} scene {f.scene} {sc.note!r}" + "".join(
            f" {w}" for w in ("bump", "shadow", "glare") if getattr(sc, w))
        truth = {} if sc.hand else _truth(sc.content)
        bad = {name: sorted(k for k in set(truth) | set(o.items) if k not in o.unseen
                            and _norm(o.items.get(k)) != truth.get(k)) for name, o in seen.items()}
        for name in names:
            wrong[name] += bool(truth) and bool(bad[name])
        a = seen[names[0]]
        if truth and bad[names[0]]:
            print(tag, f"{names[0]} WRONG:", {k: (a.items.get(k), truth.get(k)) for k in bad[names[0]]})
        for name in names[1:]:
            b = seen[name]
            conf = {k: (round(a.confidence[k], 3), round(b.confidence.get(k, -1.0), 3)) for k in a.confidence
                    if abs(a.confidence[k] - b.confidence.get(k, -1.0)) > 0.02}
            if conf or a.unseen != b.unseen:
                print(tag, f"confidence {names[0]}/{name}:", conf, sorted(a.unseen), sorted(b.unseen))
            if (a.items, a.blocked) != (b.items, b.blocked):
                diff = {k: (a.items.get(k), b.items.get(k)) for k in a.items.keys() | b.items.keys()
                        if a.items.get(k) != b.items.get(k)}
                differ[name] += 1
                marks = "".join(f" {v}:WRONG{bad[v]}" for v in (names[0], name) if truth and bad[v])
                print(tag, f"READING {names[0]}/{name}:", diff, a.blocked, "|", b.blocked, marks)
        fits = {name: ad._reader.registered_mm for name, ad in adapters.items() if ad._reader is not None}
        if len(set(fits.values())) > 1 or any(v is not None for v in fits.values()):
            print(tag, "re-localised, the empty sheet moved (mm; None: re-learned):",
                  {k: None if v is None else round(v, 3) for k, v in fits.items()})
            for ad in adapters.values():
                if ad._reader is not None:
                    ad._reader.registered_mm = None  # printed once
        if args.sheet is not None:
            for name in names[1:]:
                far = _sheet_apart(adapters[names[0]], adapters[name], args.sheet)
                if far:
                    print(tag, f"SHEET {names[0]}/{name}:", far)
        if f.checkpoint is not None:
            print(tag, "checkpoint", flush=True)
    print("CPU s", {k: round(v, 1) for k, v in cpu.items()})
    print("frames read otherwise than", names[0], differ, "frames wrong (still scenes)", wrong)


def _sheet_apart(a: DiceAdapter, b: DiceAdapter, step: float) -> dict[str, float]:
    """Per zone, the share of its pixels where the two adapters' learned empty sheets differ by more
    than `step` (normalised grey), where that share is over 5 %: where their states diverge."""
    ra, rb = a._reader, b._reader
    if ra is None or rb is None or not ra.zones._learned or not rb.zones._learned:
        return {}
    za, zb = ra.zones, rb.zones
    if za.reference.shape != zb.reference.shape:
        return {"(sizes)": 1.0}
    apart = np.abs(za.reference - zb.reference) > step
    out = {}
    for z in za.zones:
        x0, y0, x1, y1 = za._window(z, 3.0)
        share = float(apart[y0:y1, x0:x1].mean()) if x1 > x0 and y1 > y0 else 0.0
        if share > 0.05:
            out[z.name] = round(share, 2)
    return out


if __name__ == "__main__":
    main()
