"""`highway-referee camera list | preview N --out snap.jpg | check (--camera N | --image PHOTO) --game GAME`:
find the cameras, take a snapshot, and say whether a set-up can referee before a match starts."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee_app.cli import CliError, CommandTree

GAMES = ("highway-dice",)
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
    """One frame from camera `index` after a few warm-up frames; CliError when there is none."""
    opener = opener or _opener()
    try:
        cap = opener(index)
    except Exception as exc:  # noqa: BLE001
        raise CliError(f"camera {index}: cannot open it ({exc})", 1) from exc
    try:
        if cap is None or not cap.isOpened():
            raise CliError(f"camera {index}: no such camera, or it is in use "
                           "(`highway-referee camera list` shows the cameras found)", 1)
        frame = None
        for _ in range(max(1, warmup)):
            ok, image = cap.read()
            if ok and image is not None:
                frame = image
        if frame is None:
            raise CliError(f"camera {index}: opened but gave no picture", 1)
        return frame
    finally:
        if cap is not None:
            cap.release()


def _list(args: argparse.Namespace) -> int:
    cams = probe_cameras()
    if args.json:
        print(json.dumps(cams))
    elif not cams:
        print("no camera found (tried indices 0-7)")
    for c in cams if not args.json else []:
        print(f"camera {c['index']}: {c['width']}x{c['height']}")
    return 0


def _write_jpeg(path: Path, image: Any) -> None:
    import cv2

    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    if not ok:
        raise CliError("could not encode the snapshot", 1)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(buf.tobytes())
    except OSError as exc:
        raise CliError(f"cannot write {path}: {exc.strerror or exc}", 1) from exc


def _preview(args: argparse.Namespace) -> int:
    if args.out.suffix.lower() not in (".jpg", ".jpeg"):
        raise CliError(f"--out must name a .jpg file, got {args.out}")
    frame = snapshot(args.index)
    _write_jpeg(args.out, frame)
    print(f"camera {args.index}: {frame.shape[1]}x{frame.shape[0]} snapshot written to {args.out}")
    return 0


def board_geometry(game: str) -> tuple[Any, Any, str]:
    """The sheet spec, the cell centres (mm) and a name for the game's printed board."""
    import numpy as np

    if game not in GAMES:
        raise CliError(f"camera check knows the boards of: {', '.join(GAMES)} (got {game!r})")
    from engine.dice_road import load_board
    from referee_app.render.dice_board import MARKER_MARGIN, MARKER_SIZE
    from vision.localise import SheetSpec

    board = load_board()
    spec = SheetSpec("highway-dice", float(board.width), float(board.height), MARKER_SIZE, MARKER_MARGIN)
    cells = np.array([[c.x, c.y] for c in board.cells.values()])
    return spec, cells, "A2 board"


def run_check(image: Any, game: str, focal_px: float | None = None) -> dict[str, Any]:
    from vision.camera_check import check_camera

    spec, cells, name = board_geometry(game)
    t0 = time.process_time()
    report = check_camera(image, spec, cells, name, focal_px)
    report["game"] = game
    report["cpu_seconds"] = round(time.process_time() - t0, 3)
    return report


def format_check(report: dict[str, Any]) -> str:
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


def _check(args: argparse.Namespace) -> int:
    from vision.sources import read_image
    from vision.types import VisionError

    if (args.camera is None) == (args.image is None):
        raise CliError("give exactly one of --camera N or --image PHOTO")
    if args.focal_px is not None and not 50 <= args.focal_px <= 50000:
        raise CliError(f"--focal-px must be 50..50000, got {args.focal_px}")
    board_geometry(args.game)  # an unknown game is refused before a camera is opened
    if args.image is not None:
        try:
            image = read_image(args.image)
        except VisionError as exc:
            raise CliError(str(exc), 2) from exc
    else:
        image = snapshot(args.camera)
    report = run_check(image, args.game, args.focal_px)
    report["source"] = str(args.image) if args.image is not None else f"camera {args.camera}"
    print(format_check(report))
    if args.json:
        try:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
        except OSError as exc:
            raise CliError(f"cannot write {args.json}: {exc.strerror or exc}", 1) from exc
    return 0


def _setup_list(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the cameras as JSON")


def _setup_preview(p: argparse.ArgumentParser) -> None:
    p.add_argument("index", type=int, help="camera index (see `camera list`)")
    p.add_argument("--out", type=Path, required=True, help="JPEG file to write")


def _setup_check(p: argparse.ArgumentParser) -> None:
    p.add_argument("--camera", type=int, help="camera index to check")
    p.add_argument("--image", type=Path, help="a photo of the set-up to check instead")
    p.add_argument("--game", required=True, help=f"whose board is on the table: {', '.join(GAMES)}")
    p.add_argument("--json", type=Path, help="write the check as JSON here")
    p.add_argument("--focal-px", type=float, help="the camera's focal length in pixels, if known (else "
                                                   "estimated from the markers when the camera is tilted)")


def register(cli: CommandTree) -> None:
    cli.group(("camera",), help="find cameras, take a snapshot, check a set-up before a match")
    cli.add(("camera", "list"), _setup_list, _list, help="the cameras that open and give a picture")
    cli.add(("camera", "preview"), _setup_preview, _preview, help="write one snapshot from a camera")
    cli.add(("camera", "check"), _setup_check, _check,
            help="can this set-up referee? markers, px/mm, tilt, height, sharpness, glare, verdict")
