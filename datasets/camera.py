"""A seeded pinhole camera looking at a flat printed sheet, for synthetic training and test scenes.

Coordinates: the sheet lies in the plane height = 0 with x to the right and y down (millimetres,
origin at the sheet's top-left corner, as in drawing.canvas). A point may carry a third
coordinate, its height above the sheet in mm (towards the camera). Internally the world frame is
(x, y, -height) so that it stays right-handed with the camera looking along +z.

The module knows nothing about dice or games: `render_sheet` shows a sheet image on a table with
lighting faults, and `SheetObject` composites small raised objects (dice, tokens) drawn from above
with a simple perspective and a soft shadow. Images are returned in BGR order (OpenCV, like
`vision.types.Frame`); the sheet is given in RGB (as drawn by the render canvas).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np


@dataclass
class Pose:
    """Intrinsics `K` (3x3), rotation `R` (world->camera) and camera centre `C` (world, mm)."""

    K: np.ndarray
    R: np.ndarray
    C: np.ndarray
    out_size: tuple[int, int]  # (width, height) of the image in pixels
    light_dir: np.ndarray = field(default_factory=lambda: np.array([0.4, 0.3]))  # shadow offset per mm height

    def homography(self) -> np.ndarray:
        """3x3 map from sheet mm (height 0) to image pixels."""
        Rt = np.column_stack([self.R[:, 0], self.R[:, 1], -self.R @ self.C])
        H = self.K @ Rt
        return H / H[2, 2]


def _look_at(C: np.ndarray, target: np.ndarray, up_hint: np.ndarray) -> np.ndarray:
    fwd = target - C
    fwd /= np.linalg.norm(fwd)
    right = np.cross(fwd, up_hint)  # image x axis
    if np.linalg.norm(right) < 1e-6:
        right = np.cross(fwd, np.array([0.0, 1.0, 0.0]))
    right /= np.linalg.norm(right)
    down = np.cross(fwd, right)
    return np.stack([right, down, fwd])


def random_pose(rng: np.random.Generator, sheet_size_mm: tuple[float, float],
                out_size: tuple[int, int] = (1280, 720), height_mm: tuple[float, float] = (350.0, 900.0),
                tilt_deg: tuple[float, float] = (0.0, 35.0), yaw_deg: tuple[float, float] = (-12.0, 12.0),
                fill: tuple[float, float] = (0.55, 0.92)) -> Pose:
    """A camera above the sheet: random height, tilt away from straight down, yaw of the sheet in the
    image and how much of the frame the sheet fills. The focal length is then chosen so the whole
    sheet is in view, which keeps every pose usable whatever the height."""
    w_mm, h_mm = sheet_size_mm
    centre = np.array([w_mm / 2, h_mm / 2, 0.0])
    target = centre + np.array([rng.uniform(-0.1, 0.1) * w_mm, rng.uniform(-0.1, 0.1) * h_mm, 0.0])
    height = rng.uniform(*height_mm)
    tilt = np.radians(rng.uniform(*tilt_deg))
    azimuth = rng.uniform(0, 2 * np.pi)
    horiz = height * np.tan(tilt)
    C = target + np.array([horiz * np.cos(azimuth), horiz * np.sin(azimuth), -height])
    yaw = np.radians(rng.uniform(*yaw_deg))
    up_hint = np.array([np.sin(yaw), -np.cos(yaw), 0.0])  # sheet "up" (-y) appears roughly up
    R = _look_at(C, target, up_hint)
    W, H = out_size
    pose = Pose(np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]]), R, C, out_size)
    corners = np.array([[0, 0], [w_mm, 0], [w_mm, h_mm], [0, h_mm]], float)
    pn = _project_normalised(pose, corners)
    span_x = max(abs(pn[:, 0]).max(), 1e-6)
    span_y = max(abs(pn[:, 1]).max(), 1e-6)
    f = rng.uniform(*fill) * min(W / 2 / span_x, H / 2 / span_y)
    pose.K = np.array([[f, 0, W / 2], [0, f, H / 2], [0, 0, 1.0]])
    ang = rng.uniform(0, 2 * np.pi)
    pose.light_dir = np.array([np.cos(ang), np.sin(ang)]) * rng.uniform(0.2, 0.7)
    return pose


def _world(points_mm: np.ndarray) -> np.ndarray:
    p = np.asarray(points_mm, float)
    p = p.reshape(-1, p.shape[-1])
    if p.shape[1] == 2:
        p = np.column_stack([p, np.zeros(len(p))])
    return np.column_stack([p[:, 0], p[:, 1], -p[:, 2]])


def _project_normalised(pose: Pose, points_mm: np.ndarray) -> np.ndarray:
    cam = (pose.R @ (_world(points_mm) - pose.C).T).T
    return cam[:, :2] / cam[:, 2:3]


def project(pose: Pose, points_mm: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
    """Sheet points (N,2) or (N,3 with height in mm) -> image pixels (N,2)."""
    cam = (pose.R @ (_world(np.asarray(points_mm, float)) - pose.C).T).T
    if np.any(cam[:, 2] <= 1e-6):
        raise ValueError("a point lies behind the camera")
    uv = cam[:, :2] / cam[:, 2:3]
    return uv @ pose.K[:2, :2].T + pose.K[:2, 2]


def depth(pose: Pose, points_mm: np.ndarray) -> np.ndarray:
    """Distance along the optical axis, for painting far objects first."""
    return (pose.R @ (_world(points_mm) - pose.C).T).T[:, 2]


def table_texture(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A plain procedural table top (BGR): wood-like streaks, cloth-like noise or a flat colour."""
    W, H = size
    kind = rng.integers(3)
    base = rng.uniform(60, 230, 3)
    if kind == 0:  # wood: stretched noise along x
        n = rng.normal(0, 1, (max(2, H // 6), 8)).astype(np.float32)
        n = cv2.resize(n, (W, H), interpolation=cv2.INTER_CUBIC)
        img = base[None, None, :] * (1 + 0.12 * n[..., None])
    elif kind == 1:  # cloth: fine noise
        n = cv2.GaussianBlur(rng.normal(0, 1, (H, W)).astype(np.float32), (0, 0), 1.2)
        img = base[None, None, :] * (1 + 0.25 * n[..., None])
    else:
        img = np.broadcast_to(base, (H, W, 3)).astype(np.float32)
    return np.ascontiguousarray(np.clip(img, 0, 255).astype(np.uint8))


@dataclass
class SheetObject:
    """A small box-shaped object standing on the sheet: `top_rgba` is its top face seen from above
    (any resolution, alpha for rounded corners), placed at `center_mm` with footprint `size_mm`
    (w, h), turned by `angle_deg`, `height_mm` tall, its sides painted `side_bgr`."""

    top_rgba: np.ndarray
    center_mm: tuple[float, float]
    size_mm: tuple[float, float]
    angle_deg: float = 0.0
    height_mm: float = 0.0
    side_bgr: tuple[int, int, int] = (200, 200, 200)

    def footprint(self, height: float = 0.0) -> np.ndarray:
        w, h = self.size_mm
        a = np.radians(self.angle_deg)
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
        pts = local @ rot.T + np.asarray(self.center_mm)
        return np.column_stack([pts, np.full(4, height)])


def _paste(img: np.ndarray, src_bgr: np.ndarray, alpha: np.ndarray, M: np.ndarray) -> None:
    W, H = img.shape[1], img.shape[0]
    warped = cv2.warpPerspective(src_bgr, M, (W, H), flags=cv2.INTER_LINEAR)
    a = cv2.warpPerspective(alpha, M, (W, H), flags=cv2.INTER_LINEAR)[..., None]
    np.copyto(img, (img * (1 - a) + warped * a).astype(np.uint8), where=a > 0)


def composite_objects(img: np.ndarray, pose: Pose, objects: Sequence[SheetObject]) -> list[np.ndarray]:
    """Draw the objects onto `img` (BGR, in place), far ones first, each with a soft shadow, its
    visible sides and its top face. Returns per object the projected box [x0, y0, x1, y1] in pixels
    of everything visible of it (top and sides), in the order given."""
    boxes: list[np.ndarray] = [np.zeros(4)] * len(objects)
    H_img, W_img = img.shape[:2]
    # shadows first, so no object's shadow is painted over another object
    shade = np.zeros((H_img, W_img), np.float32)
    for obj in objects:
        if obj.height_mm <= 0:
            continue
        base = obj.footprint(0.0)
        off = np.concatenate([base[:, :2] + pose.light_dir * obj.height_mm, base[:, :2]])
        hull = cv2.convexHull(project(pose, off).astype(np.float32))
        cv2.fillConvexPoly(shade, np.round(hull).astype(np.int32), 0.45, cv2.LINE_AA)
    if shade.any():
        shade = cv2.GaussianBlur(shade, (0, 0), 2.0)
        img[:] = (img * (1 - shade[..., None])).astype(np.uint8)
    centre_depths = [depth(pose, np.array([[*o.center_mm, o.height_mm / 2]]))[0] for o in objects]
    for k in np.argsort(centre_depths)[::-1]:
        obj = objects[k]
        bottom = project(pose, obj.footprint(0.0))
        top = project(pose, obj.footprint(obj.height_mm))
        if obj.height_mm > 0:
            faces = []
            for i in range(4):
                j = (i + 1) % 4
                quad = np.array([bottom[i], bottom[j], top[j], top[i]])
                mid3 = (obj.footprint(obj.height_mm / 2)[i] + obj.footprint(obj.height_mm / 2)[j]) / 2
                faces.append((depth(pose, mid3[None])[0], i, quad))
            for _, i, quad in sorted(faces, key=lambda f: -f[0]):
                tone = 0.55 + 0.12 * i  # each side lit a little differently
                colour = tuple(float(c) * tone for c in obj.side_bgr)
                cv2.fillConvexPoly(img, np.round(quad * 16).astype(np.int32), colour, cv2.LINE_AA, 4)
        rgba = obj.top_rgba
        th, tw = rgba.shape[:2]
        src = np.float32([[0, 0], [tw, 0], [tw, th], [0, th]])
        M = cv2.getPerspectiveTransform(src, top.astype(np.float32))
        bgr = np.ascontiguousarray(rgba[..., 2::-1])
        alpha = np.ones((th, tw), np.float32)
        if rgba.shape[2] == 4:
            alpha = rgba[..., 3].astype(np.float32) / 255.0
        _paste(img, bgr, alpha, M)
        pts = np.concatenate([bottom, top]) if obj.height_mm > 0 else top
        boxes[k] = np.array([pts[:, 0].min(), pts[:, 1].min(), pts[:, 0].max(), pts[:, 1].max()])
    return boxes


def apply_lighting(img: np.ndarray, rng: np.random.Generator, strength: float = 1.0) -> np.ndarray:
    """Uneven light (gradient and vignette), a cast shadow band and a glare spot."""
    H, W = img.shape[:2]
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    ang = rng.uniform(0, 2 * np.pi)
    grad = ((xx / W - 0.5) * np.cos(ang) + (yy / H - 0.5) * np.sin(ang))
    gain = 1.0 + strength * rng.uniform(0.1, 0.45) * grad
    r2 = ((xx - W / 2) / W) ** 2 + ((yy - H / 2) / H) ** 2
    gain *= 1.0 - strength * rng.uniform(0.0, 0.5) * r2
    gain *= rng.uniform(0.7, 1.15)
    if rng.random() < 0.5 * strength:  # a soft shadow from a person or lamp arm
        mask = np.zeros((H, W), np.float32)
        cx, cy = rng.uniform(0, W), rng.uniform(0, H)
        axes = (int(rng.uniform(0.15, 0.5) * W), int(rng.uniform(0.1, 0.35) * H))
        cv2.ellipse(mask, (int(cx), int(cy)), axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
        mask = cv2.GaussianBlur(mask, (0, 0), rng.uniform(15, 50))
        gain *= 1.0 - rng.uniform(0.15, 0.45) * mask
    out = img.astype(np.float32) * gain[..., None]
    if rng.random() < 0.5 * strength:  # glare: an additive bright spot
        spot = np.zeros((H, W), np.float32)
        cv2.circle(spot, (int(rng.uniform(0, W)), int(rng.uniform(0, H))), int(rng.uniform(10, 60)), 1.0, -1)
        spot = cv2.GaussianBlur(spot, (0, 0), rng.uniform(8, 30))
        out += rng.uniform(60, 160) * spot[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


def motion_blur(image: np.ndarray, length: int, angle: float) -> np.ndarray:
    """A straight streak of `length` px at `angle` degrees, as a camera or a die moving during the shot."""
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0
    rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), angle, 1.0)
    kernel = cv2.warpAffine(kernel, rot, (length, length))
    return cv2.filter2D(image, -1, kernel / max(float(kernel.sum()), 1e-6))


def apply_sensor(img: np.ndarray, rng: np.random.Generator, strength: float = 1.0) -> np.ndarray:
    """Defocus or motion blur, sensor noise and JPEG compression artefacts."""
    if rng.random() < 0.6 * strength:
        if rng.random() < 0.5:
            img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.4) * strength + 0.01)
        else:
            k = int(rng.integers(3, 8))
            img = motion_blur(img, k, rng.uniform(0, 180))
    sigma = rng.uniform(0.5, 6.0) * strength
    noisy = img.astype(np.float32) + rng.normal(0, sigma, img.shape).astype(np.float32)
    img = np.clip(noisy, 0, 255).astype(np.uint8)
    quality = int(rng.uniform(55, 95)) if strength > 0 else 95
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else img


def render_sheet(sheet_rgb: np.ndarray, sheet_size_mm: tuple[float, float], pose: Pose,
                 out_size: tuple[int, int] | None = None, rng: np.random.Generator | None = None,
                 background: np.ndarray | None = None, objects: Sequence[SheetObject] = (),
                 effects: float = 1.0) -> tuple[np.ndarray, list[np.ndarray]]:
    """Photograph the sheet: warp it onto a table (`background` BGR, else a procedural one), add
    `objects`, then lighting and sensor faults scaled by `effects` (0 = clean). Returns the BGR image
    and the pixel boxes of the objects (see `composite_objects`)."""
    rng = rng if rng is not None else np.random.default_rng(0)
    W, H = out_size or pose.out_size
    if background is None:
        img = table_texture(rng, (W, H))
    else:
        img = cv2.resize(background, (W, H), interpolation=cv2.INTER_AREA)
    sh, sw = sheet_rgb.shape[:2]
    px_to_mm = np.diag([sheet_size_mm[0] / sw, sheet_size_mm[1] / sh, 1.0])
    M = pose.homography() @ px_to_mm
    alpha = np.ones((sh, sw), np.float32)
    _paste(img, np.ascontiguousarray(sheet_rgb[..., ::-1]), alpha, M)
    boxes = composite_objects(img, pose, objects)
    if effects > 0:
        img = apply_lighting(img, rng, effects)
        img = apply_sensor(img, rng, effects)
    return img, boxes
