"""`highway-referee tokyo calibrate IMAGE --out calibration.json`: calibrate a camera over the Tokyo
Highway play mat from one photo of it (the four printed corner markers), for the live referee.

The reader needs a full pinhole camera (heights come from perspective). The mat's marker corners are
16 known table points: with a known focal length `solvePnP` gives the pose; without one, a one-view
`calibrateCamera` with the principal point at the image centre, square pixels and no lens distortion
also finds the focal length (it needs all four markers and a camera that is not straight overhead).

World frame: millimetres from the mat's centre, x along its long edge to the right, y toward its far
edge (the printed text is on the near edge), z up - the frame the referee's positions are given in.
"""

from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee_app.cli import CliError, CommandTree

MAT_MARKER_MM = 30.0  # drawing.tokyo_mat.draw_mat: marker size and margin from the mat's edges
MAT_MARGIN_MM = 10.0


def mat_marker_corners(size: tuple[float, float], marker_mm: float = MAT_MARKER_MM,
                       margin_mm: float = MAT_MARGIN_MM) -> dict[int, np.ndarray]:
    """Marker id -> its 4 corners in world mm (z = 0), in ArUco's order (TL, TR, BR, BL)."""
    from vision.markers import sheet_marker_ids

    w, h = size
    s, m = marker_mm, margin_mm
    origins = [(m, m), (w - m - s, m), (w - m - s, h - m - s), (m, h - m - s)]  # print coords, y down
    out = {}
    for mid, (ox, oy) in zip(sheet_marker_ids("tokyo-highway"), origins, strict=True):
        pts = [(ox, oy), (ox + s, oy), (ox + s, oy + s), (ox, oy + s)]
        out[mid] = np.array([[x - w / 2, h / 2 - y, 0.0] for x, y in pts], np.float64)
    return out


def calibrate_from_mat(image: np.ndarray, size: tuple[float, float], focal_px: float | None = None,
                       marker_mm: float = MAT_MARKER_MM) -> tuple[Any, float]:
    """(TokyoCalibration, RMS reprojection error in px) from one frame showing the mat's markers.
    Raises ValueError saying what is missing."""
    from vision.localise import detect_markers
    from vision.tokyo import PieceSizes, PinholeCamera, TokyoCalibration

    found = detect_markers(image)
    known = mat_marker_corners(size, marker_mm)
    ids = [i for i in known if i in found]
    need = 4 if focal_px is None else 2
    if len(ids) < need:
        raise ValueError(f"the photo shows {len(ids)} of the mat's 4 corner markers (ids {sorted(known)}); "
                         f"{need} are needed" + ("" if focal_px else " without --focal-px"))
    obj = np.vstack([known[i] for i in ids]).astype(np.float32)
    img = np.vstack([found[i] for i in ids]).astype(np.float32)
    h, w = image.shape[:2]
    f0 = focal_px or 0.9 * w
    K = np.array([[f0, 0, w / 2], [0, f0, h / 2], [0, 0, 1]], np.float64)
    if focal_px is None:
        flags = (cv2.CALIB_USE_INTRINSIC_GUESS | cv2.CALIB_FIX_PRINCIPAL_POINT | cv2.CALIB_FIX_ASPECT_RATIO
                 | cv2.CALIB_ZERO_TANGENT_DIST | cv2.CALIB_FIX_K1 | cv2.CALIB_FIX_K2 | cv2.CALIB_FIX_K3)
        _err, K, _dist, rvecs, tvecs = cv2.calibrateCamera([obj], [img], (w, h), K, np.zeros(5), flags=flags)
        rvec, tvec = rvecs[0], tvecs[0]
    else:
        ok, rvec, tvec = cv2.solvePnP(obj, img, K, None, flags=cv2.SOLVEPNP_IPPE)
        if not ok:
            raise ValueError("the marker corners do not fit one camera pose: is the mat flat and in view?")
    R, _ = cv2.Rodrigues(rvec)
    camera = PinholeCamera(np.asarray(K, np.float64), R, np.asarray(tvec, np.float64).ravel(), w, h)
    uv, depth = camera.project(obj.astype(np.float64))
    if (depth <= 0).any():
        raise ValueError("the fitted camera sees the mat from below: the markers were misread")
    error = float(np.sqrt(np.mean(np.sum((uv - img) ** 2, axis=1))))
    return TokyoCalibration(camera, PieceSizes()), error


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("image", type=Path, help="a photo from the referee's camera showing the whole mat")
    p.add_argument("--out", type=Path, required=True, help="calibration JSON to write")
    p.add_argument("--mat", default="a3", choices=("a4", "a3", "a2"), help="printed mat size (default a3)")
    p.add_argument("--focal-px", type=float, help="the camera's focal length in pixels, when known")
    p.add_argument("--step-mm", type=float, default=None,
                   help="round read positions to this many mm (default: the referee's 10 mm)")


def _run(args: argparse.Namespace) -> int:
    from drawing.tokyo_mat import MAT_SIZES

    image = cv2.imread(str(args.image), cv2.IMREAD_COLOR)
    if image is None:
        raise CliError(f"{args.image}: not a readable image", 2)
    if args.focal_px is not None and args.focal_px <= 0:
        raise CliError(f"--focal-px must be > 0, got {args.focal_px}", 2)
    try:
        calib, error = calibrate_from_mat(image, MAT_SIZES[args.mat], args.focal_px)
    except ValueError as exc:
        raise CliError(f"{args.image}: {exc}", 1) from None
    data = calib.to_dict()
    if args.step_mm is not None:
        data["position_step_mm"] = args.step_mm
    try:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(data, indent=1) + "\n")
    except OSError as exc:
        raise CliError(f"cannot write {args.out}: {exc.strerror or exc}", 1) from None
    x, y, z = calib.camera.centre
    print(f"wrote {args.out}: focal {calib.camera.K[0, 0]:.0f} px, camera at ({x:.0f}, {y:.0f}, {z:.0f}) mm, "
          f"marker reprojection error {error:.2f} px")
    if error > 2.0:
        print("warning: the error is large; take the photo again with the mat flat and sharp")
    print("use it: highway-referee serve --camera 0 --game tokyo-highway "
          f"--calibration {shlex.quote(str(args.out))}")
    return 0


def register(cli: CommandTree) -> None:
    cli.group(("tokyo",), help="Tokyo Highway tools")
    cli.add(("tokyo", "calibrate"), _setup, _run,
            help="calibrate the camera from a photo of the Tokyo Highway mat's corner markers")
