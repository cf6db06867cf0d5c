"""Model cards for detectors trained on the scene sets (`highway-referee train yolo`): beside NAME.onnx,
NAME.json (class names, input size, task and keypoint shape: what a runtime needs) and NAME.md (data,
epochs, synthetic val metrics, size: what a person needs). Works for any data.yaml; the data section
is filled from manifest.json when the set was built here."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

METRICS = ("precision", "recall", "mAP50", "mAP50-95")


def read_data_yaml(path: Path) -> dict[str, Any]:
    """names, kpt_shape and path from a data.yaml written like ours (flat keys, `  i: 'name'` names);
    no YAML parser is a runtime dependency, so only these forms are read."""
    text = path.read_text(encoding="utf-8")
    names = [m.group(2) for m in re.finditer(r"^\s+(\d+):\s*['\"]?([^'\"\n]*)['\"]?\s*$", text, re.M)]
    kpt = re.search(r"^kpt_shape:\s*\[\s*(\d+)\s*,\s*(\d+)\s*\]", text, re.M)
    return {"names": names, "kpt_shape": [int(kpt.group(1)), int(kpt.group(2))] if kpt else None}


def best_epoch(results_csv: Path) -> dict[str, float]:
    """The results.csv row with the best mAP50-95 (box plus pose for pose models)."""
    if not results_csv.is_file():
        return {}
    with results_csv.open(encoding="utf-8") as f:
        rows = [{k.strip(): float(v) for k, v in r.items() if v not in (None, "")} for r in csv.DictReader(f)]
    key = lambda r: (r.get("metrics/mAP50-95(B)", 0.0) + r.get("metrics/mAP50-95(P)", 0.0),  # noqa: E731
                     r.get("epoch", 0.0))
    return max(rows, key=key) if rows else {}


def card_sidecar(onnx: Path, data_yaml: Path, run_dir: Path, epochs: tuple[int, int], model: str,
                 imgsz: int) -> dict[str, Any]:
    data = read_data_yaml(data_yaml)
    manifest_path = data_yaml.parent / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.is_file() else {}
    keep = ("kind", "scheme", "generator", "spec", "images", "boxes", "per_class", "dropped")
    return {"names": data["names"], "imgsz": imgsz, "task": "pose" if data["kpt_shape"] else "detect",
            "kpt_shape": data["kpt_shape"], "model": model, "epochs_done": epochs[0],
            "epochs_planned": epochs[1], "data": {"yaml": str(data_yaml)} | {k: manifest[k] for k in keep
                                                                            if k in manifest},
            "synthetic_val": best_epoch(run_dir / "results.csv"), "bytes": onnx.stat().st_size}


def render_card(onnx: Path, side: dict[str, Any]) -> str:
    pct = lambda v: "n/a" if v is None else f"{100 * v:.1f} %"  # noqa: E731
    val = side["synthetic_val"]
    data = side["data"]
    spec = data.get("spec", {})
    heads = ["B", "P"] if side["task"] == "pose" else ["B"]
    scores = "; ".join(f"{'boxes' if h == 'B' else 'keypoints'}: " + ", ".join(
        f"{m} {pct(val.get(f'metrics/{m}({h})'))}" for m in METRICS) for h in heads)
    kpt = f" (keypoints {side['kpt_shape']})" if side["kpt_shape"] else ""
    lines = [f"# Model card: {onnx.name}", "",
             f"- Task: {side['task']}{kpt}; classes ({len(side['names'])}): {', '.join(side['names'])}.",
             f"- Architecture: {side['model']} from scratch (no pretrained weights), Ultralytics; input "
             f"{side['imgsz']}x{side['imgsz']}; ONNX float32 without NMS, {side['bytes'] / 1e6:.1f} MB.",
             f"- Epochs: {side['epochs_done']} of {side['epochs_planned']} planned, CPU.",
             f"- Data: {data['yaml']}"]
    if "kind" in data:
        lines[-1] += (f": rendered {data['kind']} scenes ({data.get('generator')}), scheme {data['scheme']}, "
                      f"seed {spec.get('seed')}, {spec.get('size')} px; images {data['images']}, "
                      f"boxes {data['boxes']}, dropped {data.get('dropped') or 'none'}.")
    lines += [f"- Synthetic val (best epoch {int(val.get('epoch', 0))}): {scores}." if val
              else "- Synthetic val: no results.csv in the run.",
              "- Not measured on real photos here: score it with the kind's eval command.",
              "", "Rebuild: docs/formats/yolo-sets.md (`highway-referee dataset yolo ...`, then "
              "`highway-referee train yolo ...`).", ""]
    return "\n".join(lines)


def write_card(onnx: Path, data_yaml: Path, run_dir: Path, epochs: tuple[int, int], model: str,
               imgsz: int) -> Path:
    """Write NAME.json and NAME.md beside the exported model; returns the .md path."""
    side = card_sidecar(onnx, data_yaml, run_dir, epochs, model, imgsz)
    onnx.with_suffix(".json").write_text(json.dumps(side, indent=1), encoding="utf-8")
    card = onnx.with_suffix(".md")
    card.write_text(render_card(onnx, side), encoding="utf-8")
    return card
