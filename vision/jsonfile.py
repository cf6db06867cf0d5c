"""JSON files the readers keep per table (calibration, camera pose): written whole or not at all, read
back with an error that names the file and the problem."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vision.types import VisionError


def write_json(path: Path | str, data: Any, indent: int | None = 2) -> Path:
    """Write `data` to a temporary name and rename it: a crash never leaves half a file behind."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=indent), encoding="utf-8")
    tmp.replace(path)
    return path


def read_json_object(path: Path | str, what: str) -> dict[str, Any]:
    """The JSON object in `path`; VisionError "PATH: no such WHAT file" / "not valid JSON" / ..."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise VisionError(f"{path}: no such {what} file") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise VisionError(f"{path}: not valid JSON: {exc}") from exc
    except OSError as exc:  # a folder, no permission: a clear error, not a traceback
        raise VisionError(f"{path}: cannot read the {what} file: {exc.strerror or exc}") from None
    if not isinstance(data, dict):
        raise VisionError(f"{path}: expected a JSON object")
    return data
