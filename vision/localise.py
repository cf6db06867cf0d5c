"""Board localisation: the four ArUco markers of a printed sheet -> a homography from image pixels to
sheet millimetres -> a rectified top view.

A `Calibration` is what one table's camera setup needs (sheet kind, size, homography, image size) and
is saved as JSON per table. A `Localiser` keeps the last good calibration while markers are hidden
(hands over the board, a die on a corner) and re-localises when the visible markers no longer sit
where the calibration puts them, i.e. the camera or the sheet moved.

Hard frames (motion blur, small markers at a steep angle): `detect_sheet_markers` retries with other
detector settings when the plain pass misses some of the sheet's markers, and `localise` refuses a fit
whose markers disagree or that extrapolates the sheet from too little (docs/vision/localisation.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.jsonfile import read_json_object, write_json
from vision.markers import SHEET_BASE_IDS, dictionary, draw_corner_markers
from vision.types import VisionError, check_image


class LocaliseError(VisionError):
    """The sheet could not be located in this image (too few markers, degenerate geometry)."""


class _NullCanvas:
    """Lets `draw_corner_markers` report marker centres without drawing anything."""

    def rect(self, *args: Any, **kwargs: Any) -> None:
        pass


@dataclass(frozen=True)
class SheetSpec:
    """Where a sheet's markers are, in sheet mm. Matches `vision.markers.draw_corner_markers`."""

    kind: str
    width_mm: float
    height_mm: float
    marker_size_mm: float = 20.0
    margin_mm: float = 8.0

    def __post_init__(self) -> None:
        if self.kind not in SHEET_BASE_IDS:
            raise VisionError(f"unknown sheet kind {self.kind!r}; known: {', '.join(SHEET_BASE_IDS)}")

    def marker_centres(self) -> dict[int, tuple[float, float]]:
        return draw_corner_markers(_NullCanvas(), self.kind, self.width_mm, self.height_mm,
                                   self.marker_size_mm, self.margin_mm)

    def marker_corners(self) -> dict[int, np.ndarray]:
        """Marker id -> its 4 corners in mm, in ArUco's order (TL, TR, BR, BL of the upright marker)."""
        h = self.marker_size_mm / 2
        offsets = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
        return {mid: np.asarray(c) + offsets for mid, c in self.marker_centres().items()}

    def outline_mm(self) -> np.ndarray:
        """The corners (4, 2) of the part of the sheet a fit must place well (here: the whole sheet)."""
        w, h = self.width_mm, self.height_mm
        return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)


def _detector_params(**overrides: Any) -> cv2.aruco.DetectorParameters:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    for name, value in overrides.items():
        setattr(params, name, value)
    return params


def _detect_gray(gray: np.ndarray, params: cv2.aruco.DetectorParameters,
                 scale: float = 1.0) -> dict[int, np.ndarray]:
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary(), params).detectMarkers(gray)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2).astype(np.float64) / scale
            for i, c in zip(ids.ravel(), corners, strict=True)}


def detect_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    """All 4x4 ArUco markers in a BGR image: id -> (4, 2) corner pixels."""
    check_image(image)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return _detect_gray(gray, _detector_params())


def _sharpened(gray: np.ndarray) -> np.ndarray:
    # unsharp mask: restores the black/white steps of small markers smeared by motion or defocus
    return cv2.addWeighted(gray, 2.0, cv2.GaussianBlur(gray, (0, 0), 2.0), -1.0, 0)


def _rescue_passes(gray: np.ndarray) -> list[Callable[[], dict[int, np.ndarray]]]:
    """Second-chance detections, cheapest first; only run when the plain pass misses markers."""
    wide = {"adaptiveThreshWinSizeMin": 3, "adaptiveThreshWinSizeMax": 53, "adaptiveThreshWinSizeStep": 4,
            "polygonalApproxAccuracyRate": 0.05}
    return [
        lambda: _detect_gray(_sharpened(gray), _detector_params()),
        lambda: _detect_gray(gray, _detector_params(minMarkerPerimeterRate=0.01, **wide)),
        lambda: _detect_gray(cv2.resize(gray, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC),
                             _detector_params(**wide), scale=2.0),
    ]


MAX_ERROR_MM = 2.5  # RMS marker-corner misfit above which a fit is refused (sharp: < 0.9, blurred: ~1.6)
MAX_SPREAD_MM = 10.0  # how far the sheet's corners may move when marker corners move by their misfit
_JITTER_PX = 1.0  # corner precision of a small blurred marker


def _fit(found: dict[int, np.ndarray], wanted: dict[int, np.ndarray],
         used: list[int]) -> tuple[np.ndarray | None, float]:
    src = np.concatenate([found[m] for m in used])
    dst = np.concatenate([wanted[m] for m in used])
    H, _ = cv2.findHomography(src, dst, 0)
    if H is None or not np.isfinite(H).all() or abs(np.linalg.det(H)) < 1e-12:
        return None, float("inf")
    proj = cv2.perspectiveTransform(src.reshape(-1, 1, 2), H).reshape(-1, 2)
    return H, float(np.sqrt(np.mean(np.sum((proj - dst) ** 2, axis=1))))


def _spread_mm(found: dict[int, np.ndarray], wanted: dict[int, np.ndarray], used: list[int],
               H: np.ndarray, spec: SheetSpec) -> float:
    """How far the sheet's corners move (mm, worst of several tries) when the marker corners are
    jittered by their own RMS misfit (at least a pixel): large when the markers are few, small,
    blurred or bunched on one side, so the homography extrapolates across the sheet from too little
    (e.g. two markers on one edge, or three smeared ones)."""
    sheet = spec.outline_mm()
    sheet_px = cv2.perspectiveTransform(sheet.reshape(-1, 1, 2), np.linalg.inv(H))
    src = np.concatenate([found[m] for m in used])
    dst = np.concatenate([wanted[m] for m in used])
    # the corners' own misfit (in px) says how precise they are; never assume better than ~1 px
    back = cv2.perspectiveTransform(dst.reshape(-1, 1, 2), np.linalg.inv(H)).reshape(-1, 2)
    sigma = max(_JITTER_PX, float(np.sqrt(np.mean(np.sum((back - src) ** 2, axis=1)))))
    rng = np.random.default_rng(0)  # fixed: the same frame always gets the same verdict
    worst = 0.0
    for _ in range(12):
        Hj, _ = cv2.findHomography(src + rng.normal(0, sigma, src.shape), dst, 0)
        if Hj is None or not np.isfinite(Hj).all():
            return float("inf")
        moved = cv2.perspectiveTransform(sheet_px, Hj).reshape(-1, 2)
        worst = max(worst, float(np.linalg.norm(moved - sheet, axis=1).max()))
    return worst


def _posed_fit(found: dict[int, np.ndarray], wanted: dict[int, np.ndarray], used: list[int],
               size: tuple[int, int], spec: SheetSpec, focal_px: float | None,
               max_error_mm: float) -> tuple[np.ndarray, float, float] | None:
    """The sheet placed by a camera pose (planar PnP, vision.pose) fitted to the markers' corners, with
    the lens's focal length given or a common webcam's (vision.pose.ASSUMED_FOV_DEG): (image px -> mm
    homography, RMS corner misfit in mm, spread in mm as `_spread_mm` measures it for a homography).
    Two or three markers that leave a homography free to swing (bunched, small, smeared) pin a pose
    down: it cannot bend the sheet. None when no pose fits within `max_error_mm`."""
    from vision.pose import assumed_focal_px, pose_from_points
    from vision.types import VisionError

    f = focal_px or assumed_focal_px(size)
    src = np.concatenate([found[m] for m in used]).astype(np.float64)
    dst = np.concatenate([wanted[m] for m in used]).astype(np.float64)

    def fit(px: np.ndarray) -> np.ndarray | None:
        try:
            pose = pose_from_points(dst, px, size, f, "given" if focal_px else "assumed")
        except (VisionError, cv2.error):
            return None
        H = np.linalg.inv(pose.plane_homography(0.0))
        return H / H[2, 2]

    H = fit(src)
    if H is None:
        return None
    mm = cv2.perspectiveTransform(src.reshape(-1, 1, 2), H).reshape(-1, 2)
    err = float(np.sqrt(np.mean(np.sum((mm - dst) ** 2, axis=1))))
    if err > max_error_mm:
        return None
    sheet = spec.outline_mm()
    sheet_px = cv2.perspectiveTransform(sheet.reshape(-1, 1, 2), np.linalg.inv(H))
    back = cv2.perspectiveTransform(dst.reshape(-1, 1, 2), np.linalg.inv(H)).reshape(-1, 2)
    sigma = max(_JITTER_PX, float(np.sqrt(np.mean(np.sum((back - src) ** 2, axis=1)))))
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(12):
        Hj = fit(src + rng.normal(0, sigma, src.shape))
        if Hj is None:
            return None
        worst = max(worst, float(np.linalg.norm(cv2.perspectiveTransform(sheet_px, Hj).reshape(-1, 2) - sheet,
                                                axis=1).max()))
    return H, err, worst


def _agrees(found: dict[int, np.ndarray], wanted: dict[int, np.ndarray], mid: int,
            corners: np.ndarray) -> bool:
    """Does a marker found by a later pass fit one homography with the markers already found?
    (Nothing found yet: nothing to check against; `localise` still checks the final fit.)"""
    if not found:
        return True
    _, err = _fit({**found, mid: corners}, wanted, sorted([*found, mid]))
    return err <= MAX_ERROR_MM


def detect_sheet_markers(image: np.ndarray, spec: SheetSpec, in_view: set[int] | None = None,
                         enough: Callable[[dict[int, np.ndarray]], bool] | None = None,
                         ) -> dict[int, np.ndarray]:
    """The sheet's markers: id -> (4, 2) corner pixels. A plain detection first; when it misses some
    of the sheet's four markers (blur, glare, small markers at a steep angle), sharpened, wider-
    threshold and upscaled passes look for the missing ones. A marker found only by a later pass is
    kept only if it sits where the markers already found put it; markers of other sheets are dropped.
    `in_view`: the markers that can be in the frame at all (the rest lie outside it, where the kept
    calibration puts them): the passes do not search for the others, which no pass can find.
    `enough`: whether the markers found so far already settle the question (no further pass runs)."""
    check_image(image)
    wanted = spec.marker_corners()
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    found = {m: c for m, c in _detect_gray(gray, _detector_params()).items() if m in wanted}
    sought = set(wanted) if in_view is None else set(wanted) & set(in_view)
    for run_pass in _rescue_passes(gray):
        if sought <= set(found) or (enough is not None and enough(found)):
            break
        extra = {m: c for m, c in run_pass().items() if m in wanted and m not in found}
        # accept the agreeing ones one at a time, so each new marker is checked against all before it
        for mid in sorted(extra):
            if _agrees(found, wanted, mid, extra[mid]):
                found[mid] = extra[mid]
    return found


@dataclass
class Calibration:
    """Image pixels -> sheet mm for one table and camera."""

    sheet: str
    sheet_size_mm: tuple[float, float]
    homography: np.ndarray  # 3x3, image px -> sheet mm
    image_size: tuple[int, int]  # (width, height) of the frames it was made from
    markers_used: list[int] = field(default_factory=list)
    error_mm: float = 0.0  # RMS reprojection error of the marker corners
    created: float = field(default_factory=time.time)
    marker_size_mm: float = 20.0
    margin_mm: float = 8.0

    def spec(self) -> SheetSpec:
        return SheetSpec(self.sheet, *self.sheet_size_mm, self.marker_size_mm, self.margin_mm)

    def to_sheet(self, points_px: np.ndarray) -> np.ndarray:
        """Image pixels (N,2) -> sheet mm (N,2)."""
        pts = np.asarray(points_px, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)

    def to_image(self, points_mm: np.ndarray) -> np.ndarray:
        """Sheet mm (N,2) -> image pixels (N,2)."""
        pts = np.asarray(points_mm, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, np.linalg.inv(self.homography)).reshape(-1, 2)

    def rectify(self, image: np.ndarray, px_per_mm: float = 2.0) -> np.ndarray:
        """Top view of the sheet at `px_per_mm`; pixel (u, v) shows sheet point (u, v) / px_per_mm."""
        check_image(image)
        h, w = image.shape[:2]
        if (w, h) != tuple(self.image_size):
            raise VisionError(f"frame is {w}x{h} but the calibration was made on "
                              f"{self.image_size[0]}x{self.image_size[1]} frames; re-localise")
        if not 0.05 <= px_per_mm <= 40:
            raise VisionError(f"px_per_mm must be in 0.05..40, got {px_per_mm}")
        scale = np.diag([px_per_mm, px_per_mm, 1.0])
        size = (round(self.sheet_size_mm[0] * px_per_mm), round(self.sheet_size_mm[1] * px_per_mm))
        return cv2.warpPerspective(image, scale @ self.homography, size, flags=cv2.INTER_LINEAR)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["homography"] = [[float(v) for v in row] for row in self.homography]
        d["sheet_size_mm"] = list(self.sheet_size_mm)
        d["image_size"] = list(self.image_size)
        return d

    @classmethod
    def from_json(cls, data: dict[str, Any], where: str = "calibration") -> Calibration:
        try:
            H = np.asarray(data["homography"], np.float64)
            if H.shape != (3, 3) or not np.isfinite(H).all():
                raise ValueError("homography must be a finite 3x3 matrix")
            return cls(sheet=str(data["sheet"]), sheet_size_mm=tuple(map(float, data["sheet_size_mm"])),
                       homography=H, image_size=tuple(map(int, data["image_size"])),
                       markers_used=[int(m) for m in data.get("markers_used", [])],
                       error_mm=float(data.get("error_mm", 0.0)), created=float(data.get("created", 0.0)),
                       marker_size_mm=float(data.get("marker_size_mm", 20.0)),
                       margin_mm=float(data.get("margin_mm", 8.0)))
        except (KeyError, TypeError, ValueError) as exc:
            raise VisionError(f"{where}: not a valid calibration: {exc}") from exc

    def save(self, path: Path | str) -> Path:
        return write_json(path, self.to_json())  # never leaves a half-written calibration behind

    @classmethod
    def load(cls, path: Path | str) -> Calibration:
        return cls.from_json(read_json_object(path, "calibration"), str(path))


def localise(image: np.ndarray, spec: SheetSpec, min_markers: int = 2,
             markers: dict[int, np.ndarray] | None = None,
             max_error_mm: float = MAX_ERROR_MM, max_spread_mm: float = MAX_SPREAD_MM,
             focal_px: float | None = None) -> Calibration:
    """Locate the sheet from its markers (all four corners of each). Two markers suffice for a
    homography (8 points); fewer raises LocaliseError naming which markers were seen. A fit whose
    marker corners miss by more than `max_error_mm` (RMS) is retried without its worst marker (when
    that still leaves `min_markers`) and otherwise refused: a wrong homography is worse than none. So is
    a fit whose sheet corners swing by more than `max_spread_mm` under ~1 px of marker-corner noise."""
    check_image(image)
    found = detect_sheet_markers(image, spec) if markers is None else markers
    wanted = spec.marker_corners()
    used = sorted(m for m in found if m in wanted)
    if len(used) < min_markers:
        others = sorted(m for m in found if m not in wanted)
        extra = f" (other markers seen: {others})" if others else ""
        raise LocaliseError(f"sheet {spec.kind!r}: found {len(used)} of its 4 markers {sorted(wanted)} "
                            f"(seen: {used}), need {min_markers}{extra}")
    H, err = _fit(found, wanted, used)
    if H is None:
        raise LocaliseError(f"sheet {spec.kind!r}: markers {used} give a degenerate homography")
    if err > max_error_mm:
        # one misread or misplaced marker (a piece over it, a reflection) spoils the fit: try without each
        subsets = [[m for m in used if m != drop] for drop in used] if len(used) > min_markers else []
        fits = [(e, h, sub) for sub in subsets for h, e in [_fit(found, wanted, sub)] if h is not None]
        best = min(fits, key=lambda f: f[0], default=None)
        if best is None or best[0] > max_error_mm:
            raise LocaliseError(f"sheet {spec.kind!r}: markers {used} disagree (corner misfit "
                                f"{err:.1f} mm RMS, limit {max_error_mm} mm); not trusting this view")
        err, H, used = best
    spread = _spread_mm(found, wanted, used, H, spec)
    if spread > max_spread_mm and len(used) >= 3:
        # a homography has 8 degrees of freedom; a camera over a flat sheet has 6 once its lens is
        # known: fitted as a camera pose, three markers may place the whole sheet (two on one edge
        # leave the turn about that edge to the lens's assumed focal length: not trusted)
        posed = _posed_fit(found, wanted, used, image.shape[1::-1], spec, focal_px, max_error_mm)
        if posed is not None and posed[2] <= max_spread_mm:
            H, err, spread = posed
    if spread > max_spread_mm:
        raise LocaliseError(f"sheet {spec.kind!r}: markers {used} are too few or too close together to "
                            f"place the whole sheet (its corners are uncertain by {spread:.1f} mm, "
                            f"limit {max_spread_mm} mm); need more markers in view")
    h, w = image.shape[:2]
    return Calibration(spec.kind, (spec.width_mm, spec.height_mm), H, (w, h), used, err,
                       marker_size_mm=spec.marker_size_mm, margin_mm=spec.margin_mm)


@dataclass
class LocaliseResult:
    """What the app shows: `status` is one of
    "located" (first calibration), "moved" (re-localised after movement), "steady" (markers agree),
    "kept" (too few markers; last good calibration kept), "stale" (visible markers disagree with the
    kept calibration but too few to re-localise), "none" (no calibration yet)."""

    status: str
    calibration: Calibration | None
    message: str
    markers_seen: list[int] = field(default_factory=list)
    shift_px: float = 0.0
    shift_mm: float = 0.0  # the same displacement measured on the sheet


def follow(cal: Calibration, found: dict[int, np.ndarray], spec: SheetSpec,
           max_error_mm: float = MAX_ERROR_MM) -> Calibration | None:
    """The kept calibration moved as the visible markers moved: a camera knocked by a degree or two,
    or a sheet pushed, moves its picture by a shift, a turn and a scale change (to well under a pixel
    of perspective across the sheet), which two markers far apart pin down even when they cannot place
    the sheet on their own (two on one edge: `localise` refuses them). None with fewer than two
    markers, or when the markers do not move together (RMS misfit above `max_error_mm`)."""
    wanted = spec.marker_corners()
    ids = sorted(m for m in found if m in wanted)
    if len(ids) < 2:
        return None
    before = np.concatenate([cal.to_image(wanted[m]) for m in ids]).astype(np.float32)
    now = np.concatenate([found[m] for m in ids]).astype(np.float32)
    S, _inliers = cv2.estimateAffinePartial2D(before, now, method=cv2.LMEDS)
    if S is None:
        return None
    move = np.vstack([S, [0.0, 0.0, 1.0]])
    H = cal.homography @ np.linalg.inv(move)
    H = H / H[2, 2]
    mm = cv2.perspectiveTransform(now.reshape(-1, 1, 2).astype(np.float64), H).reshape(-1, 2)
    err = float(np.sqrt(np.mean(np.sum((mm - np.concatenate([wanted[m] for m in ids])) ** 2, axis=1))))
    if not np.isfinite(err) or err > max_error_mm:
        return None
    return Calibration(cal.sheet, cal.sheet_size_mm, H, cal.image_size, ids, err,
                       marker_size_mm=cal.marker_size_mm, margin_mm=cal.margin_mm)


def markers_in_view(cal: Calibration, spec: SheetSpec, slack_px: float = 0.0) -> set[int]:
    """The sheet's markers that `cal` puts wholly inside its frames (`slack_px` more or less): a marker
    cut by the frame's edge cannot be read by any pass either."""
    w, h = cal.image_size
    out = set()
    for m, corners in spec.marker_corners().items():
        px = cal.to_image(corners)
        if (px[:, 0].min() > -slack_px and px[:, 1].min() > -slack_px and px[:, 0].max() < w + slack_px
                and px[:, 1].max() < h + slack_px):
            out.add(m)
    return out


MOVE_MM = 1.5  # mean marker-corner displacement on the sheet that counts as the camera or sheet moving
STEADY_MARKERS = 3  # this many markers where the kept calibration puts them: the sheet has not moved


class Localiser:
    """Tracks one sheet across frames. `move_mm`: mean marker-corner displacement, measured on the sheet
    (so the same at every camera resolution and distance), that counts as movement."""

    def __init__(self, spec: SheetSpec, calibration: Calibration | None = None, move_mm: float = MOVE_MM,
                 min_markers: int = 2) -> None:
        self.spec = spec
        self.calibration = calibration
        self.move_mm = move_mm
        self.min_markers = min_markers

    def update(self, image: np.ndarray) -> LocaliseResult:
        """Never raises on a bad view of the sheet; raises VisionError only on a bad frame."""
        check_image(image)
        cal = self.calibration
        h, w = image.shape[:2]
        if cal is not None and tuple(cal.image_size) != (w, h):
            cal = None  # a different camera mode: the old mapping is meaningless
        in_view = None if cal is None else markers_in_view(cal, self.spec)
        wanted = self.spec.marker_corners()

        def moved_mm(found: dict[int, np.ndarray]) -> float:
            # where the kept calibration puts the corners seen now, against where they are printed
            return float(np.mean([np.linalg.norm(cal.to_sheet(found[m]) - wanted[m], axis=1).mean()
                                  for m in found]))

        def steady(found: dict[int, np.ndarray]) -> bool:
            # STEADY_MARKERS where the kept calibration expects them: the sheet has not moved, and the
            # one not found is covered (a hand); the rescue passes (most of a frame's CPU) would only
            # find the calibration unchanged
            return cal is not None and len(found) >= STEADY_MARKERS and moved_mm(found) <= self.move_mm

        found = detect_sheet_markers(image, self.spec, in_view, enough=steady)
        seen = sorted(found)
        shift = shift_mm = 0.0
        if cal is not None and found:
            shift = float(np.mean([np.linalg.norm(found[m] - cal.to_image(wanted[m]), axis=1).mean()
                                   for m in seen]))
            shift_mm = moved_mm(found)
            if shift_mm <= self.move_mm:
                return LocaliseResult("steady", cal, f"markers {seen} where expected", seen, shift, shift_mm)
        if len(seen) >= self.min_markers:
            try:
                new = localise(image, self.spec, self.min_markers, markers=found)
            except LocaliseError as exc:
                new = None if cal is None else follow(cal, found, self.spec)
                if new is None:
                    return self._keep(cal, str(exc), seen, shift, shift_mm)
                msg = (f"camera or sheet moved by {shift_mm:.1f} mm; markers {seen} alone cannot place the "
                       "sheet, so the last calibration was moved as they moved")
                self.calibration = new
                return LocaliseResult("moved", new, msg, seen, shift, shift_mm)
            status = "located" if self.calibration is None else "moved"
            self.calibration = new
            msg = (f"sheet located from markers {seen}" if status == "located"
                   else f"camera or sheet moved by {shift_mm:.1f} mm; re-localised from markers {seen}")
            return LocaliseResult(status, new, msg, seen, shift, shift_mm)
        missing = sorted(set(self.spec.marker_corners()) - set(seen))
        reason = f"markers {missing} not visible (hidden or out of view)"
        if cal is not None and found and shift_mm > self.move_mm:
            msg = (f"{reason}; visible markers moved {shift_mm:.1f} mm, "
                   "keeping the last calibration until enough markers are visible")
            return LocaliseResult("stale", cal, msg, seen, shift, shift_mm)
        return self._keep(cal, reason, seen, shift, shift_mm)

    def _keep(self, cal: Calibration | None, reason: str, seen: list[int], shift: float,
              shift_mm: float) -> LocaliseResult:
        if cal is None:
            return LocaliseResult("none", None, f"{reason}; no calibration yet", seen, shift, shift_mm)
        return LocaliseResult("kept", cal, f"{reason}; keeping the last good calibration", seen, shift,
                              shift_mm)
