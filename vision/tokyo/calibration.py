"""Camera calibration and piece sizes for reading Tokyo Highway.

World frame (millimetres, right-handed): the table is the plane z = 0, x to the right, y away from the
camera side, z up. Supports have height, so the reader needs a full pinhole camera (not just a table
homography) to turn a support's image extent into a height in column units.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from vision.types import VisionError


@dataclass(frozen=True)
class PieceSizes:
    """Physical sizes of the set (mm). Measure your own set and pass them in; the defaults match the
    rules engine's default geometry (engine/tokyo/config.py), which vision does not import."""

    unit_mm: float = 10.0  # height of one column
    column_diameter_mm: float = 15.0
    stick_length_mm: float = 114.0
    stick_width_mm: float = 10.0
    stick_thickness_mm: float = 3.0
    car_length_mm: float = 18.0
    car_width_mm: float = 10.0
    car_height_mm: float = 8.0


@dataclass
class PinholeCamera:
    """K (3x3 intrinsics), R (3x3 world->camera rotation), t (3,) so that X_cam = R @ X + t."""

    K: np.ndarray
    R: np.ndarray
    t: np.ndarray
    width: int
    height: int

    @property
    def centre(self) -> np.ndarray:
        return -self.R.T @ self.t

    def to_camera(self, pts: np.ndarray) -> np.ndarray:
        return _plus_row(np.asarray(pts, np.float64).reshape(-1, 3) @ self.R.T, self.t)

    def project(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """World points (N,3) -> pixels (N,2) and camera depth (N,)."""
        pc = self.to_camera(pts)
        z = np.maximum(pc[:, 2], 1e-6)
        if len(pc) < _BY_COLUMN:
            return (pc[:, :2] / z[:, None]) @ self.K[:2, :2].T + self.K[:2, 2], pc[:, 2]
        q = np.empty((len(pc), 2))  # pc[:, :2] / z[:, None], the same divisions a column at a time
        for j in range(2):
            np.divide(pc[:, j], z, out=q[:, j])
        return _plus_row(q @ self.K[:2, :2].T, self.K[:2, 2]), pc[:, 2]

    def table_homography(self, z: float = 0.0) -> np.ndarray:
        """3x3 map from plane-z world (x, y, 1) to pixels."""
        P = self.K @ np.hstack([self.R, self.t[:, None]])
        return P[:, [0, 1, 3]] + z * P[:, [2]] @ np.array([[0, 0, 1.0]])

    def ray_to_plane(self, uv: np.ndarray, z: float) -> np.ndarray:
        """Back-project pixels (N,2) onto the horizontal plane at height z (mm) -> world (N,3)."""
        uv = np.asarray(uv, np.float64).reshape(-1, 2)
        d_cam = np.hstack([(uv - self.K[:2, 2]) / np.diag(self.K)[:2], np.ones((len(uv), 1))])
        d = d_cam @ self.R  # camera -> world directions (R^T d per row)
        c = self.centre
        s = (z - c[2]) / np.where(np.abs(d[:, 2]) < 1e-9, 1e-9, d[:, 2])
        return c + s[:, None] * d

    def ray_to_plane_each(self, uv: np.ndarray, z: float) -> np.ndarray:
        """`ray_to_plane` of each pixel on its own, in one call: the rows' products by R one row at a
        time in one stacked product (NumPy's vector-by-matrix kernel per row, as for a single row; a
        product of several rows at once can differ in the last bit)."""
        uv = np.asarray(uv, np.float64).reshape(-1, 2)
        d_cam = np.hstack([(uv - self.K[:2, 2]) / np.diag(self.K)[:2], np.ones((len(uv), 1))])
        d = np.matmul(d_cam[:, None, :], self.R)[:, 0]
        c = self.centre
        s = (z - c[2]) / np.where(np.abs(d[:, 2]) < 1e-9, 1e-9, d[:, 2])
        return c + s[:, None] * d

    def project_each(self, pts: np.ndarray) -> np.ndarray:
        """Pixels (B, N, 2) of B point sets (B, N, 3), N < _BY_COLUMN, each as `project` gives them
        alone: one stacked product runs each set's (N, 3) by (3, 3) product on its own, the kernel a
        single set's call runs (fit_height projects 25 candidate outlines at a time)."""
        pc = np.matmul(np.asarray(pts, np.float64), self.R.T) + self.t
        z = np.maximum(pc[..., 2], 1e-6)
        return np.matmul(pc[..., :2] / z[..., None], self.K[:2, :2].T) + self.K[:2, 2]

    def to_dict(self) -> dict[str, Any]:
        return {
            "K": np.round(self.K, 6).tolist(),
            "R": np.round(self.R, 9).tolist(),
            "t": np.round(self.t, 6).tolist(),
            "width": self.width,
            "height": self.height,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PinholeCamera:
        return cls(
            np.asarray(d["K"], np.float64),
            np.asarray(d["R"], np.float64),
            np.asarray(d["t"], np.float64),
            int(d["width"]),
            int(d["height"]),
        )


@dataclass
class TokyoCalibration:
    """What the reader knows about the table: the camera and the set's sizes."""

    camera: PinholeCamera
    sizes: PieceSizes = field(default_factory=PieceSizes)

    def to_dict(self) -> dict[str, Any]:
        return {"camera": self.camera.to_dict(), "sizes": asdict(self.sizes)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TokyoCalibration:
        try:
            cam = PinholeCamera.from_dict(d["camera"])
            sizes = PieceSizes(**d.get("sizes", {}))
        except (KeyError, TypeError, ValueError) as exc:
            raise VisionError(f"calibration is malformed: {exc!r}") from exc
        if cam.K.shape != (3, 3) or cam.R.shape != (3, 3) or cam.t.shape != (3,):
            raise VisionError("calibration camera needs K 3x3, R 3x3 and t of length 3")
        return cls(cam, sizes)

    def local_scale(self, point: np.ndarray) -> tuple[np.ndarray, float, float]:
        """At a 3D point (mm): the image of one column unit straight up (a pixel vector), and the
        half-widths in pixels of a column and of a stick seen side on there."""
        cam, s = self.camera, self.sizes
        side = np.cross([0.0, 0.0, 1.0], point - cam.centre)
        side = side / max(float(np.linalg.norm(side)), 1e-9)
        uv, _ = cam.project(np.array([point, point + [0.0, 0.0, s.unit_mm],
                                      point + side * s.column_diameter_mm / 2,
                                      point + side * s.stick_width_mm / 2]))
        return uv[1] - uv[0], float(np.linalg.norm(uv[2] - uv[0])), float(np.linalg.norm(uv[3] - uv[0]))

    def local_scales(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`local_scale` at many points (N,3) at once: (N,2) unit vectors, (N,) column and (N,) stick
        half-widths."""
        cam, s = self.camera, self.sizes
        points = np.asarray(points, np.float64).reshape(-1, 3)
        side = np.cross([0.0, 0.0, 1.0], points - cam.centre)
        side = side / np.maximum(_norms(side), 1e-9)[:, None]
        n = len(points)
        uv, _ = cam.project(np.concatenate([points, points + [0.0, 0.0, s.unit_mm],
                                            points + side * s.column_diameter_mm / 2,
                                            points + side * s.stick_width_mm / 2]))
        base = uv[:n]
        return uv[n:2 * n] - base, _norms(uv[2 * n:3 * n] - base), _norms(uv[3 * n:] - base)


# rows from which the projections work a column at a time (below it NumPy's broadcasting is quicker)
_BY_COLUMN = 256


def _plus_row(a: np.ndarray, row: np.ndarray) -> np.ndarray:
    """`a + row` for an (N, K) float64 array and a (K,) row: the same sums; from _BY_COLUMN rows on in
    place, a column at a time (NumPy's broadcasting over a last axis of 2 or 3 runs its inner loop a
    row at a time, several times slower on the column fits' tens of thousands of points)."""
    if len(a) < _BY_COLUMN:
        return a + row
    for j in range(a.shape[1]):
        np.add(a[:, j], row[j], out=a[:, j])
    return a


def _norms(rows: np.ndarray) -> np.ndarray:
    """Each row's Euclidean norm as np.linalg.norm gives one vector's (a dot product: the same value to
    the last bit; a norm along an axis sums the squares another way and can differ in it)."""
    return np.sqrt(np.array([row @ row for row in rows], np.float64))
