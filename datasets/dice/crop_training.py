"""Training of the die crop reader (torch; the `train` extra). Run time needs only the exported ONNX file.

The network sees a square crop (32 or 48 px) around a proposed box and says "not a die" or the value
1..6, plus where the die really is (box re-framing). It is tiny on purpose (about 0.1 M parameters,
~10-25 M multiply-adds per crop) so dozens of proposals per frame, the likely dice in a few turned
copies, still leave a 1280x720 frame at camera rate on one core.

Augmentation is done on whole batches with affine_grid/grid_sample (one call turns, rescales, shifts
and mirrors every patch), plus colour changes: channel permutation and hue-free gain, because dice
come in every colour and the value never depends on it, and blur/noise/gamma for cheap cameras.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

INPUT = 32
KEEP = 1.25  # the input covers this many box sides (box_patch context at run time)
# 7 class scores ("not a die", 1..6), then the die's centre x, y and side in the crop's own
# coordinates (-1..1 across the crop), which re-frames a proposal that cut a die badly
OUTPUTS = 10


ARCHS = ("c32", "c32s", "c48")  # c48: c32's layers on 48 px crops (small dice keep their pips)


def build_net(arch: str = "c32s") -> Any:
    import torch
    from torch import nn

    def block(cin: int, cout: int) -> list[Any]:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    if arch not in ARCHS:
        raise ValueError(f"arch must be one of {ARCHS}, got {arch!r}")
    if arch in ("c32", "c48"):  # two convolutions per scale: ~10 M multiply-adds per crop
        layers = [*block(3, 16), *block(16, 16), nn.MaxPool2d(2), *block(16, 32), *block(32, 32),
                  nn.MaxPool2d(2), *block(32, 64), *block(64, 64), nn.MaxPool2d(2), *block(64, 96)]
    else:  # "c32s": one per scale, ~3 M multiply-adds: the run-time default
        layers = [*block(3, 24), nn.MaxPool2d(2), *block(24, 32), nn.MaxPool2d(2), *block(32, 64),
                  nn.MaxPool2d(2), *block(64, 96)]

    class CropNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                                      nn.Dropout(0.2), nn.Linear(96, OUTPUTS))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            # raw 0..255 BGR in, so the run time feeds pixels as they are
            return self.body(x / 127.5 - 1.0)

    return CropNet()


def input_size(arch: str) -> int:
    return 48 if arch == "c48" else INPUT


AUGMENTS = ("base", "strong")


def augment(batch: Any, gen: Any, train: bool, target: Any = None, size: int = INPUT,
            strength: str = "base", oblique: float = 0.0) -> Any:
    """(B, 3, P, P) float patches (box = P / 1.6 px) -> (B, 3, size, size) crops covering KEEP boxes;
    with `target` (B, 3: die centre and side in patch coordinates) also the target in crop coordinates.
    `strength` "strong": wider scale, colour and blur ranges, low-resolution copies, salt-and-pepper
    specks and other crops' surroundings around framed dice (see `_strong_extra`). `oblique`: the share
    of crops foreshortened as a die seen from low (`_foreshorten`); 0 leaves the draws as they were."""
    import torch
    import torch.nn.functional as F

    from datasets.dice.crops import CONTEXT

    B = batch.shape[0]
    base = KEEP / CONTEXT
    if not train:
        theta = torch.zeros(B, 2, 3)
        theta[:, 0, 0] = theta[:, 1, 1] = base
        grid = F.affine_grid(theta, (B, 3, size, size), align_corners=False)
        x = F.grid_sample(batch, grid, mode="bilinear", padding_mode="border", align_corners=False)
        return x if target is None else (x, crop_target(theta, target))
    strong = strength == "strong"
    if strong:
        batch = _swap_surroundings(batch, gen, target)
    ang = torch.rand(B, generator=gen) * 2 * math.pi
    scale = base * torch.exp((torch.rand(B, generator=gen) - 0.5) * (0.6 if strong else 0.35))
    flip = torch.where(torch.rand(B, generator=gen) < 0.5, -1.0, 1.0)
    shift = (torch.rand(B, 2, generator=gen) - 0.5) * 0.16
    cos, sin = torch.cos(ang) * scale, torch.sin(ang) * scale
    theta = torch.stack([torch.stack([cos * flip, -sin, shift[:, 0]], 1),
                         torch.stack([sin * flip, cos, shift[:, 1]], 1)], 1)
    if oblique > 0:
        theta = _foreshorten(theta, gen, oblique)
    grid = F.affine_grid(theta, (B, 3, size, size), align_corners=False)
    x = F.grid_sample(batch, grid, mode="bilinear", padding_mode="border", align_corners=False)
    # colour: channel order, per-channel gain, brightness/contrast, gamma, sometimes grey
    perm = torch.stack([torch.randperm(3, generator=gen) for _ in range(B)])
    x = torch.gather(x, 1, perm[:, :, None, None].expand(-1, -1, size, size))
    x = x * (1 + (torch.rand(B, 3, 1, 1, generator=gen) - 0.5) * (0.5 if strong else 0.3))
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    contrast = (torch.rand(B, 1, 1, 1, generator=gen) - 0.5) * (1.1 if strong else 0.8)
    x = (x - mean) * torch.exp(contrast) + mean
    x = x + (torch.rand(B, 1, 1, 1, generator=gen) - 0.5) * (120 if strong else 80)
    x = x.clamp(0, 255)
    x = 255 * (x / 255) ** torch.exp((torch.rand(B, 1, 1, 1, generator=gen) - 0.5) * 0.6)
    grey = torch.rand(B, generator=gen) < 0.15
    x[grey] = x[grey].mean(dim=1, keepdim=True).expand(-1, 3, -1, -1)
    blur = torch.rand(B, generator=gen) < 0.25
    if blur.any():
        k = torch.tensor([1.0, 2.0, 1.0])
        k = (k[:, None] * k[None, :] / 16).expand(3, 1, 3, 3)
        x[blur] = F.conv2d(F.pad(x[blur], (1, 1, 1, 1), mode="replicate"), k, groups=3)
    if strong:
        x = _strong_extra(x, gen)
    x = x + torch.randn(x.shape, generator=gen) * torch.rand(B, 1, 1, 1, generator=gen) * 8
    x = x.clamp(0, 255)
    return x if target is None else (x, crop_target(theta, target))


def _foreshorten(theta: Any, gen: Any, share: float) -> Any:
    """In `share` of the crops, the die seen from low: the patch squashed to 0.6-1 of its size along a
    random direction and sheared by up to 0.25 (an affine stand-in for the perspective of an oblique
    view, which shortens the top face toward the camera and slants the side edges). Applied to the
    sampling grid, so a squash shows the die *shortened* in the crop."""
    import torch

    B = theta.shape[0]
    pick = torch.rand(B, generator=gen) < share
    squash = 0.6 + 0.4 * torch.rand(B, generator=gen)
    shear = (torch.rand(B, generator=gen) - 0.5) * 0.5
    phi = torch.rand(B, generator=gen) * math.pi
    c, s = torch.cos(phi), torch.sin(phi)
    rot = torch.stack([torch.stack([c, -s], 1), torch.stack([s, c], 1)], 1)
    # crop point o samples patch point A o: a stretch of 1/squash in A shortens the die by squash
    k = torch.zeros(B, 2, 2)
    k[:, 0, 0] = 1.0
    k[:, 0, 1] = shear
    k[:, 1, 1] = 1.0 / squash
    a = rot @ k @ rot.transpose(1, 2)
    eye = torch.eye(2).expand(B, 2, 2)
    a = torch.where(pick[:, None, None], a, eye)
    out = theta.clone()
    out[:, :, :2] = theta[:, :, :2] @ a
    return out


def _swap_surroundings(batch: Any, gen: Any, target: Any) -> Any:
    """A third of the framed dice (those with a box target) get another crop's pixels outside their own
    box (a soft edge): the same die on another table, tray or print. Patches without a target (not a
    die, or a grown box whose framing is a guess) are left as they are."""
    import torch

    if target is None:
        return batch
    B, _, P, _ = batch.shape
    pick = ~torch.isnan(target[:, 0]) & (torch.rand(B, generator=gen) < 0.33)
    if not pick.any():
        return batch
    lin = (torch.arange(P, dtype=torch.float32) + 0.5) / P * 2 - 1  # patch coordinates, -1..1
    t = target[pick]
    half = t[:, 2:3] / 2 * 1.1  # a little margin: the die's edge and shadow stay its own
    dx = (lin[None, :] - t[:, 0:1]).abs() - half  # (n, P) distance outside the box along x
    dy = (lin[None, :] - t[:, 1:2]).abs() - half
    out = torch.maximum(dx[:, None, :], dy[:, :, None]).clamp(min=0)  # (n, P, P)
    keep = torch.exp(-(out / 0.08) ** 2)[:, None]  # 1 on the die, fading to 0 outside
    other = batch[torch.randint(0, B, (int(pick.sum()),), generator=gen)]
    batch = batch.clone()
    batch[pick] = batch[pick] * keep + other * (1 - keep)
    return batch


def _strong_extra(x: Any, gen: Any) -> Any:
    """Camera faults a phone photo of small dice shows: a stronger blur (Gaussian, sigma 0.6-1.6 px),
    the crop seen at half to 0.8 of its resolution, and salt-and-pepper specks (as in epanemu_d6's
    augmented copies)."""
    import torch
    import torch.nn.functional as F

    B, _, S, _ = x.shape
    soft = torch.rand(B, generator=gen) < 0.3
    if soft.any():
        sigma = 0.6 + torch.rand(int(soft.sum()), generator=gen) * 1.0
        r = torch.arange(-2, 3, dtype=torch.float32)
        k1 = torch.exp(-(r[None, :] / sigma[:, None]) ** 2 / 2)
        k1 = k1 / k1.sum(dim=1, keepdim=True)
        k = (k1[:, :, None] * k1[:, None, :])  # (n, 5, 5), one kernel per crop
        xs = F.pad(x[soft], (2, 2, 2, 2), mode="replicate")
        n = xs.shape[0]
        w = k[:, None].repeat(1, 3, 1, 1).reshape(n * 3, 1, 5, 5)
        x[soft] = F.conv2d(xs.reshape(1, n * 3, S + 4, S + 4), w, groups=n * 3).reshape(n, 3, S, S)
    low = torch.rand(B, generator=gen) < 0.25
    if low.any():
        side = int(S * (0.5 + 0.3 * float(torch.rand(1, generator=gen))))
        small = F.interpolate(x[low], size=(side, side), mode="area")
        x[low] = F.interpolate(small, size=(S, S), mode="bilinear", align_corners=False)
    specks = torch.rand(B, generator=gen) < 0.1
    if specks.any():
        n = int(specks.sum())
        u = torch.rand(n, 1, S, S, generator=gen)
        rate = 0.005 + 0.02 * torch.rand(n, 1, 1, 1, generator=gen)
        xs = x[specks]
        xs = torch.where(u < rate / 2, torch.zeros_like(xs), xs)
        x[specks] = torch.where(u > 1 - rate / 2, torch.full_like(xs, 255.0), xs)
    return x


def crop_target(theta: Any, target: Any) -> Any:
    """Patch coordinates -> crop coordinates: grid_sample reads patch point M o + t for crop point o."""
    import torch

    M, t = theta[:, :, :2], theta[:, :, 2]
    centre = torch.linalg.solve(M, (target[:, :2] - t).unsqueeze(-1)).squeeze(-1)
    side = target[:, 2:] / torch.sqrt(torch.abs(torch.linalg.det(M))).unsqueeze(-1)
    return torch.cat([centre, side], dim=1)


@dataclass
class CropTrainResult:
    epochs: int
    seconds: float
    val_accuracy: float | None
    val_rows: int
    history: list[dict[str, float]]


def train_crops(data: Path, out_onnx: Path, epochs: int = 30, batch: int = 128, lr: float = 3e-3,
                val_groups: tuple[int, int] | None = None, seed: int = 0, threads: int = 1,
                arch: str = "c32s", log: Any = print, checkpoint: Path | None = None,
                minutes: float | None = None, init: Path | None = None,
                strength: str = "base", hard_weight: float = 1.0, oblique: float = 0.0) -> CropTrainResult:
    """Train on DATA (datasets/dice/crops.py .npz), export OUT_ONNX. `val_groups` (lo, hi): real photos
    with index lo <= g < hi are held back for validation (none: train on everything). `checkpoint`: an
    ONNX file exported at every epoch's end, so a run cut short still leaves a usable model.
    `minutes`: a CPU budget (on a shared machine the wall clock is what runs out): the first
    WARMUP_STEPS steps are timed and the run is shortened to fit, so the learning-rate schedule still
    runs its whole course (a run merely cut off would end at a high rate). `init`: start from this
    exported crop network (same `arch`; fine-tuning, see `load_onnx_weights`). `strength`: the
    augmentation, one of AUGMENTS (see `augment`). `hard_weight`: the crop set's `hard` crops (top-face
    copies of dice seen from low) sampled that many times as often as other real crops. `oblique`: see
    `augment`."""
    import torch
    import torch.nn.functional as F

    if strength not in AUGMENTS:
        raise ValueError(f"strength must be one of {AUGMENTS}, got {strength!r}")
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    z = np.load(data)
    x = torch.from_numpy(z["x"]).permute(0, 3, 1, 2).float()
    y = torch.from_numpy(z["y"]).long()
    target = torch.from_numpy(z["target"]).float()
    group = torch.from_numpy(z["group"]).long()
    val = torch.zeros(len(y), dtype=torch.bool)
    if val_groups is not None:
        val = (group >= val_groups[0]) & (group < val_groups[1])
    tr = torch.nonzero(~val).flatten()
    va = torch.nonzero(val).flatten()
    # real photos are a small part of the set but the look that matters: sample them 3x as often
    weight = torch.where(torch.from_numpy(z["source"][tr.numpy()]) == 0, 3.0, 1.0)
    if "hard" in z.files and hard_weight != 1.0:
        weight = torch.where(torch.from_numpy(z["hard"][tr.numpy()]) == 1, weight * hard_weight, weight)
    net = build_net(arch)
    size = input_size(arch)
    if init is not None:
        sample = tr[torch.randperm(len(tr), generator=torch.Generator().manual_seed(seed))[:512]]
        load_onnx_weights(net, init, augment(x[sample], None, train=False, size=size))
    steps = max(1, epochs * len(tr) // batch)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    if minutes is not None:
        steps = _fit_steps(net, opt, x, y, target, tr, weight, batch, size, steps, minutes, gen_seed=seed,
                           strength=strength, oblique=oblique)
        epochs = max(1, round(steps * batch / max(len(tr), 1)))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    gen = torch.Generator().manual_seed(seed)
    history: list[dict[str, float]] = []
    start = time.perf_counter()
    per_epoch = max(1, len(tr) // batch)
    val_acc = None
    for step in range(steps):
        net.train()
        idx = tr[torch.multinomial(weight, batch, replacement=True, generator=gen)]
        xb, tb = augment(x[idx], gen, train=True, target=target[idx], size=size, strength=strength,
                         oblique=oblique)
        out = net(xb)
        loss = F.cross_entropy(out[:, :7], y[idx], label_smoothing=0.05)
        has = ~torch.isnan(tb[:, 0])
        if has.any():  # box re-framing only where there is a die to frame
            loss = loss + 2.0 * F.smooth_l1_loss(out[has, 7:], tb[has], beta=0.1)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if (step + 1) % per_epoch == 0 or step == steps - 1:
            row = {"epoch": (step + 1) / per_epoch, "loss": float(loss.detach()),
                   "seconds": time.perf_counter() - start}
            if len(va):
                val_acc = evaluate(net, x[va], y[va], size)
                row["val_accuracy"] = val_acc
            history.append(row)
            log(json.dumps({k: round(v, 4) for k, v in row.items()}))
            if checkpoint is not None:
                export(net, checkpoint, size)
    export(net, out_onnx, size)
    return CropTrainResult(epochs, time.perf_counter() - start, val_acc, int(len(va)), history)


WARMUP_STEPS = 20


def load_onnx_weights(net: Any, onnx_path: Path, sample: Any) -> None:
    """Put an exported crop network's weights back into `net` (the same architecture). The export
    folded each batch norm into its convolution; each batch norm is set to pass that convolution's
    output through unchanged: running mean and variance measured on `sample` (crops as the network
    sees them), scale and shift undoing that normalisation, so training resumes from the same function."""
    import onnx
    import torch
    from onnx import numpy_helper
    from torch import nn

    graph = onnx.load(str(onnx_path)).graph
    init = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in graph.initializer}
    folded = [(init[n.input[1]], init[n.input[2]]) for n in graph.node if n.op_type == "Conv"]
    gemm = [n for n in graph.node if n.op_type == "Gemm"]
    layers = list(net.body)
    convs = [(m, layers[i + 1]) for i, m in enumerate(layers) if isinstance(m, nn.Conv2d)]
    linear = [m for m in layers if isinstance(m, nn.Linear)]
    if len(folded) != len(convs) or len(gemm) != 1 or len(linear) != 1:
        raise ValueError(f"{onnx_path}: {len(folded)} convolutions, the network has {len(convs)}")
    stats: list[tuple[Any, Any]] = []
    with torch.no_grad():
        for (conv, bn), (w, b) in zip(convs, folded, strict=True):
            if conv.weight.shape != w.shape:
                raise ValueError(f"{onnx_path}: a convolution of shape {tuple(w.shape)}, the network's is "
                                 f"{tuple(conv.weight.shape)}")
            conv.weight.copy_(w)
            bn.eps, bn.running_mean[:], bn.running_var[:] = 0.0, 0.0, 1.0
            bn.weight.fill_(1.0)
            bn.bias.copy_(b)
        linear[0].weight.copy_(init[gemm[0].input[1]])
        linear[0].bias.copy_(init[gemm[0].input[2]])
        hooks = [conv.register_forward_hook(lambda m, i, o: stats.append((o.mean(dim=(0, 2, 3)),
                                                                          o.var(dim=(0, 2, 3)))))
                 for conv, _ in convs]
        net.eval()
        net(sample)
        for h in hooks:
            h.remove()
        for ((_, bn), (_, b)), (mean, var) in zip(zip(convs, folded, strict=True), stats, strict=True):
            bn.eps = 1e-5
            bn.running_mean.copy_(mean)
            bn.running_var.copy_(var)
            bn.weight.copy_(torch.sqrt(var + bn.eps))
            bn.bias.copy_(mean + b)


def _fit_steps(net: Any, opt: Any, x: Any, y: Any, target: Any, tr: Any, weight: Any, batch: int,
               size: int, steps: int, minutes: float, gen_seed: int, strength: str = "base",
               oblique: float = 0.0) -> int:
    """Time WARMUP_STEPS training steps at a low rate and return how many steps fit in `minutes`
    (at most `steps`). The warm-up steps train the net a little too; nothing else is kept."""
    import torch
    import torch.nn.functional as F

    gen = torch.Generator().manual_seed(gen_seed + 1)
    for g in opt.param_groups:
        g["lr"] = 1e-4
    net.train()
    t0 = time.perf_counter()
    warm = min(WARMUP_STEPS, steps)
    for _ in range(warm):
        idx = tr[torch.multinomial(weight, batch, replacement=True, generator=gen)]
        xb = augment(x[idx], gen, train=True, target=target[idx], size=size, strength=strength,
                     oblique=oblique)[0]
        loss = F.cross_entropy(net(xb)[:, :7], y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    per_step = (time.perf_counter() - t0) / warm
    # the epoch-end checkpoints and the machine's varying load: keep a fifth in reserve
    return max(1, min(steps, int(0.8 * minutes * 60 / per_step)))


def evaluate(net: Any, x: Any, y: Any, size: int = INPUT) -> float:
    import torch

    net.eval()
    with torch.no_grad():
        pred = torch.cat([net(augment(x[i:i + 512], None, train=False, size=size))[:, :7].argmax(1)
                          for i in range(0, len(x), 512)])
    return float((pred == y).float().mean())


def export(net: Any, out: Path, size: int = INPUT) -> Path:
    import torch

    net.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, size, size)
    torch.onnx.export(net, (dummy,), str(out), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)
    return out
