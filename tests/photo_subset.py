"""A labelled photo folder cut down to its first few photos (file-name order), for tests that need a
real-data folder small enough to train or evaluate on in seconds."""

from __future__ import annotations

import json
import shutil
from pathlib import Path


def first_photos(src: Path, n: int, dest: Path) -> list[dict]:
    """Copy the first `n` photos of `src` (a realdata folder) and their labels to `dest`."""
    labels = json.loads((src / "labels.json").read_text(encoding="utf-8"))
    chosen = sorted(labels["items"], key=lambda it: it["image"])[:n]
    dest.mkdir(parents=True)
    for it in chosen:
        shutil.copyfile(src / it["image"], dest / it["image"])
    (dest / "labels.json").write_text(json.dumps(dict(labels, items=chosen)), encoding="utf-8")
    return chosen
