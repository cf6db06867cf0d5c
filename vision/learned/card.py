"""Model cards: every shipped ONNX file has `<name>.json` (what the runtime reads: class names, input
size, the photos it trained on) and `<name>.md` (for people: data, epochs, metrics, size)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from vision.learned.training import StepResult, export_onnx


def best_val_row(results_csv: Path) -> dict[str, float]:
    """The epoch row of Ultralytics' results.csv with the best mAP50-95 (its fitness, roughly)."""
    with results_csv.open(encoding="utf-8") as f:
        rows = [{k.strip(): float(v) for k, v in r.items() if v not in (None, "")} for r in csv.DictReader(f)]
    if not rows:
        return {}
    return max(rows, key=lambda r: (r.get("metrics/mAP50-95(B)", 0.0), r.get("epoch", 0.0)))


def held_out_scores(onnx: Path, manifest: dict[str, Any]) -> dict[str, Any] | list[dict[str, Any]] | None:
    """Score the exported model, torch-free, on the real photos of each folder it did not train on
    (one folder: a dict, as the first cards; several: a list, one per folder). A one-class detector
    is scored as the reader uses it: its proposals judged and read by the shipped crop network."""
    from vision.dice.evaluate import evaluate, load
    from vision.learned.reader import LearnedDiceReader

    folders = [manifest["spec"].get("real_folder"), *manifest["spec"].get("real_sets", [])]
    folders = [f for f in folders if f and Path(f, "labels.json").is_file()]
    if not folders:
        return None
    several = len(folders) > 1
    mode = ("crops" if several else "combo") if manifest["names"] == ["die"] else "learned"
    by_set = manifest.get("real_photos_by_set") or {Path(folders[0]).name: manifest["real_photos"]}
    keys = ("n_images", "n_labelled", "n_detected", "recall", "precision", "value_accuracy", "end_to_end",
            "ms_per_image")
    out = []
    for folder in folders:
        skip = set(by_set.get(Path(folder).name, []))
        r = evaluate(load(Path(folder)), LearnedDiceReader(onnx, mode=mode).read, skip=skip)
        out.append({k: r[k] for k in keys} | {"mode": mode, "folder": Path(folder).name})
    return out if several else out[0]


def export_with_card(step: StepResult, onnx: Path, data_dir: Path, config_dir: Path) -> Path:
    manifest = json.loads((data_dir / "manifest.json").read_text(encoding="utf-8"))
    args = train_args(step.run_dir)
    if str(args.get("model", "")).endswith(".pt"):  # a resumed run names its checkpoint; use its YAML
        args["model"] = architecture(step.last)
    imgsz = int(args.get("imgsz", 320))
    weights = step.best if step.best.exists() else step.last
    export_onnx(weights, onnx, imgsz, config_dir)
    real_folder = manifest["spec"].get("real_folder")
    by_set = manifest.get("real_photos_by_set") or {}
    if len(by_set) > 1:  # several folders: the photos per folder (vision.learned.card_photos.photos_by_set)
        trained_on: Any = sorted(by_set)
        photos: Any = by_set
    else:
        trained_on = Path(real_folder).name if real_folder else None
        photos = manifest["real_photos"]
    side = {"names": manifest["names"], "imgsz": imgsz, "trained_on": trained_on, "train_photos": photos,
            "epochs_done": step.epochs_done, "epochs_planned": step.epochs_total, "model": args.get("model"),
            "init": _init_source(args.get("pretrained")),
            "data": {"images": manifest["images"], "boxes": manifest["boxes"], "spec": manifest["spec"],
                     "pip_boxes_grown": manifest.get("pip_boxes_grown")},
            "synthetic_val": best_val_row(step.run_dir / "results.csv")}
    onnx.with_suffix(".json").write_text(json.dumps(side, indent=1), encoding="utf-8")
    side["held_out_real"] = held_out_scores(onnx, manifest)
    onnx.with_suffix(".json").write_text(json.dumps(side, indent=1), encoding="utf-8")
    card = onnx.with_suffix(".md")
    card.write_text(render_card(onnx, side), encoding="utf-8")
    return card


def _init_source(pretrained: str | None) -> str | None:
    """What a run started from: the ONNX file named beside an `--init-onnx` checkpoint, else the
    checkpoint itself, else None (from scratch)."""
    if pretrained in (None, "", "False", "false"):
        return None
    note = Path(str(pretrained)).with_suffix(".json")
    if note.is_file():
        try:
            return str(json.loads(note.read_text(encoding="utf-8"))["from_onnx"])
        except (OSError, ValueError, KeyError):
            pass
    return Path(str(pretrained)).name


def architecture(checkpoint: Path) -> str:
    import torch

    model = torch.load(str(checkpoint), map_location="cpu", weights_only=False).get("model")
    return Path(str(getattr(model, "yaml", {}).get("yaml_file", "unknown"))).name


def train_args(run_dir: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    path = run_dir / "args.yaml"
    if path.exists():  # flat `key: value` lines; no YAML parser needed for the few keys used here
        for line in path.read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition(":")
            out[key.strip()] = value.strip()
    return out


def render_card(onnx: Path, side: dict[str, Any]) -> str:
    pct = lambda v: "n/a" if v is None else f"{100 * v:.1f} %"  # noqa: E731
    val = side.get("synthetic_val") or {}
    real = side.get("held_out_real")
    spec = side["data"]["spec"]
    start = (f"fine-tuned from {side['init']} (its weights put back into the architecture, "
             "vision/learned/onnx_init.py)" if side.get("init")
             else "from scratch (no pretrained weights)")
    photos = side["train_photos"]
    if isinstance(photos, dict):
        real_text = (f"{sum(len(v) for v in photos.values())} real photos: "
                     + ", ".join(f"{len(v)} of {k}" for k, v in sorted(photos.items()))
                     + ", the training blocks of datasets/dice/photo_split.series_split; pip boxes grown "
                     "to whole dice (from the image / fallback square: "
                     f"{side['data'].get('pip_boxes_grown')})")
    else:
        real_text = (f"{len(photos)} real photos: the first {spec.get('real_first')} of "
                     f"{side.get('trained_on')} in file-name order")
    # copies of the real photos with small dice pasted in (train dice --small-copies)
    small = (f"; {spec['small_copies']} copy per real photo with {side['data'].get('small_dice_pasted')} "
             "small dice pasted in, datasets/yolo/small_dice.py" if spec.get("small_copies") else "")
    lines = [f"# Model card: {onnx.name}", "",
             f"- Architecture: {side.get('model')} {start}, Ultralytics; "
             f"input {side['imgsz']}x{side['imgsz']}; classes {side['names']}.",
             f"- Size: {onnx.stat().st_size / 1e6:.1f} MB (ONNX, float32, no NMS in the graph: "
             "vision/learned/yolo.py decodes and suppresses).",
             f"- Epochs: {side['epochs_done']} of {side['epochs_planned']} planned, CPU only.",
             f"- Data: {side['data']['images']['train']} training images ({real_text}, "
             f"plus renders from datasets/dice seed {spec.get('seed')}, a share "
             f"{spec.get('surface_share', 0.0)} of them on bare table tops{small}), "
             f"{side['data']['images']['val']} rendered val images; boxes {side['data']['boxes']}.",
             f"- Synthetic val (best epoch {int(val.get('epoch', 0))}): precision "
             f"{pct(val.get('metrics/precision(B)'))}, recall {pct(val.get('metrics/recall(B)'))}, "
             f"mAP50 {pct(val.get('metrics/mAP50(B)'))}, mAP50-95 {pct(val.get('metrics/mAP50-95(B)'))}."]
    for one in real if isinstance(real, list) else [real] if real else []:
        lines.append(f"- Held-out real photos ({one['folder']}, {one['n_images']} photos the model did not "
                     f"train on, {one['n_labelled']} dice; reader mode {one['mode']}): recall "
                     f"{pct(one['recall'])}, precision {pct(one['precision'])} (as eval dice counts it), "
                     "value accuracy "
                     f"{pct(one['value_accuracy'])}, {one['ms_per_image']} ms per photo.")
    lines += ["", "Rebuild: see docs/models.md (`highway-referee train dice ...`).", ""]
    return "\n".join(lines)
