"""Railroad Ink dice faces in the printed tray. See docs/vision/route-dice.md."""

from vision.route_dice.faces import FACES
from vision.route_dice.reader import DieReading, read_dice, read_route_dice

__all__ = ["FACES", "DieReading", "read_dice", "read_route_dice"]
