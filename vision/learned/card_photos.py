"""Which photos a model card says its model trained on (kept apart from card.py, which scores
models, so the evaluation code can read cards without importing back into itself)."""

from __future__ import annotations

from typing import Any


def photos_by_set(meta: Any) -> dict[str, set[str]]:
    """Folder name -> photos a model card says the model trained on. Two forms: one folder
    (`"trained_on": NAME, "train_photos": [...]`, the first cards) or several (`"train_photos":
    {NAME: [...], ...}`)."""
    if not isinstance(meta, dict):
        return {}
    photos = meta.get("train_photos")
    if isinstance(photos, dict):
        return {str(k): set(v) for k, v in photos.items() if isinstance(v, list)}
    if meta.get("trained_on") and isinstance(meta["trained_on"], str):
        return {meta["trained_on"]: set(photos) if isinstance(photos, list) else set()}
    return {}
