"""Write a folder of rendered Tokyo Highway scenes with a realdata-format labels.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from datasets.tokyo.render import render_tokyo_frame
from datasets.tokyo.scene import pickup_scene, random_scene
from datasets.tokyo.views import render_tokyo_views


def write_dataset(
    out: Path | str,
    n: int,
    seed: int,
    width: int = 1280,
    height: int = 720,
    quality: int = 90,
    n_sticks: int | None = None,
    kind: str = "tokyo",
    views: int = 1,
) -> dict[str, Any]:
    """Render n scenes (each from `views` cameras) into `out` with labels.json. With several views
    every image is its own item, with `view_of` (the scene's id, shared by its views) and `view`."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    items = []
    for k in range(n):
        s = seed * 100003 + k  # each image its own stream: image k is the same whatever n is
        rng = np.random.default_rng(s)
        scene = pickup_scene(rng, n=n_sticks) if kind == "pickup" else random_scene(rng, n_sticks=n_sticks)
        stem = f"{kind}_{seed}_{k:05d}"
        if views == 1:
            image, labels = render_tokyo_frame(scene, s, width=width, height=height)
            cv2.imwrite(str(out / f"{stem}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, quality])
            items.append({"image": f"{stem}.jpg", **labels, "scene": scene})
            continue
        for v, (image, labels) in enumerate(render_tokyo_views(scene, s, views, width=width, height=height)):
            name = f"{stem}_v{v}.jpg"
            cv2.imwrite(str(out / name), image, [cv2.IMWRITE_JPEG_QUALITY, quality])
            items.append({"image": name, "view_of": stem, "view": v, **labels, "scene": scene})
    doc = {
        "source": f"highway-referee dataset tokyo --seed {seed}",
        "license": "generated, same as the project",
        "attribution": "Highway Referee synthetic Tokyo Highway renderer",
        "notes": "sticks: endpoints = projected stick axis ends; crossings: image intersections of stick "
        "axes (not at a shared support), top = the stick visible at the point; supports: table mm "
        "and height in column units; calibration: the camera (K, R, t) and piece sizes."
        + (
            " view_of: the scene an image shows (its views share it and the support ids)."
            if views > 1
            else ""
        ),
        "items": items,
    }
    (out / "labels.json").write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return doc
