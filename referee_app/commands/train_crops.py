"""`highway-referee train dice-crops`: build the die crop set from the box detector's proposals (real
photos' first block + renders), train the small crop network (torch, the train extra), export ONNX with
a model card (JSON sidecar + Markdown) that records which photos it trained on, so `eval dice` and
`compare dice` leave those out."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from referee_app.cli import CliError, CommandTree


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("--real", type=Path, metavar="FOLDER", help="labelled photos (realdata format)")
    p.add_argument("--real-first", type=int, default=52, help="how many photos, in file-name order (52)")
    p.add_argument("--real-fold", choices=("even", "odd"), default=None,
                   help="also train on every other block of the later photos (blocks 0, 2, .. or 1, 3, ..): "
                        "two models on the two folds let `eval dice --crop-model A --crop-model B` score "
                        "every later photo with the model that did not see it")
    p.add_argument("--real-block", type=int, default=4,
                   help="consecutive photos per block for --real-fold (4)")
    p.add_argument("--real-set", type=Path, action="append", default=[], metavar="FOLDER",
                   help="also train on this folder's training blocks (datasets/dice/photo_split."
                        "series_split; pip boxes grown to whole dice); repeatable")
    p.add_argument("--renders", type=int, default=400, help="rendered scenes to harvest crops from (400)")
    p.add_argument("--surfaces", type=float, default=0.0, metavar="SHARE",
                   help="share of the renders with dice on bare table tops (wood, cloth, dark, patterned)")
    p.add_argument("--synthetic", type=int, default=4000,
                   help="generated single-die crops added (many colours, smoky dice; default 4000)")
    p.add_argument("--deep-smoky", action="store_true",
                   help="generated smoky dice also show two side faces' pips, blurred, through the body")
    p.add_argument("--seed", type=int, default=101, help="seed of the renders and of training")
    p.add_argument("--epochs", type=int, default=24)
    p.add_argument("--arch", default="c32",
                   help="network: c32 (default), c32s (lighter), c48 (c32's layers on 48 px crops)")
    p.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    p.add_argument("--init-onnx", type=Path, metavar="ONNX",
                   help="start from this exported crop network (same --arch): fine-tuning")
    p.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (default 3e-3)")
    p.add_argument("--minutes", type=float, default=None,
                   help="fit the training into about this many minutes: fewer steps, the same schedule")
    p.add_argument("--augment", choices=("base", "strong"), default="base",
                   help="training augmentation: base, or strong (wider scale/colour/blur ranges, "
                        "low-resolution copies, specks, dice moved onto other crops' surroundings)")
    p.add_argument("--top-face-copies", type=int, default=0, metavar="N",
                   help="per real die seen from low (whole-die box taller than wide), N crops framed as the "
                        "reader reads a grown die: the square at the top of the box (default 0)")
    p.add_argument("--leave-out", action="append", default=[], metavar="PATTERN",
                   help="real photos (file-name pattern, e.g. 'dice_37[2-8].jpg') kept out of the crop set: "
                        "a validation block carved out of the training blocks; repeatable")
    p.add_argument("--hard-weight", type=float, default=1.0, metavar="W",
                   help="sample the top-face copies W times as often as other real crops (default 1)")
    p.add_argument("--oblique", type=float, default=0.0, metavar="SHARE",
                   help="share of training crops foreshortened (squashed 0.6-1 along a random direction "
                        "and sheared), as a die seen from low; default 0")
    p.add_argument("--data", type=Path, help="reuse this crop set (.npz) instead of building one")
    p.add_argument("--out", type=Path, default=Path("vision/learned/models/dice_crops.onnx"),
                   help="ONNX file to write; NAME.json and NAME.md beside it are the model card")
    p.add_argument("--evaluate", type=Path, action="append", default=[], metavar="FOLDER",
                   help="after training, score the crops reader on FOLDER's photos it did not train on and "
                        "put the numbers on the card (repeatable)")


def _run(args: argparse.Namespace) -> int:
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        raise CliError("training needs the train extra (torch): pip install -e '.[train]' in its own "
                       "environment (see docs/models.md)", 3)
    if args.minutes is not None and args.minutes <= 0:
        raise CliError("--minutes must be positive")
    if args.init_onnx is not None and not args.init_onnx.is_file():
        raise CliError(f"--init-onnx {args.init_onnx}: no such file")
    if args.lr <= 0:
        raise CliError("--lr must be positive")
    if args.epochs < 1 or min(args.renders, args.real_first, args.synthetic) < 0:
        raise CliError("--epochs must be positive, --renders, --synthetic and --real-first not negative")
    for folder in [args.real, *args.real_set]:
        if folder is not None and not (folder / "labels.json").is_file():
            raise CliError(f"{folder}: no labels.json in this folder")
    if not 0.0 <= args.surfaces <= 1.0:
        raise CliError("--surfaces must be between 0 and 1")
    if args.real_block < 1:
        raise CliError("--real-block must be positive")
    if args.top_face_copies < 0 or args.hard_weight <= 0 or not 0.0 <= args.oblique <= 1.0:
        raise CliError("--top-face-copies must not be negative, --hard-weight positive, --oblique 0..1")
    if args.real_fold and args.real is None:
        raise CliError("--real-fold needs --real")
    from datasets.dice.crop_training import ARCHS, input_size, train_crops
    from datasets.dice.crops import build
    from datasets.dice.photo_split import training_photos
    from vision.learned.reader import DEFAULT_MODEL
    from vision.realdata import load_labels

    if args.arch not in ARCHS:
        raise CliError(f"--arch must be one of {', '.join(ARCHS)}")
    data = args.data or args.out.with_suffix(".crops.npz")
    if args.data is None:
        photos = None
        if args.real_fold:
            names = [it.image for it in load_labels(args.real).items]
            photos = training_photos(names, args.real_first, args.real_block, args.real_fold)
        meta = build(data, args.real, args.real_first, args.renders, args.seed, DEFAULT_MODEL,
                     synthetic=args.synthetic, photos=photos, deep_smoky=args.deep_smoky,
                     real_sets=args.real_set, surface_share=args.surfaces,
                     top_face_copies=args.top_face_copies, leave_out=args.leave_out)
        if not meta["counts"] or sum(meta["counts"].values()) == 0:
            raise CliError("the crop set is empty: give --real, --renders or --synthetic")
    else:
        import numpy as np

        try:
            meta = json.loads(str(np.load(data)["meta"]))
        except (OSError, KeyError, ValueError) as exc:
            raise CliError(f"--data {data}: not a crop set ({exc})") from exc
    print(f"crop set {data}: {meta['counts']}")
    # exported at every epoch's end: a run cut short still leaves a model (without a card)
    checkpoint = args.out.with_suffix(".last.onnx")
    result = train_crops(data, args.out, epochs=args.epochs, seed=args.seed, threads=args.threads,
                         arch=args.arch, checkpoint=checkpoint, minutes=args.minutes, init=args.init_onnx,
                         lr=args.lr, strength=args.augment, hard_weight=args.hard_weight,
                         oblique=args.oblique)
    checkpoint.unlink(missing_ok=True)
    by_set = meta.get("real_photos_by_set") or {}
    several = len(by_set) > 1 or bool(meta.get("real_sets"))
    single = Path(meta["real"]).name if meta.get("real") else None
    card = {"trained_on": sorted(by_set) if several else single,
            "train_photos": by_set if several else meta["real_photos"],
            "real_first": args.real_first, "real_fold": args.real_fold,
            "real_block": args.real_block if args.real_fold else None,
            "renders": meta["renders"], "seed": meta["seed"],
            "synthetic": meta.get("synthetic", 0), "deep_smoky": bool(meta.get("deep_smoky", False)),
            "surface_share": meta.get("surface_share", 0.0),
            "arch": args.arch, "input": input_size(args.arch),
            "init": args.init_onnx.name if args.init_onnx else None, "lr": args.lr, "minutes": args.minutes,
            "augment": args.augment, "top_face_copies": meta.get("top_face_copies", 0),
            "leave_out": meta.get("leave_out", []), "hard_weight": args.hard_weight, "oblique": args.oblique,
            "classes": ["not a die", "1", "2", "3", "4", "5", "6"],
            "epochs": result.epochs, "train_seconds": round(result.seconds), "crops": meta["counts"],
            "proposals_from": meta["detector"], "proposal_conf": meta["conf"]}
    if args.init_onnx is not None:
        _inherit_photos(card, args.init_onnx)
    if args.evaluate:
        from vision.learned.card_photos import photos_by_set

        trained = photos_by_set(card)
        held = [_held_out(args.out, f, trained.get(f.resolve().name, set())) for f in args.evaluate]
        card["held_out"] = held[0] if len(held) == 1 else held
    args.out.with_suffix(".json").write_text(json.dumps(card, indent=1), encoding="utf-8")
    args.out.with_suffix(".md").write_text(_markdown(args.out.name, card), encoding="utf-8")
    print(f"wrote {args.out} and its card ({result.seconds:.0f} s of training)")
    return 0


def _inherit_photos(card: dict, init: Path) -> None:
    """A fine-tuned network has also seen what the network it starts from trained on: where that one's
    card (beside --init-onnx) names photos this run left out (a validation block, `--leave-out`), they
    join `train_photos` (listed apart as `photos_seen_by_init`), so `eval dice` and the benches that read
    cards never score a photo the network has seen."""
    from vision.learned.card_photos import photos_by_set

    try:
        parent = photos_by_set(json.loads(init.with_suffix(".json").read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return
    own = photos_by_set(card)
    extra = {k: sorted(v - own.get(k, set())) for k, v in parent.items() if v - own.get(k, set())}
    if not extra:
        return
    names = sorted(set(own) | set(parent))
    card["trained_on"] = names
    card["train_photos"] = {k: sorted(own.get(k, set()) | parent.get(k, set())) for k in names}
    card["photos_seen_by_init"] = extra


def _held_out(model: Path, folder: Path, trained: set[str]) -> dict:
    from vision.dice.evaluate import evaluate, load
    from vision.learned.reader import LearnedDiceReader

    reader = LearnedDiceReader(mode="crops", crop_model=model)
    r = evaluate(load(folder), reader.read, True, trained, None)
    return {"folder": folder.name, **{k: r[k] for k in ("n_images", "n_labelled", "n_detected", "recall",
                                                         "precision", "value_accuracy", "end_to_end")}}


def _markdown(name: str, card: dict) -> str:
    lines = [f"# Model card: {name}", "",
             f"- What: the die crop reader (class 0 'not a die', 1..6 the value) on {card['input']} px crops "
             f"of the box detector's proposals; architecture {card['arch']}, "
             + (f"fine-tuned here with torch from {card['init']} (its weights put back, "
                "datasets/dice/crop_training.load_onnx_weights)." if card.get("init")
                else "trained here from scratch with torch."),
             f"- Data: crops {card['crops']} from proposals of {card['proposals_from']} (confidence >= "
             f"{card['proposal_conf']}) and jittered labelled boxes, on "
             + _photos_line(card)
             + f"{card['renders']} renders (seed {card['seed']}), plus {card['synthetic']} generated "
             "single-die crops.",
             f"- Training: {card['epochs']} epochs, {card['train_seconds']} s on CPU"
             + (f", {card['augment']} augmentation." if card.get("augment", "base") != "base" else ".")]
    helds = card.get("held_out", [])
    for h in helds if isinstance(helds, list) else [helds]:
        lines.append(f"- Held-out real photos ({h['folder']}, {h['n_images']} photos, {h['n_labelled']} "
                     "dice, "
                     f"none trained on), reader mode crops: recall {h['recall']:.1%}, precision "
                     f"{h['precision']:.1%} (as eval dice counts it), value accuracy "
                     f"{h['value_accuracy']:.1%}, end to end {h['end_to_end']:.1%}.")
    several = isinstance(card["train_photos"], dict)
    lines += ["", "Rebuild: `highway-referee train dice-crops --real ../shared/realdata/nell_byler_d6 "
              + ("--real-set ../shared/realdata/epanemu_d6 --real-set ../shared/realdata/matteop65_d6 "
                 if several else "")
              + (f"--surfaces {card['surface_share']} " if card.get("surface_share") else "")
              + (f"--init-onnx PREVIOUS/{card['init']} --lr {card['lr']} " if card.get("init") else "")
              + (f"--minutes {card['minutes']} " if card.get("minutes") else "")
              + (f"--augment {card['augment']} " if card.get("augment", "base") != "base" else "")
              + (f"--top-face-copies {card['top_face_copies']} " if card.get("top_face_copies") else "")
              + "".join(f"--leave-out '{pat}' " for pat in card.get("leave_out", []))
              + (f"--hard-weight {card['hard_weight']} " if card.get("hard_weight", 1.0) != 1.0 else "")
              + (f"--oblique {card['oblique']} " if card.get("oblique") else "")
              + f"--arch {card['arch']} --epochs {card['epochs']} --synthetic {card['synthetic']} "
              f"--renders {card['renders']} --seed {card['seed']} "
              + (f"--real-fold {card['real_fold']} --real-block {card['real_block']} "
                 if card.get("real_fold") else "")
              + ("--deep-smoky " if card.get("deep_smoky") else "")
              + f"--out vision/learned/models/{name} "
              + "--evaluate ../shared/realdata/nell_byler_d6"
              + (" --evaluate ../shared/realdata/epanemu_d6 --evaluate ../shared/realdata/matteop65_d6"
                 if several else "")
              + "` (train extra; see docs/models.md)."]
    return "\n".join(lines) + "\n"


def _photos_line(card: dict) -> str:
    photos = card["train_photos"]
    if isinstance(photos, dict):
        parts = ", ".join(f"{len(v)} of {k}" for k, v in sorted(photos.items()))
        return (f"{sum(len(v) for v in photos.values())} real photos ({parts}: the training blocks of "
                "datasets/dice/photo_split.series_split) and ")
    if photos:
        return f"{len(photos)} real photos of {card['trained_on']} ({_which(card)}) and "
    return "no real photos, "


def _which(card: dict) -> str:
    first = card.get("real_first", len(card["train_photos"]))
    if not card.get("real_fold"):
        return "the first in file-name order"
    return (f"the first {first} in file-name order and the {card['real_fold']} blocks of "
            f"{card['real_block']} consecutive photos among the rest")


def register(cli: CommandTree) -> None:
    cli.add(("train", "dice-crops"), _setup, _run,
            help="train the die crop reader (not a die / value 1..6) on detector proposals, export ONNX")
