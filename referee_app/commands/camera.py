"""`highway-referee camera list | preview N --out snap.jpg | check (--camera N | --image PHOTO) --game GAME`:
find the cameras, take a snapshot, and say whether a set-up can referee before a match starts."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from referee_app.camera_setup import (
    GAMES,
    MAT_GAMES,
    CameraError,
    check_game,
    format_check,
    probe_cameras,
    run_check,
)
from referee_app.camera_setup import snapshot as _snapshot
from referee_app.cli import CliError, CommandTree


def snapshot(index: int) -> Any:
    try:
        return _snapshot(index)
    except CameraError as exc:
        raise CliError(str(exc), 1) from exc


def _geometry(game: str) -> None:
    try:
        check_game(game)
    except CameraError as exc:
        raise CliError(str(exc), 2) from exc


def _other_calibrations(args: argparse.Namespace) -> list[Any]:
    """The calibrations of cameras 2, 3 ... (--calibration2, then each --calibration-extra), loaded as
    serve loads them; CliError naming the file and the fault."""
    files = ([("--calibration2", args.calibration2)] if args.calibration2 else []) + \
        [("--calibration-extra", f) for f in args.calibration_extra]
    if files and args.game not in MAT_GAMES:
        raise CliError(f"{files[0][0]} is another camera's Tokyo Highway calibration: it goes with "
                       f"--game {MAT_GAMES[0]}", 2)
    if not files:
        return []
    from referee_app.games.tokyo import load_calibration

    out = []
    for option, path in files:
        try:
            out.append(load_calibration(path)[0])
        except ValueError as exc:
            raise CliError(f"{option}: {exc}", 2) from None
    return out


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


def _check(args: argparse.Namespace) -> int:
    from vision.sources import read_image
    from vision.types import VisionError

    if (args.camera is None) == (args.image is None):
        raise CliError("give exactly one of --camera N or --image PHOTO")
    if args.focal_px is not None and not 50 <= args.focal_px <= 50000:
        raise CliError(f"--focal-px must be 50..50000, got {args.focal_px}")
    _geometry(args.game)  # an unknown game is refused before a camera is opened
    others = _other_calibrations(args)  # and a bad calibration file before anything is read or written
    if args.image is not None:
        try:
            image = read_image(args.image)
        except VisionError as exc:
            raise CliError(str(exc), 2) from exc
    else:
        image = snapshot(args.camera)
    report = run_check(image, args.game, args.focal_px, args.mat, calibrations=others)
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
    p.add_argument("--game", required=True,
                   help=f"whose board or mat is on the table: {', '.join(GAMES + MAT_GAMES)}")
    p.add_argument("--json", type=Path, help="write the check as JSON here")
    p.add_argument("--focal-px", type=float, help="the camera's focal length in pixels, if known (else "
                                                   "estimated from the markers when the camera is tilted)")
    p.add_argument("--mat", default="a3", choices=("a4", "a3", "a2"),
                   help="tokyo-highway: the printed mat's size (default a3)")
    p.add_argument("--calibration2", metavar="FILE",
                   help="tokyo-highway: the second camera's calibration (`tokyo calibrate`, as serve "
                        "--calibration2 takes it): the report adds which part of the play area no "
                        "camera sees")
    p.add_argument("--calibration-extra", action="append", default=[], metavar="FILE",
                   help="tokyo-highway: a further camera's calibration, repeatable (cameras 3, 4 ...)")


def register(cli: CommandTree) -> None:
    cli.group(("camera",), help="find cameras, take a snapshot, check a set-up before a match")
    cli.add(("camera", "list"), _setup_list, _list, help="the cameras that open and give a picture")
    cli.add(("camera", "preview"), _setup_preview, _preview, help="write one snapshot from a camera")
    cli.add(("camera", "check"), _setup_check, _check,
            help="can this set-up referee? markers, px/mm, tilt, height, sharpness, glare, verdict")
