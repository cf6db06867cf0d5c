"""Render a Tokyo Highway scene with a pinhole camera: painter's algorithm over small convex pieces
(stick slices, column units, car boxes), Lambert lighting, soft cast shadows on the table, table
textures, distractors (hand, glare) and sensor noise. Returns the image and exact labels in the
realdata format plus supports, heights and the camera.

An owner buffer (which piece painted each pixel) is drawn alongside, so the `top` of each crossing is
what the image actually shows there rather than a depth guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from datasets.tokyo.camera import camera_looking_at
from datasets.tokyo.scene import (
    CAR_SETS,
    JUNCTION_RGB,
    PALETTE,
    SUPPORT_RGB,
    Rod,
    colour_rgb,
    resolve_rods,
    seg_intersection,
)
from datasets.tokyo.textures import TEXTURES
from vision.tokyo.calibration import PieceSizes, PinholeCamera

OWNER_TABLE, OWNER_SUPPORT, OWNER_CAR, OWNER_OTHER = 0, 10000, 20000, 30000


@dataclass
class _Piece:
    depth: float
    faces: list[tuple[np.ndarray, tuple[float, float, float]]]  # (3D polygon, BGR)
    owner: int
    # dark 3D polylines: column seams (front half only) and the bevelled long edges of sticks
    outline: list[tuple[np.ndarray, bool]] = field(default_factory=list)


def _shade(rgb: tuple[int, int, int], normal: np.ndarray, light: np.ndarray, ambient: float) -> tuple:
    k = ambient + (1 - ambient) * max(0.0, float(np.dot(normal, -light)))
    return tuple(float(c) * k for c in rgb[::-1])


def _box_faces(
    c: np.ndarray, axes: list[np.ndarray], ends: bool = True
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Faces (polygon, outward normal) of a box with centre c and half-axis vectors (u, s, n)."""
    u, s, n = axes
    faces = []
    for ax, o1, o2, keep in ((n, u, s, True), (s, u, n, True), (u, s, n, ends)):
        if not keep:
            continue
        for sign in (1, -1):
            fc = c + sign * ax
            poly = np.array([fc + o1 + o2, fc + o1 - o2, fc - o1 - o2, fc - o1 + o2])
            faces.append((poly, sign * ax / np.linalg.norm(ax)))
    return faces


def _cylinder_faces(c0: np.ndarray, c1: np.ndarray, r: float, n: int = 20):
    axis = c1 - c0
    a = axis / np.linalg.norm(axis)
    ref = np.array([1.0, 0, 0]) if abs(a[0]) < 0.9 else np.array([0, 1.0, 0])
    e1 = np.cross(a, ref)
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(a, e1)
    ang = np.linspace(0, 2 * np.pi, n, endpoint=False)
    ring = np.cos(ang)[:, None] * e1 + np.sin(ang)[:, None] * e2
    bottom, top = c0 + r * ring, c1 + r * ring
    faces = []
    for k in range(n):
        k2 = (k + 1) % n
        normal = ring[k] + ring[k2]
        faces.append((np.array([bottom[k], bottom[k2], top[k2], top[k]]), normal / np.linalg.norm(normal)))
    faces.append((top, a))
    faces.append((bottom[::-1], -a))
    return faces, bottom


class _Painter:
    def __init__(self, cam: PinholeCamera, light: np.ndarray, ambient: float) -> None:
        self.cam, self.light, self.ambient = cam, light, ambient
        self.pieces: list[_Piece] = []
        self.shadow_hulls: list[np.ndarray] = []  # 3D points whose table shadow is one convex polygon
        self.eye = cam.centre

    def add(self, faces, rgb, owner: int, centre: np.ndarray, outline=None, shadow=True) -> None:
        vis = [
            (p, _shade(rgb, nrm, self.light, self.ambient))
            for p, nrm in faces
            if np.dot(nrm, self.eye - p.mean(0)) > 1e-6
        ]
        if not vis:
            return
        depth = float(self.cam.to_camera(centre)[0, 2])
        self.pieces.append(_Piece(depth, vis, owner, outline or []))
        if shadow:
            self.shadow_hulls.append(np.vstack([p for p, _ in faces]))

    def rod(self, rod: Rod, owner: int, sizes: PieceSizes, slice_mm: float = 3.0) -> None:
        d = rod.p1 - rod.p0
        length = float(np.linalg.norm(d))
        u = d / length
        side = np.cross([0, 0, 1.0], u)
        side = side / max(np.linalg.norm(side), 1e-9)
        up = np.cross(u, side)
        k = max(1, int(np.ceil(length / slice_mm)))
        s_half, n_half = side * sizes.stick_width_mm / 2, up * sizes.stick_thickness_mm / 2
        for i in range(k):
            c = rod.p0 + d * (i + 0.5) / k
            faces = _box_faces(c, [d / (2 * k), s_half, n_half], ends=i in (0, k - 1))
            if i == 0:
                faces = [f for f in faces if np.dot(f[1], u) < 0.5]
            if i == k - 1:
                faces = [f for f in faces if np.dot(f[1], u) > -0.5]
            a, b = c - d / (2 * k) + n_half, c + d / (2 * k) + n_half
            edges = [(np.array([a + s_half, b + s_half]), False), (np.array([a - s_half, b - s_half]), False)]
            self.add(faces, rod.rgb, owner, c, outline=edges, shadow=False)
        self.shadow_hulls.append(
            np.vstack(
                [
                    rod.p0 + s_half + n_half,
                    rod.p0 - s_half - n_half,
                    rod.p1 + s_half + n_half,
                    rod.p1 - s_half - n_half,
                    rod.p0 + s_half - n_half,
                    rod.p1 - s_half + n_half,
                ]
            )
        )

    def column(self, x: float, y: float, height: int, junction: bool, owner: int, sizes: PieceSizes) -> None:
        u = sizes.unit_mm
        for k in range(height):
            rgb = JUNCTION_RGB if (junction and k == height - 1) else SUPPORT_RGB
            c0, c1 = np.array([x, y, k * u]), np.array([x, y, (k + 1) * u])
            faces, bottom = _cylinder_faces(c0, c1, sizes.column_diameter_mm / 2)
            self.add(faces, rgb, owner, (c0 + c1) / 2, outline=[(bottom, True)] if k else [], shadow=False)
        faces, _ = _cylinder_faces(
            np.array([x, y, 0]), np.array([x, y, height * u]), sizes.column_diameter_mm / 2
        )
        self.shadow_hulls.append(np.vstack([p for p, _ in faces]))

    def fallen_column(
        self, x: float, y: float, angle: float, units: int, owner: int, sizes: PieceSizes
    ) -> None:
        r = sizes.column_diameter_mm / 2
        a = np.array([np.cos(angle), np.sin(angle), 0.0]) * units * sizes.unit_mm / 2
        c = np.array([x, y, r])
        faces, _ = _cylinder_faces(c - a, c + a, r)
        self.add(faces, SUPPORT_RGB, owner, c)

    def car(self, rod: Rod, t: float, rgb, owner: int, sizes: PieceSizes) -> None:
        d = rod.p1 - rod.p0
        u = d / np.linalg.norm(d)
        side = np.cross([0, 0, 1.0], u)
        side /= np.linalg.norm(side)
        up = np.cross(u, side)
        c = rod.p0 + t * d + up * (sizes.stick_thickness_mm / 2 + sizes.car_height_mm / 2)
        axes = [u * sizes.car_length_mm / 2, side * sizes.car_width_mm / 2, up * sizes.car_height_mm / 2]
        self.add(_box_faces(c, axes), rgb, owner, c)

    def paint(self, img: np.ndarray, owners: np.ndarray) -> None:
        for piece in sorted(self.pieces, key=lambda p: -p.depth):
            for poly, bgr in piece.faces:
                uv, _ = self.cam.project(poly)
                pts = np.round(uv * 16).astype(np.int32).reshape(-1, 1, 2)
                cv2.fillPoly(img, [pts], bgr, cv2.LINE_AA, 4)
                cv2.fillPoly(owners, [pts], piece.owner, cv2.LINE_8, 4)
            for line, front_only in piece.outline:
                uv, _ = self.cam.project(line)
                if front_only:
                    uv = np.array(
                        [
                            p
                            for p, q in zip(uv, line, strict=True)
                            if np.dot(q[:2] - line.mean(0)[:2], self.eye[:2] - q[:2]) > 0
                        ]
                    )
                if len(uv) > 1:
                    dark = tuple(0.55 * v for v in piece.faces[0][1])
                    pts = np.round(uv * 16).astype(np.int32).reshape(-1, 1, 2)
                    cv2.polylines(img, [pts], False, dark, 1, cv2.LINE_AA, 4)

    def shadows(self, shape: tuple[int, int]) -> np.ndarray:
        mask = np.zeros(shape, np.float32)
        L = self.light
        for pts in self.shadow_hulls:
            flat = pts - (pts[:, 2] / L[2])[:, None] * L
            uv, _ = self.cam.project(flat)
            hull = cv2.convexHull(np.round(uv * 16).astype(np.int32))
            cv2.fillPoly(mask, [hull], 1.0, cv2.LINE_AA, 4)
        return mask


def _sample_camera(
    rng: np.random.Generator,
    pts: np.ndarray,
    width: int,
    height: int,
    yaw_deg: tuple[float, float] = (0.0, 360.0),
) -> PinholeCamera:
    """A camera from the renderer's distribution (distance, tilt, field of view) that sees every point;
    its yaw is drawn from `yaw_deg` (a second view is kept away from the first this way)."""
    centre = (pts.min(0) + pts.max(0)) / 2
    for attempt in range(60):
        dist = rng.uniform(620, 900) * (1 + 0.04 * attempt)
        cam = camera_looking_at(
            (centre[0] + rng.uniform(-25, 25), centre[1] + rng.uniform(-25, 25), 0),
            dist,
            rng.uniform(12, 40),
            rng.uniform(*yaw_deg),
            rng.uniform(45, 60),
            width,
            height,
        )
        uv, z = cam.project(pts)
        if (
            (z > 0).all()
            and uv[:, 0].min() > 30
            and uv[:, 1].min() > 30
            and uv[:, 0].max() < width - 30
            and uv[:, 1].max() < height - 30
        ):
            return cam
    return cam


def scene_points(scene: dict[str, Any], sizes: PieceSizes, rods: list[Rod] | None = None) -> np.ndarray:
    """Points every camera must see: column tops, stick ends, fallen pieces (N,3 mm)."""
    rods = resolve_rods(scene, sizes) if rods is None else rods
    pts = [np.array([s["x_mm"], s["y_mm"], s["height"] * sizes.unit_mm]) for s in scene.get("supports", [])]
    pts += [r.p0 for r in rods] + [r.p1 for r in rods]
    pts += [np.array([f["x_mm"], f["y_mm"], 0.0]) for f in scene.get("fallen", [])]
    return np.array(pts) if pts else np.zeros((1, 3))


def _hand(p: _Painter, rng: np.random.Generator, at: np.ndarray, owner: int) -> None:
    skin = (int(rng.uniform(180, 235)), int(rng.uniform(130, 175)), int(rng.uniform(100, 140)))
    z = 45.0
    ang = rng.uniform(0, 2 * np.pi)
    fwd = np.array([np.cos(ang), np.sin(ang), 0])
    side = np.array([-fwd[1], fwd[0], 0])
    palm = [
        at + fwd * 45 * np.cos(a) + side * 40 * np.sin(a) + [0, 0, z] for a in np.linspace(0, 2 * np.pi, 16)
    ]
    faces = [(np.array(palm), np.array([0, 0, 1.0]))]
    for k in range(4):
        base = at + fwd * 35 + side * (k - 1.5) * 18
        tip = base + fwd * rng.uniform(45, 70)
        faces += _box_faces((base + tip) / 2 + [0, 0, z], [(tip - base) / 2, side * 7, np.array([0, 0, 7.0])])
    p.add(faces, skin, owner, at + [0, 0, z + 400])  # nearer than anything on the table


def render_tokyo_frame(
    scene: dict[str, Any],
    seed: int,
    camera: PinholeCamera | None = None,
    sizes: PieceSizes | None = None,
    width: int = 1280,
    height: int = 720,
    table: str | None = None,
    hand: bool | None = None,
    glare: bool | None = None,
    view_camera: PinholeCamera | None = None,
) -> tuple[np.ndarray, dict[str, Any]]:
    """Render `scene` (see datasets.tokyo.scene) -> (BGR image, labels). Camera, lighting, table and
    noise come from `seed` unless given; the same scene and seed give the same image. `view_camera`
    renders the seed's table, light, hand and glare from another camera (the seed's own camera is still
    drawn, so the rest of the draws stay the same): a second view of the same scene."""
    rng = np.random.default_rng(seed)
    sizes = sizes or PieceSizes()
    rods = resolve_rods(scene, sizes)
    pts_arr = scene_points(scene, sizes, rods)
    cam = camera or _sample_camera(rng, pts_arr, width, height)
    if view_camera is not None:
        cam = view_camera
    width, height = cam.width, cam.height
    el, az = np.radians(rng.uniform(40, 75)), rng.uniform(0, 2 * np.pi)
    light = -np.array([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)])
    painter = _Painter(cam, light, ambient=float(rng.uniform(0.45, 0.6)))

    # table: a plan texture 1 px/mm around the structure, warped by the table-plane homography
    table = table or str(rng.choice(list(TEXTURES)))
    lo, hi = pts_arr[:, :2].min(0) - 600, pts_arr[:, :2].max(0) + 600
    tex_shape = (int(hi[1] - lo[1]) // 2, int(hi[0] - lo[0]) // 2)  # 2 mm per texel
    tex = np.clip(TEXTURES[table](rng, tex_shape), 0, 255).astype(np.uint8)
    tex_to_world = np.array([[2, 0, lo[0]], [0, 2, lo[1]], [0, 0, 1]], np.float64)
    H = cam.table_homography() @ tex_to_world
    img = cv2.warpPerspective(
        tex, H, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    ).astype(np.float32)

    for i, rod in enumerate(rods):
        painter.rod(rod, i + 1, sizes)
    for s in scene.get("supports", []):
        painter.column(
            s["x_mm"],
            s["y_mm"],
            int(s["height"]),
            bool(s.get("junction")),
            OWNER_SUPPORT + int(s["id"]),
            sizes,
        )
    for k, f in enumerate(scene.get("fallen", [])):
        painter.fallen_column(
            f["x_mm"],
            f["y_mm"],
            np.radians(f.get("angle_deg", 0)),
            int(f.get("units", 1)),
            OWNER_OTHER + 1 + k,
            sizes,
        )
    for k, car in enumerate(scene.get("cars", [])):
        painter.car(
            rods[car["stick"]], float(car.get("t", 0.5)), colour_rgb(car["color"]), OWNER_CAR + k, sizes
        )
    hand = bool(rng.random() < 0.1) if hand is None else hand
    if hand:
        edge = pts_arr[:, :2].mean(0) + np.array([rng.choice([-1, 1]) * (np.ptp(pts_arr[:, 0]) / 2 + 80), 0])
        _hand(painter, rng, np.append(edge, 0.0), OWNER_OTHER)

    shadow = cv2.GaussianBlur(painter.shadows((height, width)), (0, 0), rng.uniform(1.5, 4))
    img *= (1 - rng.uniform(0.25, 0.5) * shadow)[..., None]
    owners = np.zeros((height, width), np.int32)
    painter.paint(img, owners)

    glare = bool(rng.random() < 0.1) if glare is None else glare
    if glare:
        yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
        gx, gy, sg = rng.uniform(0.2, 0.8) * width, rng.uniform(0.2, 0.8) * height, rng.uniform(25, 60)
        img += rng.uniform(200, 320) * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sg * sg))[..., None]
    img *= rng.uniform(0.85, 1.12) * rng.uniform(0.95, 1.05, 3).astype(np.float32)
    img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 0.9))
    img += rng.normal(0, rng.uniform(1, 3.5), img.shape).astype(np.float32)
    image = np.clip(img, 0, 255).astype(np.uint8)
    labels = _labels(scene, rods, cam, sizes, owners, painter)
    labels["render"] = {"table": table, "hand": hand, "glare": glare, "seed": int(seed)}
    return image, labels


def _colour_name(c: Any) -> str | None:
    return c if isinstance(c, str) else None


def _labels(
    scene, rods: list[Rod], cam: PinholeCamera, sizes: PieceSizes, owners: np.ndarray, painter
) -> dict:
    h, w = owners.shape
    objects: list[dict[str, Any]] = []
    sticks_src = scene.get("sticks", []) + scene.get("loose", [])
    for i, rod in enumerate(rods):
        uv, _ = cam.project(np.array([rod.p0, rod.p1]))
        area = np.count_nonzero(owners == i + 1)
        ys, xs = np.nonzero(owners == i + 1)
        bbox = (
            [float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)]
            if area
            else [float(uv[:, 0].min()), float(uv[:, 1].min()), float(uv[:, 0].max()), float(uv[:, 1].max())]
        )
        expected = (
            np.linalg.norm(uv[1] - uv[0])
            * sizes.stick_width_mm
            * cam.K[0, 0]
            / max(float(cam.to_camera((rod.p0 + rod.p1) / 2)[0, 2]), 1)
        )
        objects.append(
            {
                "kind": "stick",
                "value": None,
                "bbox": [round(v, 1) for v in bbox],
                "color": _colour_name(sticks_src[i].get("color", "grey")),
                "endpoints": [[round(float(x), 2), round(float(y), 2)] for x, y in uv],
                "role": "loose" if rod.loose else "road",
                "player": rod.player,
                "rests": [e if e is not None else "table" for e in rod.ends],
                "endpoints_mm": [[round(float(v), 2) for v in rod.p0], [round(float(v), 2) for v in rod.p1]],
                "visible_fraction": round(min(1.0, area / max(expected, 1.0)), 3),
            }
        )
    crossings = []
    for i in range(len(rods)):
        for j in range(i + 1, len(rods)):
            if set(rods[i].ends) & set(rods[j].ends) - {None}:
                continue  # joined at a shared support, not a crossing
            a0, a1 = (np.array(p) for p in objects[i]["endpoints"])
            b0, b1 = (np.array(p) for p in objects[j]["endpoints"])
            hit = seg_intersection(a0, a1, b0, b1)
            if hit is None:
                continue
            pt = a0 + hit[0] * (a1 - a0)
            x, y = int(round(pt[0])), int(round(pt[1]))
            own = int(owners[min(max(y, 0), h - 1), min(max(x, 0), w - 1)])
            za = _depth_at(cam, rods[i], pt)
            zb = _depth_at(cam, rods[j], pt)
            top = i if own == i + 1 else j if own == j + 1 else (i if za < zb else j)
            plan = (
                seg_intersection(rods[i].p0[:2], rods[i].p1[:2], rods[j].p0[:2], rods[j].p1[:2]) is not None
            )
            crossings.append(
                {
                    "a": i,
                    "b": j,
                    "point": [round(float(pt[0]), 2), round(float(pt[1]), 2)],
                    "top": top,
                    "visible": own in (i + 1, j + 1),
                    "plan": plan,
                }
            )
    supports = []
    for s in scene.get("supports", []):
        top3 = np.array([s["x_mm"], s["y_mm"], s["height"] * sizes.unit_mm])
        uv, _ = cam.project(np.array([top3, top3 * [1, 1, 0]]))
        ys, xs = np.nonzero(owners == OWNER_SUPPORT + s["id"])
        bbox = (
            [float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)]
            if len(xs)
            else [float(uv[0, 0]), float(uv[0, 1]), float(uv[0, 0]), float(uv[0, 1])]
        )
        supports.append(
            {
                "id": s["id"],
                "x_mm": s["x_mm"],
                "y_mm": s["y_mm"],
                "height": int(s["height"]),
                "junction": bool(s.get("junction")),
                "top_px": np.round(uv[0], 2).tolist(),
                "base_px": np.round(uv[1], 2).tolist(),
            }
        )
        objects.append(
            {
                "kind": "support",
                "value": int(s["height"]),
                "bbox": [round(v, 1) for v in bbox],
                "color": "yellow" if s.get("junction") else "grey",
                "endpoints": None,
                "support_id": s["id"],
            }
        )
    for k, car in enumerate(scene.get("cars", [])):
        ys, xs = np.nonzero(owners == OWNER_CAR + k)
        if len(xs):
            objects.append(
                {
                    "kind": "car",
                    "value": None,
                    "color": _colour_name(car["color"]),
                    "endpoints": None,
                    "bbox": [float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)],
                    "stick": car["stick"],
                }
            )
    return {
        "width": w,
        "height": h,
        "objects": objects,
        "crossings": crossings,
        "supports": supports,
        "fallen": scene.get("fallen", []),
        "calibration": {"camera": cam.to_dict(), "sizes": sizes.__dict__.copy()},
    }


def _depth_at(cam: PinholeCamera, rod: Rod, pt: np.ndarray) -> float:
    ts = np.linspace(0, 1, 201)
    p3 = rod.p0 + ts[:, None] * (rod.p1 - rod.p0)
    uv, z = cam.project(p3)
    return float(z[np.argmin(np.linalg.norm(uv - pt, axis=1))])


__all__ = ["render_tokyo_frame", "PALETTE", "CAR_SETS"]
