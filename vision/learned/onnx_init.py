"""Start a YOLO training run from a shipped ONNX detector (the `train` extra; torch and Ultralytics).

The shipped detectors exist only as ONNX files, whose export folded every batch norm into its
convolution. To fine-tune one (a few epochs on new photos instead of a run from scratch, which a CPU
cannot afford), its weights go back into the same architecture: each folded convolution's weight and
bias are loaded, and each batch norm is set so that it passes the convolution's output through
unchanged: its running mean and variance are measured on training images (per channel, the
convolution's output before the bias), and its scale and shift undo exactly that normalisation. The
rebuilt model computes what the ONNX file does (checked by `check_against_onnx`), and in training mode,
where batch norm uses each batch's own statistics, very nearly so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np


def _images(paths: list[Path], imgsz: int) -> np.ndarray:
    """Letterboxed RGB batch (N, 3, imgsz, imgsz), 0..1, as the reader feeds the detector."""
    from vision.learned.yolo import letterbox

    out = []
    for p in paths:
        img = cv2.imread(str(p))
        if img is None:
            continue
        boxed = letterbox(img, imgsz)[0]
        out.append(boxed[..., ::-1].transpose(2, 0, 1).astype(np.float32) / 255.0)
    return np.stack(out)


def rebuild(onnx_path: Path, model_yaml: str, nc: int, images: list[Path], imgsz: int = 320) -> Any:
    """An Ultralytics DetectionModel (unfused, trainable) carrying the ONNX file's weights."""
    import onnx
    import torch
    from onnx import numpy_helper
    from ultralytics.nn.modules.conv import Conv
    from ultralytics.nn.tasks import DetectionModel

    weights = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy())
               for i in onnx.load(str(onnx_path)).graph.initializer}
    model = DetectionModel(model_yaml, nc=nc, verbose=False)
    convs = {name: m for name, m in model.named_modules() if isinstance(m, Conv)}
    biases: dict[str, torch.Tensor] = {}
    with torch.no_grad():
        for name, m in convs.items():
            m.conv.weight.copy_(weights[f"{name}.conv.weight"])
            biases[name] = weights[f"{name}.conv.bias"]
        state = model.state_dict()
        for key, value in weights.items():  # the head's plain convolutions (not folded) and the DFL
            if key in state and key.rsplit(".", 1)[0] not in {f"{n}.conv" for n in convs}:
                state[key].copy_(value)
    # measure each convolution's output (before its bias) on the images, in the folded model's flow
    stats: dict[str, tuple[torch.Tensor, torch.Tensor]] = {}
    hooks = []
    for name, m in convs.items():
        def hook(mod: Any, inp: Any, out: torch.Tensor, name: str = name) -> None:
            stats[name] = (out.mean(dim=(0, 2, 3)), out.var(dim=(0, 2, 3)))
        hooks.append(m.conv.register_forward_hook(hook))
        m.bn.eps = 0.0  # pass-through while measuring: z + bias
        m.bn.running_mean.zero_()
        m.bn.running_var.fill_(1.0)
        m.bn.weight.data.fill_(1.0)
        m.bn.bias.data.copy_(biases[name])
    model.eval()
    with torch.no_grad():
        model(torch.from_numpy(_images(images, imgsz)))
    for h in hooks:
        h.remove()
    with torch.no_grad():
        for name, m in convs.items():
            mean, var = stats[name]
            m.bn.eps = 1e-3
            m.bn.running_mean.copy_(mean)
            m.bn.running_var.copy_(var)
            m.bn.weight.copy_(torch.sqrt(var + m.bn.eps))
            m.bn.bias.copy_(mean + biases[name])
    return model


def check_against_onnx(model: Any, onnx_path: Path, images: list[Path], imgsz: int = 320) -> float:
    """Largest absolute difference between the rebuilt model's raw output and the ONNX file's."""
    import onnxruntime as ort
    import torch

    batch = _images(images[:2], imgsz)
    model.eval()
    with torch.no_grad():
        ours = model(torch.from_numpy(batch))
    ours = (ours[0] if isinstance(ours, (list, tuple)) else ours).numpy()
    sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    theirs = np.concatenate([sess.run(None, {sess.get_inputs()[0].name: batch[i:i + 1]})[0]
                             for i in range(len(batch))])
    return float(np.abs(ours - theirs).max())


def save_init(model: Any, out: Path) -> Path:
    """A checkpoint Ultralytics' `pretrained=` reads (the trainer copies the same-shape layers)."""
    import torch

    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model.float(), "train_args": {}, "epoch": -1}, str(out))
    return out
