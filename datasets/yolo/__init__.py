"""YOLO-format training sets built from the project's synthetic generators and labelled photos."""

from datasets.yolo.dice import DiceSetSpec, build_dice_set
from datasets.yolo.scenes import SceneSetSpec, build_scene_set

__all__ = ["DiceSetSpec", "SceneSetSpec", "build_dice_set", "build_scene_set"]
