"""`highway-referee train dice`: build the YOLO dice set, train in resumable time-boxed steps, export
ONNX with a model card. Needs the optional train extra (torch, ultralytics) in its own environment;
without it the command says what to install. The shipped reader never needs torch."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee_app.cli import CliError, CommandTree


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("--name", default="dice_die_n320", help="run name (runs/learned/NAME, NAME.onnx)")
    p.add_argument("--runs", type=Path, default=Path("runs/learned"), help="where runs and datasets go")
    p.add_argument("--real", type=Path, metavar="FOLDER",
                   help="labelled photos (realdata format) whose first --real-first photos join training")
    p.add_argument("--real-first", type=int, default=52, help="how many photos, in file-name order (52)")
    p.add_argument("--real-set", type=Path, action="append", default=[], metavar="FOLDER",
                   help="also train on this folder's training blocks (the split of datasets/dice/photo_split."
                        "series_split; pip boxes grown to whole dice); repeatable")
    p.add_argument("--renders", type=int, default=60, help="rendered scenes (a quarter go to val)")
    p.add_argument("--surfaces", type=float, default=0.0, metavar="SHARE",
                   help="share of the renders with dice on bare table tops (wood, cloth, dark, patterned)")
    p.add_argument("--small-copies", type=int, default=0, metavar="N",
                   help="per real training photo, N copies with small dice pasted in (7-14 px at the "
                        "detector's input, half beside a labelled die: datasets/yolo/small_dice.py)")
    p.add_argument("--val-fraction", type=float, default=0.25, help="share of the renders kept for val")
    p.add_argument("--seed", type=int, default=2026, help="seed of the renders and of training")
    p.add_argument("--scheme", choices=("die", "value"), default="die",
                   help="die: one class, values read per crop; value: six classes 1..6")
    p.add_argument("--model", default="yolov8n.yaml", help="architecture YAML (no weight download)")
    p.add_argument("--init", type=Path, metavar="PT", help="start from these weights (same-shape layers)")
    p.add_argument("--init-onnx", type=Path, metavar="ONNX",
                   help="start from a shipped ONNX detector (fine-tuning): its weights are put back into "
                        "the architecture, batch norms measured on the training images "
                        "(vision/learned/onnx_init.py)")
    p.add_argument("--warmup-epochs", type=float, default=None,
                   help="Ultralytics' warm-up epochs (default 3; fine-tuning: 1 or less)")
    p.add_argument("--close-mosaic", type=int, default=None,
                   help="last epochs without mosaic augmentation (Ultralytics' default 10)")
    p.add_argument("--scale", type=float, default=None,
                   help="Ultralytics' scale jitter: images resized by 1 +- SCALE (default 0.5)")
    p.add_argument("--epochs", type=int, default=60)
    p.add_argument("--imgsz", type=int, default=320)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--minutes", type=float, default=15.0, help="stop this step after the epoch past this")
    p.add_argument("--resume", action="store_true", help="continue runs/learned/NAME from last.pt")
    p.add_argument("--export", type=Path, metavar="ONNX",
                   help="after the step (finished or not), export best.pt here with a model card")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")


def _run(args: argparse.Namespace) -> int:
    from vision.learned.training import TrainExtraMissing, require_ultralytics

    config = args.runs / "yolo_config"
    try:
        require_ultralytics(config)
    except TrainExtraMissing as exc:
        raise CliError(str(exc), 3) from exc
    for name in ("epochs", "imgsz", "batch", "real_first", "small_copies"):
        if getattr(args, name) < (0 if name in ("real_first", "small_copies") else 1):
            raise CliError(f"--{name.replace('_', '-')} must be positive, got {getattr(args, name)}")
    for folder in [args.real, *args.real_set]:
        if folder is not None and not (folder / "labels.json").is_file():
            raise CliError(f"{folder}: no labels.json in this folder")
    if args.init is not None and not args.init.is_file():
        raise CliError(f"--init {args.init}: no such weight file")
    if args.init_onnx is not None and (args.init is not None or not args.init_onnx.is_file()):
        raise CliError(f"--init-onnx {args.init_onnx}: no such file (and it does not go with --init)")
    from vision.learned.card import export_with_card
    from vision.learned.training import train_step

    data_dir = args.runs / "data" / args.name
    if args.resume:  # the set the run was started on, wherever it was built
        from vision.learned.card import train_args

        data = train_args(args.runs / args.name).get("data")
        data_dir = Path(data).parent if data else data_dir
    if not args.resume:
        from datasets.yolo import DiceSetSpec, build_dice_set

        spec = DiceSetSpec(real_folder=args.real, real_first=args.real_first, renders=args.renders,
                           seed=args.seed, scheme=args.scheme, real_sets=tuple(str(f) for f in args.real_set),
                           surface_share=args.surfaces, val_fraction=args.val_fraction,
                           small_copies=args.small_copies)
        try:
            m = build_dice_set(data_dir, spec, show_progress=not args.no_progress)
        except ValueError as exc:
            raise CliError(str(exc)) from exc
        print(f"dataset {data_dir}: {m['images']} images, {m['boxes']} boxes")
    init = args.init
    if args.init_onnx is not None and not args.resume:
        init = _init_from_onnx(args.init_onnx, args.model, data_dir, args.runs / f"{args.name}_init.pt",
                               args.imgsz)
    overrides = {k: v for k, v in (("warmup_epochs", args.warmup_epochs), ("close_mosaic", args.close_mosaic),
                                   ("scale", args.scale)) if v is not None}
    try:
        step = train_step(data_dir / "data.yaml", args.runs, args.name, config, model_yaml=args.model,
                          epochs=args.epochs, imgsz=args.imgsz, batch=args.batch, minutes=args.minutes,
                          resume=args.resume, seed=args.seed, init=init, **overrides)
    except (FileNotFoundError, FileExistsError) as exc:
        raise CliError(str(exc)) from exc
    state = "finished" if step.finished else "paused (run again with --resume)"
    print(f"{step.run_dir}: {step.epochs_done}/{step.epochs_total} epochs, {state}, {step.seconds:.0f} s")
    if args.export:
        card = export_with_card(step, args.export, data_dir, config)
        print(f"exported {args.export} and {card}")
    return 0


def _init_from_onnx(onnx: Path, model_yaml: str, data_dir: Path, out: Path, imgsz: int) -> Path:
    """Rebuild the ONNX detector as a trainable checkpoint, checked against the ONNX file's output."""
    import json

    from vision.learned.onnx_init import check_against_onnx, rebuild, save_init

    names = json.loads((data_dir / "manifest.json").read_text(encoding="utf-8"))["names"]
    images = sorted((data_dir / "images" / "train").glob("*.jpg"))[::4][:64]
    if not images:
        raise CliError(f"{data_dir}: no training images to measure the batch norms on")
    try:
        model = rebuild(onnx, model_yaml, len(names), images, imgsz)
    except (KeyError, RuntimeError, ValueError) as exc:
        raise CliError(f"--init-onnx {onnx}: does not fit {model_yaml} with {len(names)} classes "
                       f"({exc})") from exc
    diff = check_against_onnx(model, onnx, images, imgsz)
    if diff > 0.05:
        raise CliError(f"--init-onnx {onnx}: the rebuilt model differs from the ONNX file (max {diff:.3g})")
    print(f"initialised from {onnx} (rebuilt output within {diff:.1e} of the ONNX file's)")
    # the model card names the ONNX file the run started from (the .pt is only its rebuilt copy)
    out.with_suffix(".json").write_text(json.dumps({"from_onnx": onnx.name, "max_abs_diff": diff}),
                                        encoding="utf-8")
    return save_init(model, out)


def register(cli: CommandTree) -> None:
    cli.group(("train",), help="train learned detectors (needs the train extra)")
    cli.add(("train", "dice"), _setup, _run,
            help="train the YOLO dice detector in resumable steps, export ONNX")
