"""`highway-referee train yolo --data DIR/data.yaml --name NAME`: train any detector on a YOLO set (from
`dataset yolo`) in resumable time-boxed steps with the offline settings of vision/learned/training.py,
then export ONNX with a model card. Needs the optional train extra (torch, ultralytics); without it
the command says what to install (exit 3)."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee_app.cli import CliError, CommandTree


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", type=Path, metavar="YAML",
                   help="data.yaml of the set (not needed with --resume)")
    p.add_argument("--name", required=True, help="run name: RUNS/NAME holds the checkpoints")
    p.add_argument("--runs", type=Path, default=Path("runs/learned"), help="runs folder (runs/learned)")
    p.add_argument("--model", help="architecture YAML, no weight download (default: yolov8n.yaml, or "
                   "yolov8n-pose.yaml when data.yaml has kpt_shape)")
    p.add_argument("--init", type=Path, metavar="PT", help="start from these weights (same-shape layers)")
    p.add_argument("--epochs", type=int, default=60)
    p.add_argument("--imgsz", type=int, default=320)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--seed", type=int, default=0, help="training seed")
    p.add_argument("--minutes", type=float, default=15.0, help="stop this step after the epoch past this")
    p.add_argument("--resume", action="store_true", help="continue RUNS/NAME from its last.pt")
    p.add_argument("--export", type=Path, metavar="ONNX",
                   help="after the step (finished or not), export the best weights here with a model card")


def _check(args: argparse.Namespace) -> Path | None:
    """Validate the arguments before anything heavy is imported; returns the data.yaml when known."""
    for name in ("epochs", "imgsz", "batch"):
        if getattr(args, name) < 1:
            raise CliError(f"--{name} must be at least 1, got {getattr(args, name)}")
    if args.imgsz % 32:
        raise CliError(f"--imgsz must be a multiple of 32 (the model's largest stride), got {args.imgsz}")
    if args.minutes <= 0:
        raise CliError(f"--minutes must be positive, got {args.minutes}")
    if args.init is not None and not args.init.is_file():
        raise CliError(f"--init {args.init}: no such weight file")
    if args.export is not None and args.export.suffix != ".onnx":
        raise CliError(f"--export {args.export}: name the file NAME.onnx")
    if args.resume:
        return args.data
    if args.data is None:
        raise CliError("--data DIR/data.yaml is required (build one with `highway-referee dataset yolo`)")
    if not args.data.is_file():
        raise CliError(f"--data {args.data}: no such file (build one with `highway-referee dataset yolo`)")
    from datasets.yolo.model_card import read_data_yaml

    data = read_data_yaml(args.data)
    if not data["names"]:
        raise CliError(f"--data {args.data}: no class names found "
                       "(expected `names:` followed by `  0: 'name'` lines)")
    pose = data["kpt_shape"] is not None
    args.model = args.model or ("yolov8n-pose.yaml" if pose else "yolov8n.yaml")
    if pose != ("pose" in Path(args.model).name):
        raise CliError(f"--model {args.model} does not match {args.data}: the set is "
                       f"{'a pose set (kpt_shape)' if pose else 'a detection set'}; use a "
                       f"{'-pose' if pose else 'detection'} architecture")
    return args.data


def _run(args: argparse.Namespace) -> int:
    from vision.learned.training import TrainExtraMissing, require_ultralytics

    data_yaml = _check(args)
    config = args.runs / "yolo_config"
    try:
        require_ultralytics(config)
    except TrainExtraMissing as exc:
        raise CliError(str(exc), 3) from exc
    from datasets.yolo.model_card import write_card
    from vision.learned.card import architecture, train_args
    from vision.learned.training import export_onnx, train_step

    run_dir = args.runs / args.name
    if args.resume:  # the set and settings the run was started with
        if not (run_dir / "args.yaml").is_file():
            raise CliError(f"--resume: {run_dir} holds no run (no args.yaml); train without --resume first")
        started = train_args(run_dir)
        data_yaml = Path(started.get("data", "")) if started.get("data") else data_yaml
    try:
        step = train_step(data_yaml or Path("data.yaml"), args.runs, args.name, config,
                          model_yaml=args.model or "yolov8n.yaml", epochs=args.epochs, imgsz=args.imgsz,
                          batch=args.batch, minutes=args.minutes, resume=args.resume, seed=args.seed,
                          init=args.init)
    except (FileNotFoundError, FileExistsError) as exc:
        raise CliError(str(exc)) from exc
    state = "finished" if step.finished else "paused (run again with --resume)"
    print(f"{step.run_dir}: {step.epochs_done}/{step.epochs_total} epochs, {state}, {step.seconds:.0f} s")
    if args.export:
        used = train_args(step.run_dir)
        imgsz = int(used.get("imgsz", args.imgsz))
        model = str(used.get("model", args.model))
        if model.endswith(".pt"):  # a resumed run names its checkpoint; the card names the architecture
            model = architecture(step.last)
        weights = step.best if step.best.exists() else step.last
        export_onnx(weights, args.export, imgsz, config)
        card = write_card(args.export, data_yaml or Path(str(used.get("data"))), step.run_dir,
                          (step.epochs_done, step.epochs_total), model, imgsz)
        print(f"exported {args.export} and {card}")
    return 0


def register(cli: CommandTree) -> None:
    cli.group(("train",), help="train learned detectors (needs the train extra)")
    cli.add(("train", "yolo"), _setup, _run,
            help="train a detector on a `dataset yolo` set in resumable steps, export ONNX with a card")
