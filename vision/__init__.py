"""Camera-side readers: frames in, per-game observations with confidences out. Knows no rules."""

from vision.types import Detections, Frame, VisionError, check_image

__all__ = ["Detections", "Frame", "VisionError", "check_image"]
