"""YOLO-format training sets built from the project's synthetic generators and labelled photos."""

from datasets.yolo.dice import DiceSetSpec, build_dice_set

__all__ = ["DiceSetSpec", "build_dice_set"]
