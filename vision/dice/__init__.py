"""Reading six-sided pip dice: find every die, its top-face value, its colour class (see reader.py)."""

from vision.dice.reader import DiceReader, read_dice

__all__ = ["DiceReader", "read_dice"]
