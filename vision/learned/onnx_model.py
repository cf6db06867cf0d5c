"""One ONNX model file run on one CPU thread by onnxruntime (when installed) or OpenCV DNN: the run time
shared by the dice box detector and the die crop reader. Load errors become VisionError naming the file."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.types import VisionError

BACKENDS = ("auto", "onnxruntime", "opencv")
_SESSIONS: dict[tuple[str, int, int], Any] = {}  # see _session


def _session(path: Path) -> Any:
    """One onnxruntime session per model file (and version of it), shared by every OnnxModel: its `run`
    holds no state between calls, and loading it took about 0.1 s, paid again by every new reader (a
    new match's adapter, its first die)."""
    import onnxruntime as ort

    st = path.stat()
    key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
    sess = _SESSIONS.get(key)
    if sess is None:
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        sess = _SESSIONS[key] = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    return sess


class OnnxModel:
    def __init__(self, path: Path | str, backend: str = "auto", what: str = "model") -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise VisionError(f"{self.path}: no such {what} file")
        if backend not in BACKENDS:
            raise VisionError(f"backend must be 'auto', 'opencv' or 'onnxruntime', got {backend!r}")
        if backend == "auto":  # onnxruntime ran these networks 2-3x faster than OpenCV 5's DNN on one core
            backend = "onnxruntime" if importlib.util.find_spec("onnxruntime") else "opencv"
        self.backend = backend
        self.input_shape: list | None = None
        try:
            if backend == "onnxruntime":
                self._sess = _session(self.path)
                self._input = self._sess.get_inputs()[0].name
                self.input_shape = list(self._sess.get_inputs()[0].shape)
            else:
                self._net = cv2.dnn.readNetFromONNX(str(self.path))
        except ImportError:
            raise VisionError("backend 'onnxruntime' asked for but onnxruntime is not installed") from None
        except cv2.error as exc:
            raise VisionError(f"{self.path}: OpenCV cannot load this ONNX model: {exc}") from None
        except Exception as exc:  # onnxruntime's own load errors (bad or truncated file)
            raise VisionError(f"{self.path}: onnxruntime cannot load this model: {exc}") from None

    def run(self, blob: np.ndarray) -> np.ndarray:
        """The first output for an NCHW float32 blob."""
        if self.backend == "onnxruntime":
            return np.asarray(self._sess.run(None, {self._input: blob})[0])
        self._net.setInput(blob)
        return np.asarray(self._net.forward())
