"""Training and export with Ultralytics (the optional `train` extra; nothing at run time needs it).

Offline by construction: YOLO_OFFLINE/YOLO_AUTOINSTALL are set, settings live in a project-local
YOLO_CONFIG_DIR holding a TTF named Arial.ttf (copied from the system's fonts at run time, else every
train/val call tries to download that font), plots and AMP are off, and models start from a
architecture YAML, never from a weight file name that is not on disk.

Training runs in time-boxed steps: after each epoch's checkpoint is written, a step that has used its
minutes stops by raising StepTimeUp, which leaves last.pt resumable (a normal finish would strip
the optimizer from it). `train_step(..., resume=True)` continues from last.pt (and does nothing on a
finished run, so a finished run can still be exported).
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TRAIN_PIP = ("pip install torch==2.14.1 torchvision==0.29.1 ultralytics-opencv-headless onnx onnxslim "
             "onnxruntime")
FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"), Path.home() / ".fonts",
             Path("/Library/Fonts"), Path("C:/Windows/Fonts"))


class TrainExtraMissing(RuntimeError):
    """The training stack (torch, ultralytics) is not installed in this environment."""


class StepTimeUp(Exception):
    """Raised from an epoch-end callback to end a time-boxed step with a resumable checkpoint."""


@dataclass
class StepResult:
    run_dir: Path
    epochs_done: int
    epochs_total: int
    finished: bool
    seconds: float

    @property
    def last(self) -> Path:
        return self.run_dir / "weights" / "last.pt"

    @property
    def best(self) -> Path:
        return self.run_dir / "weights" / "best.pt"


def find_ttf() -> Path | None:
    for root in FONT_DIRS:
        if root.is_dir():
            for p in sorted(root.rglob("*.ttf")):
                return p
    return None


def offline_environment(config_dir: Path) -> None:
    """Set Ultralytics' offline switches; must run before ultralytics is imported."""
    config_dir.mkdir(parents=True, exist_ok=True)
    font = config_dir / "Arial.ttf"
    if not font.exists():
        ttf = find_ttf()
        if ttf is None:
            raise TrainExtraMissing(f"no .ttf font found on this system to place as {font} "
                                    "(Ultralytics would try to download one)")
        shutil.copyfile(ttf, font)
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "0"
    os.environ["YOLO_CONFIG_DIR"] = str(config_dir)
    os.environ.setdefault("YOLO_VERBOSE", "False")


def require_ultralytics(config_dir: Path) -> Any:
    offline_environment(config_dir)
    try:
        import ultralytics  # noqa: F401
        from ultralytics import YOLO
    except ImportError as exc:
        raise TrainExtraMissing(f"training needs the train extra ({exc.name} is missing); install it into a "
                                f"separate environment: {TRAIN_PIP}") from None
    return YOLO


def train_step(data_yaml: Path, project: Path, name: str, config_dir: Path, model_yaml: str = "yolov8n.yaml",
               epochs: int = 60, imgsz: int = 320, batch: int = 16, minutes: float = 15.0,
               resume: bool = False, workers: int = 0, seed: int = 0, init: Path | None = None,
               **overrides: Any) -> StepResult:
    """Train (or resume) for at most `minutes` of wall time, stopping only at an epoch boundary."""
    YOLO = require_ultralytics(config_dir)
    run_dir = project / name
    last = run_dir / "weights" / "last.pt"
    start = time.perf_counter()

    def on_epoch_end(trainer: Any) -> None:
        done = trainer.epoch + 1
        if done < trainer.epochs and time.perf_counter() - start > minutes * 60:
            raise StepTimeUp(done)

    if resume:
        if not last.exists():
            raise FileNotFoundError(f"nothing to resume: {last} does not exist "
                                    "(train without --resume first)")
        done, total = checkpoint_progress(last)
        if done >= total:  # a finished run: nothing to train, the caller may still export it
            return StepResult(run_dir, done, total, True, 0.0)
        model = YOLO(str(last))
        kwargs: dict[str, Any] = {"resume": True}
    else:
        if run_dir.exists():
            raise FileExistsError(f"{run_dir} already exists: pass --resume to continue it, "
                                  "or another --name")
        model = YOLO(model_yaml)
        kwargs = dict(data=str(data_yaml), epochs=epochs, imgsz=imgsz, batch=batch, workers=workers,
                      project=str(project.resolve()), name=name, exist_ok=False, seed=seed,
                      deterministic=True, plots=False, amp=False, device="cpu",
                      # weights to start from (another set or class count): the trainer copies the
                      # layers whose shapes match; False builds from the YAML alone
                      pretrained=str(init) if init is not None else False,
                      verbose=False, **overrides)
    model.add_callback("on_fit_epoch_end", on_epoch_end)
    finished = True
    try:
        model.train(**kwargs)
    except StepTimeUp:
        finished = False
    epochs_done, epochs_total = checkpoint_progress(last)
    return StepResult(run_dir, epochs_done, epochs_total, finished, time.perf_counter() - start)


def checkpoint_progress(last: Path) -> tuple[int, int]:
    """(epochs done, epochs planned) from a checkpoint; a finished, stripped one reports epoch -1."""
    import torch

    ck = torch.load(str(last), map_location="cpu", weights_only=False)
    total = int(ck.get("train_args", {}).get("epochs", 0))
    ep = int(ck.get("epoch", -1))
    return (total if ep < 0 else ep + 1), total


def export_onnx(weights: Path, out: Path, imgsz: int, config_dir: Path) -> Path:
    """Export to ONNX (fixed input size, no NMS in the graph) and copy it to `out`."""
    YOLO = require_ultralytics(config_dir)
    made = Path(YOLO(str(weights)).export(format="onnx", imgsz=imgsz, simplify=True, dynamic=False,
                                          opset=17, verbose=False))
    out.parent.mkdir(parents=True, exist_ok=True)
    if made.resolve() != out.resolve():
        shutil.copyfile(made, out)
    return out
