"""Synthetic dice scenes with exact labels (realdata labels.json and YOLO formats)."""

from datasets.dice.scenes import die_face_rgba, random_scene, render_dice_on_sheet, write_dataset

__all__ = ["die_face_rgba", "random_scene", "render_dice_on_sheet", "write_dataset"]
