"""Can this camera set-up referee? One frame of the printed sheet -> what the camera sees of it and a
verdict with what to change (`highway-referee camera check`, docs/vision/localisation.md "Camera
check").

Measured: the sheet's markers, pixels per mm on the board, tilt and height (vision.pose), sharpness
(the blur of the markers' black/white edges), exposure and glare per third of the board, and the
smallest die top face anywhere on the board in pixels. The limits below are where the board reader
was measured to fall off on renders (`eval board`, docs/vision/localisation.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.board3d import DIE_MM, smallest_face_px, top_offset_mm
from vision.localise import LocaliseError, SheetSpec, detect_sheet_markers, localise
from vision.pose import estimate_pose
from vision.types import check_image


@dataclass(frozen=True)
class Limits:
    """The envelope: a set-up outside any of these is refused, with the reason."""

    # measured on renders (docs/vision/localisation.md "Camera check"): dice on cells read at 0-45
    # degrees, the tray's dice less well beyond 30; 8-9 px faces misread, 11 px faces still read.
    # Whole matches (`eval match`, tuning seeds, "The check against whole matches"): 11.8-12 px faces
    # (1280x720, 1000 mm, 20 degrees) read every move, 9.8-10.1 px (the same at 30 degrees) lose moves;
    # edges spread over 1.06-1.15 mm there still read every move: at 720p from 1000 mm that spread is
    # the pixels' own (sigma 0.97 px, 1.1 mm a pixel), which the face limit already judges
    max_tilt_deg: float = 35.0
    min_face_px: float = 11.0  # smallest die top face anywhere on the board
    max_blur_mm: float = 1.2  # edge blur (Gaussian sigma) on the board; a pip is ~3 mm across
    max_glare: float = 0.05  # share of a third's printed ink washed out to white (a lamp's reflection)
    min_median_grey: float = 60.0  # board too dark (over-exposure shows as print washed out: glare)


def _edge_blur_px(gray: np.ndarray, quad: np.ndarray) -> float | None:
    """Sigma (px) of the blur of a marker's edges: for a blurred step, the steepest gradient is
    contrast / (sigma * sqrt(2 pi))."""
    x0, y0 = np.floor(quad.min(axis=0)).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int)
    h, w = gray.shape
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    patch = gray[y0:y1, x0:x1].astype(np.float32)
    gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3) / 8.0
    gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3) / 8.0
    grad = float(np.percentile(np.hypot(gx, gy), 99.5))
    contrast = float(np.percentile(patch, 95) - np.percentile(patch, 5))
    if grad <= 1e-3 or contrast < 30:
        return None
    return contrast / (grad * np.sqrt(2 * np.pi))


def _thirds(top: np.ndarray, reference_rgb: np.ndarray | None) -> dict[str, dict[str, float]]:
    """Per third of the board: glare and median grey. Glare is the share of the printed ink (dark in
    the sheet's own drawing) that shows white: what a reflection hides, a pip there would lose too.
    Bright paper alone is no glare (renders and cameras often clip white paper, the print and the
    pips stay dark). Without the drawing, the share of clipped pixels is all there is."""
    grey = cv2.cvtColor(top, cv2.COLOR_BGR2GRAY)
    h, w = grey.shape
    ink = None
    if reference_rgb is not None:
        ref = cv2.cvtColor(reference_rgb, cv2.COLOR_RGB2GRAY)
        ink = cv2.resize(ref, (w, h), interpolation=cv2.INTER_AREA) < 100
    out = {}
    for name, (a, b) in zip(("left", "middle", "right"), ((0, w // 3), (w // 3, 2 * w // 3), (2 * w // 3, w)),
                            strict=True):
        part = grey[:, a:b]
        if ink is not None and ink[:, a:b].any():
            glare = float(np.mean(part[ink[:, a:b]] >= 245))
        else:
            glare = float(np.mean(part >= 254))
        out[name] = {"glare": round(glare, 4), "median_grey": float(np.median(part))}
    return out


def _in_frame(points_px: np.ndarray, size: tuple[int, int], edge: float = 2.0) -> bool:
    p = np.asarray(points_px, np.float64).reshape(-1, 2)
    w, h = size
    return bool((p[:, 0] >= edge).all() and (p[:, 1] >= edge).all() and (p[:, 0] <= w - 1 - edge).all()
                and (p[:, 1] <= h - 1 - edge).all())


def _more_pixels(scale: float, size: tuple[int, int], board_name: str) -> list[str]:
    """What to change when the board needs `scale` times more pixels per mm: the next common camera
    resolution that gives them, or the camera that much closer."""
    w, h = size
    out = []
    std = next(((a, b) for a, b in ((1280, 720), (1920, 1080), (2560, 1440), (3840, 2160))
                if a >= w * scale and b >= h * scale), None)
    if std is not None and std[0] > w:
        out.append(f"{std[0]}x{std[1]} or better is needed for the {board_name} (now {w}x{h})")
    out.append(f"or bring the camera closer so the {board_name} fills the frame "
               f"(about {100 * (1 - 1 / scale):.0f} % closer)")
    return out


def check_camera(image: np.ndarray, spec: SheetSpec, cells_mm: np.ndarray, board_name: str = "board",
                 focal_px: float | None = None, limits: Limits = Limits(),
                 reference_rgb: np.ndarray | None = None) -> dict[str, Any]:
    """The check as a JSON-ready dict: measurements, `inside_envelope`, `reasons` and `advice`.
    `reference_rgb`: the sheet as printed (any resolution), for telling glare from bright paper."""
    check_image(image)
    h, w = image.shape[:2]
    report: dict[str, Any] = {"image_size": [w, h], "sheet": spec.kind}
    found = detect_sheet_markers(image, spec)
    wanted = sorted(spec.marker_corners())
    report["markers_found"] = sorted(found)
    report["markers_missing"] = [m for m in wanted if m not in found]
    reasons: list[str] = []
    advice: list[str] = []
    try:
        calib = localise(image, spec, markers=found)
    except LocaliseError as exc:
        report.update(localised=False, inside_envelope=False,
                      reasons=[f"the {board_name} was not found: {exc}"],
                      advice=[f"put the whole printed {board_name} in view, with its four corner markers "
                              "uncovered, flat and lit"])
        return report
    pose = estimate_pose(calib, focal_px)
    cells = np.asarray(cells_mm, np.float64).reshape(-1, 2)
    ppm = pose.px_per_mm(cells, 0.0)
    face = smallest_face_px(pose, cells)
    offsets = [float(np.linalg.norm(top_offset_mm(pose, c, DIE_MM))) for c in cells]
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    blurs = [b for m in found for b in [_edge_blur_px(gray, found[m])] if b is not None]
    blur_px = float(np.median(blurs)) if blurs else None
    marker_ppm = float(np.median(pose.px_per_mm(np.array([spec.marker_centres()[m] for m in found]))))
    blur_mm = blur_px / marker_ppm if blur_px is not None else None
    thirds = _thirds(calib.rectify(image, 2.0), reference_rgb)
    centre = np.array([calib.sheet_size_mm[0] / 2, calib.sheet_size_mm[1] / 2])
    horiz = float(np.linalg.norm(pose.nadir_mm() - centre))
    view_deg = float(np.degrees(np.arctan2(horiz, pose.height_mm)))
    report.update(
        localised=True, marker_error_mm=round(calib.error_mm, 3),
        px_per_mm={"min": round(float(ppm.min()), 3), "median": round(float(np.median(ppm)), 3),
                    "max": round(float(ppm.max()), 3)},
        tilt_deg=round(pose.tilt_deg, 2), view_angle_deg=round(view_deg, 2),
        camera_height_mm=round(pose.height_mm, 1), focal_px=round(pose.focal_px, 1),
        focal_source=pose.focal_source,
        sharpness={"edge_blur_px": None if blur_px is None else round(blur_px, 3),
                   "edge_blur_mm": None if blur_mm is None else round(blur_mm, 3)},
        exposure={"median_grey": float(np.median([t["median_grey"] for t in thirds.values()])),
                  "thirds": thirds},
        smallest_die_face_px=round(face, 1), largest_top_offset_mm=round(max(offsets), 1),
    )
    # a marker the fit puts outside the frame is out of view, not covered: the referee places the board
    # from the others (vision.localise: three as a camera pose); what matters then is whether every cell
    # (a die standing on it included) is still in the frame
    printed = spec.marker_corners()
    out_of_view = [m for m in report["markers_missing"] if not _in_frame(calib.to_image(printed[m]), (w, h))]
    covered = [m for m in report["markers_missing"] if m not in out_of_view]
    cells_out = [i for i, (cx, cy) in enumerate(cells) if not _in_frame(pose.project(np.array(
        [[cx + dx, cy + dy, z] for dx in (-13, 13) for dy in (-13, 13) for z in (0.0, DIE_MM)])), (w, h))]
    report.update(markers_out_of_view=out_of_view, cells_out_of_view=len(cells_out))
    if covered:
        reasons.append(f"markers {covered} not seen")
        advice.append(f"uncover the {board_name}'s corner markers {covered} and keep all four in view")
    if cells_out:
        reasons.append(f"{len(cells_out)} cells of the {board_name} are out of the frame")
        advice.append(f"raise the camera or aim it at the {board_name}'s centre so all of it is in view")
    tilt = max(pose.tilt_deg, view_deg)
    if tilt > limits.max_tilt_deg:
        reasons.append(f"the camera looks at the {board_name} {tilt:.0f} degrees from straight down "
                       f"(at most {limits.max_tilt_deg:.0f})")
        need = horiz / np.tan(np.radians(limits.max_tilt_deg))
        if need > pose.height_mm:
            cm = np.ceil((need - pose.height_mm) / 100) * 10  # whole 10 cm steps: a person's estimate
            advice.append(f"raise the camera about {cm:.0f} cm, or move it over the {board_name}'s centre")
        else:
            advice.append("point the camera more straight down")
    if face < limits.min_face_px:
        reasons.append(f"the smallest die face is {face:.0f} px (at least {limits.min_face_px:.0f} needed)")
        advice += _more_pixels(limits.min_face_px / face, (w, h), board_name)
    if blur_mm is not None and blur_mm > limits.max_blur_mm:
        reasons.append(f"the picture is blurred or too coarse (edges spread over {blur_mm:.1f} mm on the "
                       f"board, at most {limits.max_blur_mm})")
        if blur_px is not None and blur_px < 1.2:  # sharp pixels, too few of them
            advice += _more_pixels(blur_mm / limits.max_blur_mm, (w, h), board_name)
        else:
            advice.append("focus the camera on the board (or more light, so it needs no long exposure)")
    for name, t in thirds.items():
        if t["glare"] > limits.max_glare:
            share = f"{100 * t['glare']:.0f} % of its print washed out"
            reasons.append(f"too much glare on the {name} third ({share})")
            advice.append(f"move the lamp or turn the {board_name} so no light reflects off its {name} third")
    grey = report["exposure"]["median_grey"]
    if grey < limits.min_median_grey:
        reasons.append(f"the {board_name} is too dark (median grey {grey:.0f})")
        advice.append("more light on the table")
    report.update(inside_envelope=not reasons, reasons=reasons, advice=advice, limits=limits.__dict__)
    return report
