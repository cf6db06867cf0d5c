"""Dice in known zones of a printed sheet (board cells, pools, a tray), read against the sheet's own
picture.

On a printed board the referee knows where dice may stand, and it knows what each zone looks like
empty (the sheet is the project's own drawing). So instead of searching the whole frame, each zone
of the rectified view is compared with the same zone of the reference picture: normalised
cross-correlation says whether something stands there (robust to light gain and offset), the
difference mask finds each die's body, and the dice reader's value network reads its pips. A blob of
the wrong size (a hand, a pen, two dice touching) is reported as unreadable, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.types import VisionError


@dataclass(frozen=True)
class Zone:
    """A rectangle of the sheet in mm; `many` zones (a tray) may hold several dice."""

    name: str
    x: float
    y: float
    w: float
    h: float
    many: bool = False


@dataclass
class ZoneDie:
    value: int
    confidence: float  # min of presence and value confidence
    color: str | None
    box_mm: tuple[float, float, float, float]


@dataclass
class ZoneReading:
    dice: dict[str, list[ZoneDie]] = field(default_factory=dict)  # zone name -> dice (empty: none)
    unreadable: dict[str, str] = field(default_factory=dict)  # zone name -> why


class ZoneDiceReader:
    """`reference_rgb`: the sheet as printed (RGB, any resolution, covering `sheet_mm`)."""

    def __init__(self, reference_rgb: np.ndarray, sheet_mm: tuple[float, float], zones: list[Zone],
                 die_mm: float = 16.0, px_per_mm: float = 3.0, colors: list[str] | None = None,
                 empty_ncc: float = 0.55, learn_empty: bool = True, profile: Any = None) -> None:
        from vision.dice.colour import palette_lab

        self.sheet_mm = sheet_mm
        self.px = px_per_mm
        self.zones = zones
        self.die_mm = die_mm
        self.empty_ncc = empty_ncc
        size = (round(sheet_mm[0] * px_per_mm), round(sheet_mm[1] * px_per_mm))
        ref = cv2.resize(cv2.cvtColor(reference_rgb, cv2.COLOR_RGB2BGR), size, interpolation=cv2.INTER_AREA)
        self.reference = _prep(ref)
        # The printed drawing is only a first guess of how the empty sheet looks through this camera:
        # the first view (the match starts with an empty board) and every zone seen empty later
        # replace it, so print sharpness, paper and light stop mattering.
        self.learn_empty = learn_empty
        self._learned = False
        self.names, self.lab = palette_lab(colors)
        self._values = None
        self.profile = profile  # a taught dice profile (vision/learned/profile.py): it reads first
        self._changed: np.ndarray | None = None

    # -- geometry ------------------------------------------------------------------------------
    def _window(self, z: Zone, margin_mm: float) -> tuple[int, int, int, int]:
        H, W = self.reference.shape[:2]
        x0 = max(0, int((z.x - margin_mm) * self.px))
        y0 = max(0, int((z.y - margin_mm) * self.px))
        x1 = min(W, int((z.x + z.w + margin_mm) * self.px))
        y1 = min(H, int((z.y + z.h + margin_mm) * self.px))
        return x0, y0, x1, y1

    # -- reading -------------------------------------------------------------------------------
    def read(self, top_bgr: np.ndarray) -> ZoneReading:
        """`top_bgr`: the sheet rectified at `px_per_mm` (same size as the reference)."""
        if top_bgr.shape[:2] != self.reference.shape[:2]:
            raise VisionError(f"rectified view is {top_bgr.shape[1]}x{top_bgr.shape[0]}, expected "
                              f"{self.reference.shape[1]}x{self.reference.shape[0]}")
        obs = _prep(top_bgr)
        self._changed = cv2.dilate((np.abs(obs - self.reference) > 0.6).astype(np.uint8),
                                   np.ones((3, 3), np.uint8))
        out = ZoneReading()
        if self.learn_empty and not self._learned:
            self.reference = obs.copy()
            self._learned = True
            return ZoneReading({z.name: [] for z in self.zones})
        for z in self.zones:
            # a die's top face may stand a little off its zone in perspective: look a few mm around
            margin = 0.0 if z.many else 3.0
            x0, y0, x1, y1 = self._window(z, margin)
            a, b = obs[y0:y1, x0:x1], self.reference[y0:y1, x0:x1]
            if not z.many and _ncc(a, b) >= self.empty_ncc:
                out.dice[z.name] = []
                self._refresh(z, margin, obs)
                continue
            blobs = self._blobs(a, b, z.many)
            if not blobs:
                self._refresh(z, margin, obs)
            dice = []
            for bx0, by0, bx1, by1, kind in blobs:
                if kind != "die":
                    out.unreadable[z.name] = kind
                    continue
                box = np.array([bx0 + x0, by0 + y0, bx1 + x0, by1 + y0], np.float32)
                # in a cell, pips are looked for inside the cell only: a neighbour's die leans close
                value, vconf, colour = self._value(top_bgr, box, None if z.many else self._window(z, 4.0))
                dice.append(ZoneDie(value, vconf, colour, tuple(float(v) / self.px for v in box)))
            if not z.many and len(dice) > 1:
                out.unreadable[z.name] = "more than one object in one cell"
            if not z.many and not dice and z.name not in out.unreadable:
                out.unreadable[z.name] = "something covers the cell but it is not a die"
            out.dice[z.name] = dice
        return out

    def relearn(self) -> None:
        """Take the next view as the empty sheet again (after the camera or the sheet moved)."""
        self._learned = False

    def _refresh(self, z: Zone, margin: float, obs: np.ndarray) -> None:
        x0, y0, x1, y1 = self._window(z, margin)
        ref = self.reference[y0:y1, x0:x1]
        ref += 0.25 * (obs[y0:y1, x0:x1] - ref)

    def _blobs(self, a: np.ndarray, b: np.ndarray, many: bool = True) -> list[tuple[int, int, int, int, str]]:
        diff = np.abs(a - b)
        mask = (diff > 0.9).astype(np.uint8)
        k = max(1, int(self.px))
        # a white die on white paper differs only at its pips, edges and shadow: close over the face
        close = max(3, int(self.die_mm * self.px / 3))
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE,
                                                                                 (close, close)))
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2 * k, 2 * k), np.uint8))
        n, _lab, stats, _c = cv2.connectedComponentsWithStats(mask)
        die_px = self.die_mm * self.px
        out = []
        for i in range(1, n):
            x, y, w, h, area = stats[i]
            if area < (0.35 * die_px) ** 2:
                continue  # noise, a shadow edge
            side = max(w, h)
            if side > 2.3 * die_px or (many and area > 3.0 * die_px ** 2):  # die + its long shadow fit
                out.append((x, y, x + w, y + h, "a large object (a hand, or dice touching)"))
            elif side < 0.6 * die_px:
                continue
            else:
                out.append((x, y, x + w, y + h, "die"))
        return out

    def _value(self, image: np.ndarray, box: np.ndarray,
               window: tuple[int, int, int, int] | None = None) -> tuple[int, float, str | None]:
        from vision.dice.colour import classify_colour
        from vision.dice.features import VALUE_SIZE, crop, square_window

        c = crop(image, square_window(box, 1.0), VALUE_SIZE)
        colour = classify_colour(c, self.names, self.lab)[0]
        if self.profile is not None:  # the player's own dice, symbol faces included, where it knows them
            taught = self.profile.read(image, np.asarray(box, np.float32)[None])
            if taught.applies[0]:
                return int(taught.values[0]), float(taught.confidence[0]), colour
        counted = count_pips(image, box, self.die_mm * self.px, window, self._changed)
        if counted is not None:
            return counted[0], counted[1], colour
        # no clean d6 face in the pips: ask the learned crop reader (the most accurate value reader on
        # real photos, docs/models.md), and trust it less (a reading below the loop's threshold is put
        # to the players instead of judged)
        if self._values is None:
            from vision.learned.crops import CropReader

            self._values = CropReader(tta=8)
        _p_die, values, vconf, _box = self._values.read(image, np.asarray(box, np.float32)[None])
        return int(values[0]), float(vconf[0]) * 0.7, colour


def count_pips(image: np.ndarray, box: np.ndarray, die_px: float,
               window: tuple[int, int, int, int] | None = None,
               changed: np.ndarray | None = None) -> tuple[int, float] | None:
    """Count the pips of the die found at `box` (a blob of its body, pips and shadow). None when the
    marks do not look like a d6 face.

    A light die (white, yellow: dark pips) may differ from light paper only at its pips, edges and
    shadow, so its blob's edges are not trusted: dark round pip-sized marks are collected in a
    die-and-a-half square around it and the tightest group that fits on one face is counted. A dark
    die (light pips) stands out whole, so its pips are the light marks inside its own blob."""
    H, W = image.shape[:2]
    grey_all = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    x0, y0, x1, y1 = (int(v) for v in box)
    bw, bh = x1 - x0, y1 - y0
    core = grey_all[y0 + bh // 4: y1 - bh // 4, x0 + bw // 4: x1 - bw // 4]
    if core.size == 0:
        return None
    pip_area = np.pi * (0.09 * die_px) ** 2
    # a dark face (blue, green, black dice) has light pips, a light face dark ones; when the first
    # guess finds no d6 face, try the other
    face = float(np.median(core))
    # a saturated or very dark core is a coloured/black die (light pips); a grey one is a light die's
    # shadow or face (dark pips)
    hsv = cv2.cvtColor(image[y0 + bh // 4: y1 - bh // 4, x0 + bw // 4: x1 - bw // 4], cv2.COLOR_BGR2HSV)
    sat, val = float(np.median(hsv[..., 1])), float(np.median(hsv[..., 2]))
    dark_die = (sat > 80 and val < 190) or val < 70
    for dark_pips in ((False, True) if dark_die else (True, False)):
        found = _pips(grey_all, (x0, y0, x1, y1), die_px, pip_area, dark_pips, face, window, changed)
        if found is not None:
            return found
    return None


def _pips(grey_all: np.ndarray, box: tuple[int, int, int, int], die_px: float, pip_area: float,
          dark_pips: bool, face: float, window: tuple[int, int, int, int] | None = None,
          changed: np.ndarray | None = None) -> tuple[int, float] | None:
    H, W = grey_all.shape[:2]
    x0, y0, x1, y1 = box
    if window is None:
        # a light die on light paper may show as little more than its shadow: look three dice wide
        # around the blob and let the grouping below pick the face's pips
        half = 1.5 * die_px
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        window = (int(cx - half), int(cy - half), int(cx + half), int(cy + half))
    a0, b0 = max(0, window[0]), max(0, window[1])
    a1, b1 = min(W, window[2]), min(H, window[3])
    grey = cv2.GaussianBlur(grey_all[b0:b1, a0:a1], (3, 3), 0).astype(np.float32)
    if dark_pips:  # light die: pips are far darker than the paper and the face
        paper = float(np.percentile(grey, 70))
        marks = ((paper - grey) > max(80.0, 0.55 * (paper - float(grey.min())))).astype(np.uint8)
    else:  # dark die: light pips, but only those inside the die's own body (paper is light too)
        body = (np.abs(grey - face) < 45).astype(np.uint8)
        k = max(3, int(0.3 * die_px))
        body = cv2.morphologyEx(body, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        n_b, lab_b, st_b, _cb = cv2.connectedComponentsWithStats(body)
        if n_b < 2:
            return None
        main = 1 + int(np.argmax(st_b[1:, cv2.CC_STAT_AREA]))
        inside = (lab_b == main).astype(np.uint8)
        bright = (grey - face) > max(60.0, 0.45 * (float(grey.max()) - face))
        marks = (bright & (inside > 0)).astype(np.uint8)
    if changed is not None and dark_pips:  # printed labels and lines are on the empty sheet too
        marks &= changed[b0:b1, a0:a1].astype(np.uint8)
    origin = np.array([a0, b0], np.float32)
    n, _lab, stats, cents = cv2.connectedComponentsWithStats(marks)
    h, w = marks.shape
    centres, areas = [], []
    for i in range(1, n):
        x, y, cw, ch, area = stats[i]
        if x == 0 or y == 0 or x + cw >= w or y + ch >= h:
            continue  # paper, a shadow or the next die at the window's edge
        # pips are discs: the one-pip face has the largest (about 2.1 pip areas)
        if not 0.3 * pip_area <= area <= 2.6 * pip_area or max(cw, ch) > 1.6 * min(cw, ch):
            continue
        centres.append(cents[i] + origin)
        areas.append(area)
    if not centres:
        return None
    # the group of marks that fits on one face, nearest the blob's centre
    pts = np.array(centres)
    span = 0.8 * die_px  # corner to corner pips of one face (0.71 of its side), with some slack
    centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    seed = int(np.argmin(np.linalg.norm(pts - centre, axis=1)))
    big = [a > 1.75 * pip_area for a in areas]
    if big[seed]:  # the one-pip face has a single, larger pip: nothing else belongs to it
        return 1, 0.9
    group = {seed}
    changed = True
    while changed:
        changed = False
        for j in range(len(pts)):
            if j not in group and not big[j] and all(np.linalg.norm(pts[j] - pts[k]) <= span for k in group):
                group.add(j)
                changed = True
    count = len(group)
    if not 1 <= count <= 6:
        return None
    sizes = np.array([areas[j] for j in group], np.float32)
    regular = 1.0 if count == 1 else float(max(0.0, 1.0 - sizes.std() / max(sizes.mean(), 1.0)))
    return count, 0.55 + 0.4 * regular


def _prep(bgr: np.ndarray) -> np.ndarray:
    """Grey, slightly blurred, normalised per image region so light gain/offset cancel."""
    g = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)
    g = cv2.GaussianBlur(g, (0, 0), 1.2)
    mean = cv2.blur(g, (61, 61))
    sq = cv2.blur(g * g, (61, 61))
    std = np.sqrt(np.maximum(sq - mean * mean, 1.0))
    return (g - mean) / np.maximum(std, 12.0)


def _ncc(a: np.ndarray, b: np.ndarray) -> float:
    a = a - a.mean()
    b = b - b.mean()
    den = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return float((a * b).sum() / den) if den > 1e-6 else 1.0
