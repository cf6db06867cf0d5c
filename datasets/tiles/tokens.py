"""Top views of numbered pieces in many looks: the project's printed pieces, other Hershey fonts
(plain, italic, thin, bold), square, rounded and round tokens, dark and light faces.

A look is plain data so scenes can say exactly what they drew. The reader is trained on
TRAIN_FONTS; HELD_OUT_FONTS never appear in training and are used to check that the reader reads
looks it was not tuned on.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

TRAIN_FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
)
HELD_OUT_FONTS = (cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_COMPLEX_SMALL, cv2.FONT_HERSHEY_SCRIPT_COMPLEX)
# Numbers that read as another number (or as no number) when turned half round always carry the
# orientation bar; on other pieces the bar is optional in foreign looks.
NEEDS_BAR = {6, 9, 16}

LIGHT_FACES = [
    (250, 250, 246),
    (240, 232, 210),
    (250, 225, 120),
    (236, 196, 150),
    (230, 140, 120),
    (200, 230, 190),
    (255, 255, 255),
    (220, 220, 220),
    (210, 170, 120),
]
DARK_FACES = [(30, 30, 30), (120, 30, 30), (40, 90, 40), (90, 60, 40)]


@dataclass
class Look:
    font: int = cv2.FONT_HERSHEY_SIMPLEX
    italic: bool = False
    thickness: float = 0.14  # stroke width / text height
    shape: str = "square"  # square | rounded | round
    size_mm: float = 28.0
    face: tuple[int, int, int] = (250, 250, 246)  # RGB
    ink: tuple[int, int, int] = (20, 20, 20)
    text_frac: float = 0.42  # text height / piece size
    bar: bool = True
    bar_frac: float = 0.8  # bar length / text width
    bar_gap: float = 0.22  # gap between text and bar / text height
    bar_thick: float = 0.16  # bar thickness / text height


PRINTED = Look()  # the project's printed pieces (see drawing/grid_sheet.py)


def random_look(rng: np.random.Generator, number: int, fonts: tuple[int, ...] = TRAIN_FONTS) -> Look:
    dark = rng.random() < 0.2
    face = DARK_FACES[rng.integers(len(DARK_FACES))] if dark else LIGHT_FACES[rng.integers(len(LIGHT_FACES))]
    ink = (
        tuple(int(v) for v in rng.uniform(215, 250, 3))
        if dark
        else tuple(int(v) for v in rng.uniform(0, 70, 3))
    )
    if not dark and rng.random() < 0.25:
        ink = [(150, 20, 20), (20, 40, 140), (20, 90, 30)][rng.integers(3)]
    shape = ("square", "rounded", "round")[rng.integers(3)]
    return Look(
        font=int(fonts[rng.integers(len(fonts))]),
        italic=bool(rng.random() < 0.3),
        thickness=float(rng.uniform(0.06, 0.2)),
        shape=shape,
        size_mm=float(rng.uniform(24, 30)),
        face=face,
        ink=ink,  # type: ignore[arg-type]
        text_frac=float(rng.uniform(0.32, 0.48)),
        bar=number in NEEDS_BAR or bool(rng.random() < 0.5),
        bar_frac=float(rng.uniform(0.5, 1.05)),
        bar_gap=float(rng.uniform(0.12, 0.35)),
        bar_thick=float(rng.uniform(0.09, 0.2)),
    )


def _text_block(number: int, look: Look, text_h: float) -> tuple[float, int, tuple[int, int], int]:
    font = look.font | (cv2.FONT_ITALIC if look.italic else 0)
    (w, h), _ = cv2.getTextSize(str(number), font, 1.0, 1)
    return text_h / max(h, 1), font, (w, h), 0


def render_token(number: int, look: Look, px_per_mm: float = 8.0) -> np.ndarray:
    """RGBA top view of the piece, upright (bar below the number), size_mm square at px_per_mm."""
    n = max(8, round(look.size_mm * px_per_mm))
    img = np.zeros((n, n, 4), np.uint8)
    img[..., :3] = look.face
    alpha = np.zeros((n, n), np.uint8)
    if look.shape == "round":
        cv2.circle(alpha, (n // 2, n // 2), n // 2 - 1, 255, -1, cv2.LINE_AA)
        width_limit = 0.6 * n
    elif look.shape == "rounded":
        r = int(0.18 * n)
        cv2.rectangle(alpha, (r, 0), (n - 1 - r, n - 1), 255, -1)
        cv2.rectangle(alpha, (0, r), (n - 1, n - 1 - r), 255, -1)
        for cx, cy in ((r, r), (n - 1 - r, r), (r, n - 1 - r), (n - 1 - r, n - 1 - r)):
            cv2.circle(alpha, (cx, cy), r, 255, -1, cv2.LINE_AA)
        width_limit = 0.74 * n
    else:
        alpha[:] = 255
        width_limit = 0.78 * n
    img[..., 3] = alpha
    text = str(number)
    font = look.font | (cv2.FONT_ITALIC if look.italic else 0)
    text_h = look.text_frac * n
    (w1, h1), _ = cv2.getTextSize(text, font, 1.0, 1)
    scale = min(text_h / max(h1, 1), width_limit / max(w1, 1))
    thick = max(1, round(look.thickness * h1 * scale))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    bar_h = max(1, round(look.bar_thick * th)) if look.bar else 0
    gap = round(look.bar_gap * th) if look.bar else 0
    block_h = th + gap + bar_h
    x = (n - tw) / 2
    y = (n - block_h) / 2 + th  # baseline
    canvas = np.zeros((n * 4, n * 4), np.uint8)  # draw at 4x for smooth edges
    cv2.putText(canvas, text, (round(x * 4), round(y * 4)), font, scale * 4, 255, thick * 4, cv2.LINE_AA)
    if look.bar:
        bw = look.bar_frac * tw
        bx0, by0 = (n - bw) / 2, y + gap
        cv2.rectangle(
            canvas,
            (round(bx0 * 4), round(by0 * 4)),
            (round((bx0 + bw) * 4), round((by0 + bar_h) * 4)),
            255,
            -1,
        )
    cover = cv2.resize(canvas, (n, n), interpolation=cv2.INTER_AREA).astype(np.float32)[..., None] / 255
    rgb = img[..., :3].astype(np.float32) * (1 - cover) + np.array(look.ink, np.float32) * cover
    img[..., :3] = np.clip(rgb, 0, 255).astype(np.uint8)
    return img
