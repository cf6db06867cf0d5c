"""Camera set-up before a match: find the cameras, take a snapshot, and check whether a set-up can
referee (vision.camera_check). Used by `highway-referee camera ...` and the page's camera routes."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


class CameraError(Exception):
    """A camera or game the set-up check cannot use; the message says why, for the user."""


GAMES = ("highway-dice",)  # printed boards the check (and the page's camera routes) localise
# `camera check` only: from the printed mat's calibration (referee_app.tokyo_camera_check)
MAT_GAMES = ("tokyo-highway",)
CHECK_GAMES = GAMES + MAT_GAMES  # every game `camera check`, the page's check and serve's check know
MAX_INDEX = 8  # camera indices `camera list` tries
WARMUP_FRAMES = 5  # webcams deliver dark, unfocused frames right after opening


def _opener() -> Callable[[Any], Any]:
    import cv2

    # OpenCV warns on stderr for every index that is not a camera: not news to the user here
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    return cv2.VideoCapture


def probe_cameras(opener: Callable[[Any], Any] | None = None,
                  indices: range = range(MAX_INDEX)) -> list[dict]:
    """Every camera index that opens and gives a frame: index, frame size."""
    opener = opener or _opener()
    found = []
    for i in indices:
        try:
            cap = opener(i)
        except Exception:  # noqa: BLE001 - a driver error means no usable camera there
            continue
        try:
            if cap is None or not cap.isOpened():
                continue
            ok, frame = cap.read()
            if ok and frame is not None:
                found.append({"index": i, "width": int(frame.shape[1]), "height": int(frame.shape[0])})
        finally:
            if cap is not None:
                cap.release()
    return found


def snapshot(index: int, opener: Callable[[Any], Any] | None = None, warmup: int = WARMUP_FRAMES) -> Any:
    """One frame from camera `index` after a few warm-up frames; CameraError when there is none."""
    opener = opener or _opener()
    try:
        cap = opener(index)
    except Exception as exc:  # noqa: BLE001
        raise CameraError(f"camera {index}: cannot open it ({exc})") from exc
    try:
        if cap is None or not cap.isOpened():
            raise CameraError(f"camera {index}: no such camera, or it is in use "
                              "(`highway-referee camera list` shows the cameras found)")
        frame = None
        for _ in range(max(1, warmup)):
            ok, image = cap.read()
            if ok and image is not None:
                frame = image
        if frame is None:
            raise CameraError(f"camera {index}: opened but gave no picture")
        return frame
    finally:
        if cap is not None:
            cap.release()


def board_geometry(game: str) -> tuple[Any, Any, str]:
    """The sheet spec, the cell centres (mm) and a name for the game's printed board."""
    import numpy as np

    if game not in GAMES:
        raise CameraError(f"camera check knows the boards of: {', '.join(GAMES)} (got {game!r})")
    from drawing.dice_board import MARKER_MARGIN, MARKER_SIZE
    from engine.dice_road import load_board
    from vision.localise import SheetSpec

    board = load_board()
    spec = SheetSpec("highway-dice", float(board.width), float(board.height), MARKER_SIZE, MARKER_MARGIN)
    cells = np.array([[c.x, c.y] for c in board.cells.values()])
    return spec, cells, "A2 board"


def board_drawing(game: str) -> Any:
    """The game's board as printed (RGB at 2 px/mm): tells the check's glare from bright paper."""
    import cv2
    import numpy as np

    from drawing.dice_board import printable_board

    _svg, png, _meta = printable_board(dpi=2.0 * 25.4)
    return cv2.cvtColor(cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


def check_game(game: str) -> None:
    """CameraError unless `camera check` knows the game's sheet (asked before a camera is opened)."""
    if game not in CHECK_GAMES:
        raise CameraError(f"camera check knows the boards of: {', '.join(CHECK_GAMES)} (got {game[:60]!r})")


def check_mat(mat: str) -> None:
    """CameraError unless `mat` is a printed Tokyo mat's size (asked before a camera is opened)."""
    from drawing.tokyo_mat import MAT_SIZES

    if mat not in MAT_SIZES:
        raise CameraError(f"mat is the printed mat's size: one of {', '.join(MAT_SIZES)} (got {mat[:60]!r})")


def run_check(image: Any, game: str, focal_px: float | None = None, mat: str = "a3",
              cameras: int = 1, calibrations: list[Any] | None = None) -> dict[str, Any]:
    """The check's report of camera 1's `image`; `cameras` (a match's camera count) and `calibrations`
    (cameras 2, 3 ...: the play area's coverage) matter to tokyo-highway only, whose one-camera set-ups
    are all outside the envelope."""
    from vision.camera_check import check_camera

    if game in MAT_GAMES:
        from referee_app.tokyo_camera_check import check_tokyo

        t0 = time.process_time()
        report = check_tokyo(image, focal_px, mat, cameras, calibrations)
        report["game"] = game
        report["cpu_seconds"] = round(time.process_time() - t0, 3)
        return report

    spec, cells, name = board_geometry(game)
    t0 = time.process_time()
    report = check_camera(image, spec, cells, name, focal_px, reference_rgb=board_drawing(game))
    report["game"] = game
    report["cpu_seconds"] = round(time.process_time() - t0, 3)
    return report


def format_check(report: dict[str, Any]) -> str:
    if report.get("game") in MAT_GAMES:
        from referee_app.tokyo_camera_check import format_tokyo

        return format_tokyo(report)
    lines = [f"markers found: {report['markers_found']} (missing {report['markers_missing']})"]
    if report.get("localised"):
        ppm = report["px_per_mm"]
        sharp = report["sharpness"]["edge_blur_mm"]
        lines += [
            f"pixels per mm on the board: {ppm['min']:.2f}-{ppm['max']:.2f} (median {ppm['median']:.2f})",
            f"tilt: {report['tilt_deg']:.1f} deg (board centre seen {report['view_angle_deg']:.1f} deg from "
            f"straight down); camera height: {report['camera_height_mm'] / 10:.0f} cm "
            f"(focal length {report['focal_px']:.0f} px, {report['focal_source']})",
            f"sharpness: edge blur {'-' if sharp is None else f'{sharp:.2f} mm'}; exposure: median grey "
            f"{report['exposure']['median_grey']:.0f}; glare "
            + ", ".join(f"{k} {100 * v['glare']:.1f} %" for k, v in report["exposure"]["thirds"].items()),
            f"smallest die face: {report['smallest_die_face_px']:.0f} px; die tops appear up to "
            f"{report['largest_top_offset_mm']:.0f} mm off their cells",
        ]
    lines.append(f"inside_envelope: {'true' if report['inside_envelope'] else 'false'}")
    lines += [f"  because {r}" for r in report["reasons"]]
    lines += [f"  -> {a}" for a in report["advice"]]
    return "\n".join(lines)


