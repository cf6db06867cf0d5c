"""The camera's pose over a printed sheet, from the sheet's markers.

The markers give a homography from sheet millimetres to image pixels (`vision.localise`). With square
pixels and the principal point at the image centre, that homography also fixes the focal length
whenever the view is tilted (two orthogonality equations in 1/f^2), and then the rotation and the
camera's position (`cv2.solvePnP`, planar IPPE). A camera looking straight down shows no perspective,
so its focal length cannot be seen; a typical webcam's (70 degrees across the frame) is assumed then,
or the one learned from earlier tilted frames, or one the user gives.

World frame as in `datasets.camera`: sheet x right, y down (mm, origin top-left), z = -height, so an
object h mm tall has its top at z = -h and the camera sits at negative z.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.jsonfile import read_json_object, write_json
from vision.types import VisionError

ASSUMED_FOV_DEG = 70.0  # horizontal field of view assumed when the focal length cannot be seen
# below this much perspective across the sheet (depth change over the sheet / its depth, ~3 degrees
# of tilt on an A2 sheet from 850 mm) the focal equations are noise
_MIN_PERSPECTIVE = 0.04


@dataclass
class CameraPose:
    """Pinhole camera over the sheet: K (3x3), R (world -> camera), t (mm), for frames of `image_size`."""

    K: np.ndarray
    R: np.ndarray
    t: np.ndarray
    image_size: tuple[int, int]
    focal_source: str = "markers"  # "markers", "frames" (learned from earlier frames), "given", "assumed"
    reprojection_px: float = 0.0

    @property
    def focal_px(self) -> float:
        return float(self.K[0, 0])

    @property
    def centre_mm(self) -> np.ndarray:
        """Camera centre in the world frame (x, y, z = -height)."""
        return -self.R.T @ self.t

    @property
    def height_mm(self) -> float:
        return float(-self.centre_mm[2])

    @property
    def tilt_deg(self) -> float:
        """Angle between the optical axis and straight down."""
        axis = self.R[2]  # the camera's z axis in world coordinates
        return float(np.degrees(np.arccos(np.clip(axis[2], -1.0, 1.0))))

    def nadir_mm(self) -> np.ndarray:
        """The sheet point straight under the camera."""
        return self.centre_mm[:2].copy()

    def plane_homography(self, height_mm: float = 0.0) -> np.ndarray:
        """3x3 map from (x, y) mm on the plane `height_mm` above the sheet to image pixels."""
        H = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t - height_mm * self.R[:, 2]])
        return H / H[2, 2]

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """(N, 2) sheet points or (N, 3) points with their height above the sheet -> (N, 2) pixels."""
        p = np.asarray(points_mm, np.float64).reshape(-1, np.shape(points_mm)[-1])
        if p.shape[1] == 2:
            p = np.column_stack([p, np.zeros(len(p))])
        world = np.column_stack([p[:, :2], -p[:, 2]])
        cam = world @ self.R.T + self.t
        if np.any(cam[:, 2] <= 1e-6):
            raise VisionError("a point lies behind the camera")
        uv = cam[:, :2] / cam[:, 2:3]
        return uv @ self.K[:2, :2].T + self.K[:2, 2]

    def px_per_mm(self, points_mm: np.ndarray, height_mm: float = 0.0) -> np.ndarray:
        """Image pixels per mm at sheet points (N, 2) on the plane `height_mm`: the geometric mean of
        the local stretch, i.e. sqrt of the area scale of the homography there."""
        H = self.plane_homography(height_mm)
        p = np.asarray(points_mm, np.float64).reshape(-1, 2)
        hom = np.column_stack([p, np.ones(len(p))]) @ H.T
        w = hom[:, 2]
        # |det J| of a homography at x is det(H) / w^3 (w = third row . x)
        return np.sqrt(np.abs(np.linalg.det(H)) / np.abs(w) ** 3)

    def to_json(self) -> dict[str, Any]:
        return {"K": self.K.tolist(), "R": self.R.tolist(), "t": self.t.tolist(),
                "image_size": list(self.image_size), "focal_source": self.focal_source,
                "reprojection_px": self.reprojection_px, "tilt_deg": round(self.tilt_deg, 2),
                "height_mm": round(self.height_mm, 1)}

    @classmethod
    def from_json(cls, data: dict[str, Any], where: str = "pose") -> CameraPose:
        try:
            K, R, t = (np.asarray(data[k], np.float64) for k in ("K", "R", "t"))
            if K.shape != (3, 3) or R.shape != (3, 3) or t.shape != (3,):
                raise ValueError("K and R must be 3x3, t a 3-vector")
            if not (np.isfinite(K).all() and np.isfinite(R).all() and np.isfinite(t).all()):
                raise ValueError("not finite")
            return cls(K, R, t, tuple(int(v) for v in data["image_size"]), str(data.get("focal_source", "")),
                       float(data.get("reprojection_px", 0.0)))
        except (KeyError, TypeError, ValueError) as exc:
            raise VisionError(f"{where}: not a valid camera pose: {exc}") from exc


    def save(self, path: Path | str) -> Path:
        """Write the pose as JSON (one file per table, beside its calibration); never half a file."""
        return write_json(path, self.to_json())

    @classmethod
    def load(cls, path: Path | str) -> CameraPose:
        return cls.from_json(read_json_object(path, "camera pose"), str(path))


def assumed_focal_px(image_size: tuple[int, int], fov_deg: float = ASSUMED_FOV_DEG) -> float:
    return image_size[0] / 2 / np.tan(np.radians(fov_deg) / 2)


def focal_equations(H_img: np.ndarray, image_size: tuple[int, int],
                    sheet_mm: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """Linear equations a * w = b in w = 1/f^2 from one view's homography (sheet mm -> image px), with
    the principal point at the image centre. Rows are weighted by how much perspective the view shows;
    an untilted view gives (near) zero rows."""
    W, Hh = image_size
    T = np.array([[1.0, 0, -W / 2], [0, 1.0, -Hh / 2], [0, 0, 1.0]])
    # scale sheet mm to ~1 so the perspective terms compare across sheet sizes
    S = np.diag([max(sheet_mm), max(sheet_mm), 1.0])
    M = T @ H_img @ S
    M = M / M[2, 2]  # the sheet origin's depth: c1, c2 are then the perspective seen across the sheet
    (a1, a2, _), (b1, b2, _), (c1, c2, _) = M
    # r1 . r2 = 0 and |r1| = |r2|, with r_i = (a_i / f, b_i / f, c_i) up to scale
    rows = np.array([a1 * a2 + b1 * b2, (a1 * a1 + b1 * b1) - (a2 * a2 + b2 * b2)])
    rhs = np.array([-c1 * c2, c2 * c2 - c1 * c1])
    persp = float(np.hypot(c1, c2))
    weight = 0.0 if persp < _MIN_PERSPECTIVE else 1.0
    return rows * weight, rhs * weight


def solve_focal(rows: np.ndarray, rhs: np.ndarray, image_size: tuple[int, int]) -> float | None:
    """Least-squares f from stacked focal equations; None when they say nothing sensible."""
    rows, rhs = np.ravel(rows), np.ravel(rhs)
    den = float(rows @ rows)
    if den < 1e-12:
        return None
    w = float(rows @ rhs) / den
    if w <= 0:
        return None
    f = 1.0 / np.sqrt(w)
    # a webcam's field of view across the frame lies between ~20 and ~150 degrees
    lo, hi = assumed_focal_px(image_size, 150.0), assumed_focal_px(image_size, 20.0)
    return float(f) if lo <= f <= hi else None


def pose_from_points(sheet_mm: np.ndarray, image_px: np.ndarray, image_size: tuple[int, int],
                     focal_px: float, focal_source: str) -> CameraPose:
    """Planar PnP (IPPE) for known focal length and centred principal point."""
    W, H = image_size
    K = np.array([[focal_px, 0, W / 2], [0, focal_px, H / 2], [0, 0, 1.0]])
    obj = np.column_stack([np.asarray(sheet_mm, np.float64).reshape(-1, 2), np.zeros(len(sheet_mm))])
    img = np.asarray(image_px, np.float64).reshape(-1, 2)
    ok, rvec, tvec = cv2.solvePnP(obj, img, K, None, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        raise VisionError("the markers do not give a camera pose")
    ok, rvec, tvec = cv2.solvePnP(obj, img, K, None, rvec, tvec, True, cv2.SOLVEPNP_ITERATIVE)
    R, _ = cv2.Rodrigues(rvec)
    t = tvec.ravel()
    proj, _ = cv2.projectPoints(obj, rvec, tvec, K, None)
    err = float(np.sqrt(np.mean(np.sum((proj.reshape(-1, 2) - img) ** 2, axis=1))))
    pose = CameraPose(K, R, t, (int(W), int(H)), focal_source, err)
    if pose.height_mm <= 0:
        raise VisionError("the markers put the camera under the table (a mirrored view?)")
    return pose


def _sheet_points(calibration: Any) -> tuple[np.ndarray, np.ndarray]:
    """Marker corners (mm) and where the calibration puts them in the image: the points the pose is
    fitted to (the calibration's homography already pooled every marker seen)."""
    corners = calibration.spec().marker_corners()
    mm = np.concatenate([corners[m] for m in sorted(corners)])
    # the sheet's own corners too: they pin the pose down across the whole sheet
    w, h = calibration.sheet_size_mm
    mm = np.concatenate([mm, [[0, 0], [w, 0], [w, h], [0, h]]])
    return mm, calibration.to_image(mm)


@dataclass
class PoseTracker:
    """Keeps one table's camera pose over frames: the focal equations of every tilted frame seen
    with this camera are pooled (a steadier focal length than any one frame gives), and the pose is
    refitted to each new calibration. `focal_px` given: that focal length is used as is."""

    focal_px: float | None = None
    _rows: list[np.ndarray] = field(default_factory=list)
    _rhs: list[np.ndarray] = field(default_factory=list)
    _size: tuple[int, int] | None = None
    pose: CameraPose | None = None
    max_frames: int = 50

    def update(self, calibration: Any) -> CameraPose:
        size = tuple(int(v) for v in calibration.image_size)
        if size != self._size:  # another camera mode: nothing learned about the old one holds
            self._rows, self._rhs, self._size = [], [], size
        H_img = np.linalg.inv(calibration.homography)
        rows, rhs = focal_equations(H_img, size, calibration.sheet_size_mm)
        if np.any(rows):
            self._rows.append(rows)
            self._rhs.append(rhs)
            del self._rows[:-self.max_frames], self._rhs[:-self.max_frames]
        if self.focal_px is not None:
            f, source = self.focal_px, "given"
        else:
            f = None
            if self._rows:
                f = solve_focal(np.concatenate(self._rows), np.concatenate(self._rhs), size)
            source = "markers" if len(self._rows) == 1 else "frames"
            if f is None:
                f, source = assumed_focal_px(size), "assumed"
        mm, px = _sheet_points(calibration)
        self.pose = pose_from_points(mm, px, size, f, source)
        return self.pose


def estimate_pose(calibration: Any, focal_px: float | None = None) -> CameraPose:
    """The camera pose of one calibration (one frame)."""
    return PoseTracker(focal_px).update(calibration)
