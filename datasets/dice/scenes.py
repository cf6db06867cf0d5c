"""Synthetic photos of dice on a printed tray or board, deterministic from a seed.

Dice are drawn from above (rounded face, pips in the standard d6 layouts) and stood on the sheet as
raised objects by datasets.camera, which adds perspective, sides, shadows, lighting and sensor
faults. Scenes may also hold other objects (tokens, a pencil) and a hand-like blob covering part of
the view. Labels are exact: the projected box of every die still visible, its value and colour.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from datasets.camera import Pose, SheetObject, random_pose, render_sheet

# colour name -> (body RGB, pip RGB)
DICE_COLOURS: dict[str, tuple[tuple[int, int, int], tuple[int, int, int]]] = {
    "white": ((236, 234, 226), (20, 20, 20)),
    "blue": ((35, 75, 185), (245, 245, 245)),
    "green": ((35, 145, 65), (245, 245, 245)),
    "yellow": ((238, 200, 40), (20, 20, 20)),
    "black": ((30, 30, 34), (245, 245, 245)),
    "red": ((195, 30, 35), (245, 245, 245)),
    "orange": ((235, 120, 30), (20, 20, 20)),
    "purple": ((105, 45, 135), (245, 245, 245)),
}

# pip centres of each value on a unit face (0..1), the usual Western layout
PIP_LAYOUTS: dict[int, list[tuple[float, float]]] = {
    1: [(0.5, 0.5)],
    2: [(0.25, 0.25), (0.75, 0.75)],
    3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
    5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
    6: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.5), (0.75, 0.5), (0.25, 0.75), (0.75, 0.75)],
}


def die_face_rgba(value: int, body_rgb: Sequence[int], pip_rgb: Sequence[int], px: int = 64,
                  corner: float = 0.16, pip_radius: float = 0.09) -> np.ndarray:
    """The top face seen from above, RGBA with transparent rounded corners."""
    if value not in PIP_LAYOUTS:
        raise ValueError(f"a d6 value is 1..6, got {value!r}")
    ss = 4  # draw large, shrink: smooth edges without anti-aliasing tricks
    S = px * ss
    img = np.zeros((S, S, 4), np.uint8)
    r = int(corner * S)
    body = (*map(int, body_rgb), 255)
    cv2.rectangle(img, (r, 0), (S - r, S), body, -1)
    cv2.rectangle(img, (0, r), (S, S - r), body, -1)
    for cx, cy in ((r, r), (S - r, r), (r, S - r), (S - r, S - r)):
        cv2.circle(img, (cx, cy), r, body, -1)
    # a soft sheen towards the face edge, as on real plastic
    shade = np.ones((S, S), np.float32)
    cv2.rectangle(shade, (0, 0), (S - 1, S - 1), 0.85, max(2, S // 14))
    shade = cv2.GaussianBlur(shade, (0, 0), S / 20)
    img[..., :3] = np.clip(img[..., :3] * shade[..., None], 0, 255).astype(np.uint8)
    pip_r = int(pip_radius * S * (1.45 if value == 1 else 1.0))
    for x, y in PIP_LAYOUTS[value]:
        cv2.circle(img, (int(x * S), int(y * S)), pip_r, (*map(int, pip_rgb), 255), -1)
    return cv2.resize(img, (px, px), interpolation=cv2.INTER_AREA)


def render_dice_on_sheet(sheet_rgb: np.ndarray, sheet_size_mm: tuple[float, float], dice: Sequence[dict],
                         pose: Pose, rng: np.random.Generator | None = None, effects: float = 1.0,
                         background: np.ndarray | None = None,
                         extra_objects: Sequence[SheetObject] = (),
                         ) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """Photograph dice standing on a sheet. Each die: {"x_mm", "y_mm", "value", "color", "size_mm",
    "angle"} (colour a DICE_COLOURS name; size defaults to 16 mm, angle to 0). Returns the BGR image
    and the realdata `objects` list (kind "die", value, bbox in pixels, color), in the dice's order."""
    rng = rng if rng is not None else np.random.default_rng(0)
    objects = []
    for n, d in enumerate(dice):
        try:
            body, pips = DICE_COLOURS[d.get("color", "white")]
            size = float(d.get("size_mm", 16.0))
            face = die_face_rgba(int(d["value"]), body, pips)
            objects.append(SheetObject(face, (float(d["x_mm"]), float(d["y_mm"])), (size, size),
                                       float(d.get("angle", 0.0)), size, tuple(int(c) for c in body[::-1])))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"die {n} ({d!r}) is not valid: {exc}") from exc
    img, boxes = render_sheet(sheet_rgb, sheet_size_mm, pose, rng=rng, background=background,
                              objects=[*objects, *extra_objects], effects=effects)
    labels = [{"kind": "die", "value": int(d["value"]), "bbox": [round(float(v), 1) for v in b],
               "color": d.get("color", "white"), "endpoints": None}
              for d, b in zip(dice, boxes[:len(dice)], strict=True)]
    return img, labels


def _place_dice(rng: np.random.Generator, area: tuple[float, float, float, float], n: int) -> list[dict]:
    dice: list[dict] = []
    x0, y0, x1, y1 = area
    for _ in range(n * 30):
        if len(dice) == n:
            break
        size = rng.uniform(12, 20)
        x, y = rng.uniform(x0 + size, x1 - size), rng.uniform(y0 + size, y1 - size)
        # centre distance above the half-diagonals' sum: dice may touch but never interpenetrate
        if all(np.hypot(x - d["x_mm"], y - d["y_mm"]) > 0.71 * (size + d["size_mm"]) for d in dice):
            dice.append({"x_mm": x, "y_mm": y, "size_mm": size, "angle": rng.uniform(0, 90),
                         "value": int(rng.integers(1, 7)), "color": str(rng.choice(list(DICE_COLOURS)))})
    return dice


def _distractors(rng: np.random.Generator, area: tuple[float, float, float, float]) -> list[SheetObject]:
    """Tokens and a pencil: things on a table that are not dice."""
    out = []
    x0, y0, x1, y1 = area
    for _ in range(int(rng.integers(0, 3))):
        s = rng.uniform(10, 25)
        top = np.zeros((32, 32, 4), np.uint8)
        colour = tuple(int(c) for c in rng.integers(30, 230, 3))
        if rng.random() < 0.5:
            cv2.circle(top, (16, 16), 15, (*colour, 255), -1)
        else:
            cv2.rectangle(top, (0, 12), (31, 20), (*colour, 255), -1)
            s *= 3
        out.append(SheetObject(top, (rng.uniform(x0, x1), rng.uniform(y0, y1)), (s, s), rng.uniform(0, 180),
                               rng.uniform(1, 5), colour[::-1]))
    return out


def _hand(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A skin-toned blob (palm plus fingers) entering from an edge; returns its mask."""
    H, W = img.shape[:2]
    mask = np.zeros((H, W), np.uint8)
    side = rng.integers(4)
    depth = rng.uniform(0.15, 0.35)
    along = rng.uniform(0.2, 0.8)
    centre = [(along * W, depth * H), (W - depth * W, along * H), (along * W, H - depth * H),
              (depth * W, along * H)][side]
    edge = [(along * W, 0), (W, along * H), (along * W, H), (0, along * H)][side]
    r = int(rng.uniform(0.07, 0.12) * min(W, H) * 1.6)
    cv2.line(mask, tuple(map(int, edge)), tuple(map(int, centre)), 255, r)
    cv2.circle(mask, tuple(map(int, centre)), r, 255, -1)
    for k in range(4):
        ang = np.arctan2(centre[1] - edge[1], centre[0] - edge[0]) + (k - 1.5) * 0.3
        tip = (centre[0] + np.cos(ang) * r * 1.8, centre[1] + np.sin(ang) * r * 1.8)
        cv2.line(mask, tuple(map(int, centre)), tuple(map(int, tip)), 255, max(3, r // 4))
    skin = np.array([rng.uniform(60, 140), rng.uniform(110, 180), rng.uniform(160, 235)])
    soft = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), 3)[..., None]
    img[:] = np.clip(img * (1 - soft) + skin * soft * rng.uniform(0.8, 1.1), 0, 255).astype(np.uint8)
    return mask


def random_scene(rng: np.random.Generator, out_size: tuple[int, int] = (1280, 720), n_dice: int | None = None,
                 sheet: str = "tray") -> tuple[np.ndarray, list[dict[str, Any]]]:
    """A random photo of dice on the printed dice tray; labels in the realdata `objects` form. A die
    more than 40 % hidden by the hand is dropped from the labels (nobody could read it)."""
    from drawing.dice_tray import tray_rgb
    from vision.dice.tray import ROLL_AREA_MM, TRAY_SIZE_MM

    sheet_rgb = tray_rgb(3.0)
    n = int(rng.integers(1, 13)) if n_dice is None else n_dice
    dice = _place_dice(rng, ROLL_AREA_MM, n)
    pose = random_pose(rng, TRAY_SIZE_MM, out_size=out_size, tilt_deg=(0, 30))
    img, labels = render_dice_on_sheet(sheet_rgb, TRAY_SIZE_MM, dice, pose, rng,
                                       extra_objects=_distractors(rng, ROLL_AREA_MM))
    if rng.random() < 0.3:
        mask = _hand(img, rng)
        kept = []
        for lab in labels:
            x0, y0, x1, y1 = (int(round(v)) for v in lab["bbox"])
            region = mask[max(0, y0):max(0, y1), max(0, x0):max(0, x1)]
            if region.size and (region > 0).mean() > 0.4:
                continue
            kept.append(lab)
        labels = kept
    return img, labels


def write_dataset(out: Path, n: int, seed: int, out_size: tuple[int, int] = (1280, 720),
                  quality: int = 90) -> dict[str, Any]:
    """N scenes into OUT: images/*.jpg, labels.json (realdata format), labels/*.txt (YOLO: class =
    value - 1, centre and size normalised) and data.yaml."""
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    items = []
    W, H = out_size
    for k in range(n):
        rng = np.random.default_rng([seed, k])  # each scene reproducible on its own
        img, objects = random_scene(rng, out_size)
        name = f"images/dice_{seed}_{k:05d}.jpg"
        cv2.imwrite(str(out / name), img, [cv2.IMWRITE_JPEG_QUALITY, quality])
        items.append({"image": name, "width": W, "height": H, "objects": objects})
        lines = []
        for o in objects:
            x0, y0, x1, y1 = o["bbox"]
            x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
            lines.append(f"{o['value'] - 1} {(x0 + x1) / 2 / W:.6f} {(y0 + y1) / 2 / H:.6f} "
                         f"{(x1 - x0) / W:.6f} {(y1 - y0) / H:.6f}")
        (out / "labels" / f"dice_{seed}_{k:05d}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
    data = {"source": f"highway-referee synthetic dice, seed {seed}", "license": "MIT (generated)",
            "attribution": "generated by datasets/dice/scenes.py", "labels_complete": True,
            "notes": "Rendered scenes; labels exact. A die more than 40% hidden by a hand is not labelled.",
            "items": items}
    (out / "labels.json").write_text(json.dumps(data, indent=1), encoding="utf-8")
    (out / "data.yaml").write_text("path: .\ntrain: images\nval: images\nnames:\n"
                                   + "".join(f"  {v - 1}: '{v}'\n" for v in range(1, 7)))
    return data


def _see_through(img: np.ndarray, value: int, body: tuple, pips: tuple, face_px: int, G: np.ndarray,
                 alpha: np.ndarray, strength: float, blur: float = 0.0) -> np.ndarray:
    """The pips of a hidden face (`value`) seen through a clear body: its face drawn by the affine G,
    blurred by `blur` pixels (0: sharp), over the top face's area at `strength`."""
    S = img.shape[0]
    ghost = die_face_rgba(value, body, pips, px=face_px, corner=0.15, pip_radius=0.09).astype(np.float32)
    gw = cv2.warpAffine(ghost, G, (S, S))
    if blur:
        gw = cv2.GaussianBlur(gw, (0, 0), blur)
    ga = gw[..., 3:] / 255.0 * alpha * strength
    return img * (1 - ga) + gw[..., 2::-1] * ga


def _side_ghosts(rng: np.random.Generator, img: np.ndarray, value: int, body: tuple, pips: tuple,
                 face_px: int, M: np.ndarray, alpha: np.ndarray, S: int) -> np.ndarray:
    """Two side faces' pips seen through a clear body: squashed towards their face's edge, blurred
    (deeper than the top face), strong."""
    sides = [v for v in range(1, 7) if v not in (value, 7 - value)]
    for v in rng.choice(sides, 2, replace=False):
        a = rng.uniform(0, 2 * np.pi)
        squash = rng.uniform(0.35, 0.7)  # a side face seen through the top lies foreshortened
        d = np.array([np.cos(a), np.sin(a)])
        A = np.eye(2) - (1 - squash) * np.outer(d, d)
        G = M.copy()
        G[:, :2] = A @ M[:, :2]
        centre = np.array([S / 2, S / 2])
        G[:, 2] = A @ M[:, 2] + (centre - A @ centre) + d * face_px * rng.uniform(0.15, 0.3)
        blur = S / rng.uniform(50, 90)
        img = _see_through(img, int(v), body, pips, face_px, G, alpha, rng.uniform(0.35, 0.8), blur)
    return img


def synthetic_die_crop(rng: np.random.Generator, value: int, size: int = 48,
                       deep_smoky: bool = False) -> np.ndarray:
    """A close crop of one die (BGR, size x size), like a detector box on a photo: random body and pip
    colours (including dark dice with coloured pips), turn, a visible side, shadow, blur, noise, JPEG.
    Used to widen the value reader's training set beyond the colours of the real photos. About one in
    four is a smoky die: grey and see-through, so the table and the pips of the hidden faces show
    faintly through the top face, with red, orange or white pips and a glint: the hardest look on
    real tables. Glossy dice get glints too (a streak or a pip-sized spot).
    `deep_smoky`: smoky dice show the pips of two side faces as well as the bottom's, nearly as strong
    as the top face's but out of focus (they lie deeper in the body), as clear smoky dice do on photos."""
    smoky = rng.random() < 0.25
    if smoky:
        g = rng.uniform(45, 120)
        body = tuple(int(np.clip(g + rng.normal(0, 8), 0, 255)) for _ in range(3))
        pips = tuple(int(np.clip(c + rng.normal(0, 15), 0, 255)) for c in rng.choice(
            [(175, 35, 40), (150, 30, 35), (200, 80, 40), (210, 210, 210)]))
    elif rng.random() < 0.5:
        name = str(rng.choice(list(DICE_COLOURS)))
        body, pips = DICE_COLOURS[name]
        body = tuple(int(np.clip(c + rng.normal(0, 18), 0, 255)) for c in body)
    else:
        body = tuple(int(c) for c in rng.integers(0, 256, 3))
        lum = 0.3 * body[0] + 0.59 * body[1] + 0.11 * body[2]
        pips = (20, 20, 20) if lum > 150 else tuple(int(c) for c in rng.choice(
            [(245, 245, 245), (220, 40, 40), (240, 210, 60), (20, 20, 20)] if lum < 90 else
            [(245, 245, 245), (20, 20, 20)]))
    S = size * 4
    bg = np.full((S, S, 3), rng.uniform(120, 235), np.float32) + rng.normal(0, 6, 3)
    face_px = int(S * rng.uniform(0.62, 0.78))
    face = die_face_rgba(value, body, pips, px=face_px, corner=rng.uniform(0.08, 0.22),
                         pip_radius=rng.uniform(0.075, 0.105)).astype(np.float32)
    ang = rng.uniform(0, 360)
    M = cv2.getRotationMatrix2D((face_px / 2, face_px / 2), ang, 1.0)
    M[:, 2] += (S - face_px) / 2 + rng.normal(0, S * 0.02, 2)
    warped = cv2.warpAffine(face, M, (S, S))
    alpha = warped[..., 3:] / 255.0
    side = rng.uniform(0, 0.12) * S  # the visible side: the face shifted and darkened behind itself
    sdir = rng.uniform(0, 2 * np.pi)
    shift = np.float32([[1, 0, side * np.cos(sdir)], [0, 1, side * np.sin(sdir)]])
    cast = cv2.warpAffine(alpha, shift * [[1, 1, 1.6], [1, 1, 1.6]], (S, S))
    shadow = cv2.GaussianBlur(cast, (0, 0), S / 30)
    img = bg * (1 - 0.35 * shadow[..., None])
    for k in range(1, 6):  # the side as a stack of darkened copies of the face outline
        sh = np.float32([[1, 0, side * np.cos(sdir) * k / 5], [0, 1, side * np.sin(sdir) * k / 5]])
        a = cv2.warpAffine(alpha, sh, (S, S))[..., None]
        img = img * (1 - a) + np.array(body[::-1], np.float32) * 0.6 * a
    if smoky:  # see-through body: the bottom face's pips show faintly, offset by the view's slant
        G = M.copy()
        G[:, 2] += side * np.array([np.cos(sdir), np.sin(sdir)]) * rng.uniform(0.5, 1.5)
        img = _see_through(img, 7 - value, body, pips, face_px, G, alpha, rng.uniform(0.25, 0.5))
        if deep_smoky:
            img = _side_ghosts(rng, img, value, body, pips, face_px, M, alpha, S)
        alpha = alpha * (rng.uniform(0.35, 0.65) if deep_smoky else rng.uniform(0.55, 0.85))
    img = img * (1 - alpha) + warped[..., 2::-1] * alpha
    if rng.random() < (0.7 if smoky else 0.3):
        # a glint on glossy plastic: a soft bright streak, or a spot the size of a pip, which a reader
        # must not count as one
        streak = np.zeros((S, S), np.float32)
        c0 = np.array([S / 2, S / 2]) + rng.normal(0, S * 0.12, 2)
        if rng.random() < 0.5:
            a0 = rng.uniform(0, np.pi)
            d = np.array([np.cos(a0), np.sin(a0)]) * face_px * rng.uniform(0.2, 0.45)
            cv2.line(streak, tuple(map(int, c0 - d)), tuple(map(int, c0 + d)), 1.0, max(2, S // 40))
        else:
            axes = (int(face_px * rng.uniform(0.04, 0.09)), int(face_px * rng.uniform(0.03, 0.07)))
            cv2.ellipse(streak, tuple(map(int, c0)), axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
        streak = cv2.GaussianBlur(streak, (0, 0), S / 60)[..., None] * alpha * rng.uniform(0.4, 0.9)
        img = img * (1 - streak) + 250 * streak
    img *= rng.uniform(0.7, 1.2)
    img = cv2.resize(np.clip(img, 0, 255).astype(np.uint8), (size, size), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.0))
    img = np.clip(img + rng.normal(0, rng.uniform(1, 6), img.shape), 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.uniform(60, 95))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)
