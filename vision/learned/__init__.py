"""Learned detectors: Ultralytics YOLO models trained in this project, shipped as ONNX and run with
OpenCV DNN (or onnxruntime), so the referee never needs torch. Training lives in training.py and
needs the optional train extra."""

from vision.learned.reader import DEFAULT_MODEL, LearnedDiceReader
from vision.learned.yolo import Letterbox, OnnxYolo, decode, letterbox, nms

__all__ = ["DEFAULT_MODEL", "LearnedDiceReader", "Letterbox", "OnnxYolo", "decode", "letterbox", "nms"]
