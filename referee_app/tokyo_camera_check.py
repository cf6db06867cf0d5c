"""`camera check --game tokyo-highway`: where a Tokyo Highway camera stands (from one photo of the
printed mat's corner markers) and what the referee was measured to do with one camera from about
there (`eval match tokyo-highway`, docs/vision/tokyo-referee.md, "One camera: the set-up envelope").

No one-camera set-up measured meets issue 19's targets (99.5 % of moves right, at most 3 questions
per 100 moves): a column one unit higher one grid step nearer the camera, a junction's top under its
road and a start column's place along its road look alike from one viewpoint. So the check says the
set-up is outside the envelope, gives the nearest measured set-up's figures, and advises a second
camera, the one change measured to settle those look-alikes.

With the other cameras' calibrations (`--calibration2`, serve's) it also reports the play area's
coverage (vision.tokyo.coverage): which part of it no camera sees, and which camera to move.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

TARGET_ACCURACY = 0.995  # issue 19: share of moves right
TARGET_QUESTIONS = 3.0  # issue 19: questions (confirmations) per 100 moves
MEASURED_TILT_DEG = (20.0, 50.0)  # the tilts MEASURED spans
MEASURED_HEIGHT_MM = (550.0, 750.0)


@dataclass(frozen=True)
class Measured:
    """One camera at `height_mm` / `tilt_deg` (1280x720, 50 degree lens): `eval match tokyo-highway
    --seeds SEEDS --camera 1280x720 --height H --tilt T`, at `commit`."""

    height_mm: float
    tilt_deg: float
    seeds: str
    moves: int
    right: int
    questions: int
    missed: int
    wrong: int
    commit: str

    @property
    def accuracy(self) -> float:
        return self.right / self.moves

    @property
    def questions_per_100(self) -> float:
        return 100.0 * self.questions / self.moves

    def meets_targets(self) -> bool:
        return self.accuracy >= TARGET_ACCURACY and self.questions_per_100 <= TARGET_QUESTIONS

    def text(self) -> str:
        return (f"{self.height_mm:g} mm / {self.tilt_deg:g} deg: {self.right}/{self.moves} moves right "
                f"({100 * self.accuracy:.0f} %), {self.questions_per_100:.0f} questions per 100 moves, "
                f"{self.missed} missed, {self.wrong} wrong (tuning seeds {self.seeds})")


# eval match on tuning seeds 21-30, one camera, 1280x720, 50 degree lens, at main 0e69175 (before the
# one-camera rules prior): docs/vision/tokyo-referee.md, "One camera: which set-ups meet the targets"
MEASURED: tuple[Measured, ...] = (
    Measured(550.0, 40.0, "21-30", 100, 96, 20, 3, 1, "0e69175"),
    Measured(650.0, 30.0, "21-30", 100, 93, 20, 6, 1, "0e69175"),
    Measured(550.0, 50.0, "21-30", 100, 92, 22, 6, 2, "0e69175"),
    Measured(750.0, 20.0, "21-30", 100, 90, 36, 8, 2, "0e69175"),
)


def camera_pose(camera: Any) -> dict[str, float]:
    """Height of the camera's centre above the table, its tilt from straight down (the optical axis's
    angle from the downward vertical) and its distance to the mat's centre, all from a calibration."""
    centre = np.asarray(camera.centre, np.float64)
    axis = np.asarray(camera.R, np.float64)[2]  # the optical axis in the world frame
    tilt = math.degrees(math.acos(max(-1.0, min(1.0, -float(axis[2]) / float(np.linalg.norm(axis))))))
    return {"camera_height_mm": float(centre[2]), "tilt_deg": tilt,
            "distance_mm": float(np.linalg.norm(centre))}


def nearest(height_mm: float, tilt_deg: float, table: tuple[Measured, ...] = MEASURED) -> Measured | None:
    """The measured set-up closest to this one (100 mm of height weigh as 10 degrees of tilt)."""
    if not table:
        return None
    return min(table, key=lambda m: math.hypot((m.height_mm - height_mm) / 100.0,
                                                (m.tilt_deg - tilt_deg) / 10.0))


def assess(height_mm: float, tilt_deg: float, table: tuple[Measured, ...] = MEASURED) -> dict[str, Any]:
    """`inside_envelope`, `reasons` and `advice` for a set-up, from the measured table."""
    reasons: list[str] = []
    advice: list[str] = []
    near = nearest(height_mm, tilt_deg, table)
    met = [m for m in table if m.meets_targets()]
    out: dict[str, Any] = {"cameras": 1, "nearest_measured": None if near is None else
                           {**asdict(near), "accuracy": round(near.accuracy, 4),
                            "questions_per_100": round(near.questions_per_100, 1)}}
    if not met:
        reasons.append(
            "one camera: no set-up measured meets the targets (99.5 % of moves right, at most "
            f"{TARGET_QUESTIONS:g} questions per 100 moves) - a column one unit higher a grid step nearer "
            "the camera, a junction's top under its road and a start column's place along its road look "
            "alike from one viewpoint")
        advice.append("add a second calibrated camera on another side of the table (about 150 degrees "
                      "around, 12-40 degrees of tilt): serve --camera2 N --calibration2 FILE")
    if near is not None:
        reasons.append("measured nearest this set-up: " + near.text())
    lo_t, hi_t = MEASURED_TILT_DEG
    lo_h, hi_h = MEASURED_HEIGHT_MM
    measured_here = lo_t - 5 <= tilt_deg <= hi_t + 5 and lo_h - 100 <= height_mm <= hi_h + 100
    if not measured_here:
        reasons.append(f"this set-up ({height_mm:.0f} mm, {tilt_deg:.0f} deg) lies outside the measured ones "
                       f"({lo_h:g}-{hi_h:g} mm, {lo_t:g}-{hi_t:g} deg): its figures are not known")
    out["inside_envelope"] = bool(measured_here and near is not None and near.meets_targets())
    out["reasons"], out["advice"] = reasons, advice
    return out


def assess_two_cameras(cameras: int) -> dict[str, Any]:
    """Several cameras: no set-up envelope was measured camera by camera, so no verdict
    (`inside_envelope` None): two cameras are the documented set-up (docs/benchmarks/referee-accuracy.md,
    `eval match tokyo-highway --cameras 2`), and the check reads camera 1's pose (and adds the coverage)."""
    return {"cameras": cameras, "nearest_measured": None, "inside_envelope": None,
            "reasons": [f"{cameras} cameras: the set-up documented for Tokyo Highway (two cameras, measured "
                        "with eval match --cameras 2: docs/benchmarks/referee-accuracy.md); the check has "
                        "no two-camera verdict: it reads camera 1's pose from its picture and, from the "
                        "cameras' calibrations, the play area's coverage"],
            "advice": []}


def check_tokyo(image: np.ndarray, focal_px: float | None = None, mat: str = "a3",
                cameras: int = 1, calibrations: list[Any] | None = None) -> dict[str, Any]:
    """The check as a JSON-ready dict, like vision.camera_check's for the dice board: the markers found,
    the camera's pose, `inside_envelope`, `reasons`, `advice` and `coverage`. `image` is camera 1's; with
    `cameras` above 1 (serve --camera2) it says so instead of the one-camera verdict. `calibrations`:
    the TokyoCalibrations of cameras 2, 3 ... (their files, as serve --calibration2 takes them); with
    camera 1's, fitted from `image`, they give the play area's coverage."""
    calibrations = list(calibrations or [])
    cameras = max(cameras, 1 + len(calibrations))
    from drawing.tokyo_mat import MAT_SIZES
    from referee_app.commands.tokyo_calibrate import calibrate_from_mat
    from vision.localise import detect_markers
    from vision.markers import sheet_marker_ids

    h, w = image.shape[:2]
    wanted = list(sheet_marker_ids("tokyo-highway"))
    found = detect_markers(image)
    report: dict[str, Any] = {"image_size": [w, h], "sheet": "tokyo-highway", "mat": mat,
                              "markers_found": sorted(m for m in wanted if m in found),
                              "markers_missing": [m for m in wanted if m not in found]}
    try:
        calib, error = calibrate_from_mat(image, MAT_SIZES[mat], focal_px)
    except ValueError as exc:
        report.update(localised=False, inside_envelope=False, reasons=[f"the mat was not found: {exc}"],
                      advice=["put the whole printed mat in view, its four corner markers uncovered, flat "
                              "and lit"])
        return report
    pose = camera_pose(calib.camera)
    report.update(localised=True, **pose, focal_px=float(calib.camera.K[0, 0]),
                  focal_source="given" if focal_px else "fitted to the markers",
                  reprojection_error_px=round(error, 3))
    report.update(assess(pose["camera_height_mm"], pose["tilt_deg"]) if cameras < 2
                  else assess_two_cameras(cameras))
    add_coverage(report, [calib] + calibrations, cameras)
    return report


def add_coverage(report: dict[str, Any], calibrations: list[Any], cameras: int) -> None:
    """The `coverage` field (vision.tokyo.coverage) of the cameras whose calibrations are known, its
    summary among the reasons and its advice among the advice (the page lists both); None, with the
    reason, while a camera of the match has no calibration."""
    from vision.tokyo.coverage import coverage_report

    if len(calibrations) < cameras:
        report["coverage"] = None
        missing = ", ".join(str(k) for k in range(len(calibrations) + 1, cameras + 1))
        report["reasons"].append(
            f"coverage: not checked - no calibration of camera {missing} here (camera check --calibration2 "
            "FILE, serve --calibration2 FILE)")
        return
    coverage = coverage_report([c.camera for c in calibrations], unit_mm=calibrations[0].sizes.unit_mm)
    report["coverage"] = coverage
    report["reasons"].append("coverage: " + coverage["text"])
    report["advice"].extend(coverage["advice"])


def format_tokyo(report: dict[str, Any]) -> str:
    lines = [f"markers found: {report['markers_found']} (missing {report['markers_missing']})"]
    if report.get("localised"):
        lines.append(
            f"camera height: {report['camera_height_mm'] / 10:.0f} cm, tilt {report['tilt_deg']:.1f} deg "
            f"from straight down, {report['distance_mm'] / 10:.0f} cm from the mat's centre (focal length "
            f"{report['focal_px']:.0f} px, {report['focal_source']}; marker reprojection error "
            f"{report['reprojection_error_px']:.2f} px)")
    verdict = report["inside_envelope"]
    lines.append(f"inside_envelope: {'unknown' if verdict is None else 'true' if verdict else 'false'}")
    lines += [f"  because {r}" for r in report["reasons"]]
    lines += [f"  -> {a}" for a in report["advice"]]
    return "\n".join(lines)
