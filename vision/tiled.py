"""Locating a sheet printed in tiles (home A4/Letter pages taped together) tile by tile.

An assembled sheet is not one flat print: the tiles lie with gaps of a few millimetres and small turns
between them, so one homography for the whole sheet puts cells near a seam millimetres off. Each tile
is a rigid piece of paper, though, and carries markers of its own (drawing/paper.py places them in
the free space of the drawing, near the tile's corners): each tile gets its own homography from its
markers alone, and the rectified view is pasted together tile by tile. A tile whose markers are hidden
keeps its last calibration, or else borrows the nearest located tile's.

The plan (which tile covers which rectangle of the sheet, and where its markers are) is made by the
printer's code and handed in here as `TiledSheet`; see docs/formats/printing-tiles.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.localise import (
    MOVE_MM,
    Calibration,
    LocaliseError,
    LocaliseResult,
    SheetSpec,
    detect_markers,
    detect_sheet_markers,
    localise,
)
from vision.types import VisionError, check_image


@dataclass(frozen=True)
class TileSpec(SheetSpec):
    """One tile of a sheet: its rectangle (x0, y0, x1, y1) in sheet mm and its markers
    (id, centre x, centre y in sheet mm; all `marker_size_mm` wide). Fits are judged on the tile's own
    outline, since the tile's homography is only used inside it."""

    name: str = ""
    rect: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    markers: tuple[tuple[int, float, float], ...] = ()

    def marker_centres(self) -> dict[int, tuple[float, float]]:
        return {m: (x, y) for m, x, y in self.markers}

    def outline_mm(self) -> np.ndarray:
        x0, y0, x1, y1 = self.rect
        return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)

    def contains(self, x: float, y: float) -> bool:
        x0, y0, x1, y1 = self.rect
        return x0 <= x <= x1 and y0 <= y <= y1


@dataclass(frozen=True)
class TiledSheet:
    kind: str
    width_mm: float
    height_mm: float
    tiles: tuple[TileSpec, ...]

    def whole(self) -> TileSpec:
        """Every marker of every tile, as one spec (to detect them all in one pass)."""
        markers = tuple(m for t in self.tiles for m in t.markers)
        size = self.tiles[0].marker_size_mm
        return TileSpec(self.kind, self.width_mm, self.height_mm, size, name="whole",
                        rect=(0.0, 0.0, self.width_mm, self.height_mm), markers=markers)

    def tile_only_ids(self) -> set[int]:
        """Markers that only a tiled print carries (not the sheet's own corner markers)."""
        corner = set(SheetSpec(self.kind, self.width_mm, self.height_mm).marker_centres())
        return {m for t in self.tiles for m, _, _ in t.markers} - corner


@dataclass
class TiledCalibration:
    """Image pixels <-> sheet mm, one homography per tile. Offers what the readers use of a
    `Calibration`: `rectify`, `to_image`, `to_sheet`, `image_size`, `error_mm`, `markers_used`."""

    sheet: TiledSheet
    image_size: tuple[int, int]
    tiles: dict[str, Calibration]  # every tile, located or borrowed
    located: list[str] = field(default_factory=list)  # tiles fitted from their own markers
    error_mm: float = 0.0
    markers_used: list[int] = field(default_factory=list)
    _maps: tuple | None = field(default=None, repr=False, compare=False)  # cached remap and gap mask

    def _tile_at(self, x: float, y: float) -> TileSpec:
        for t in self.sheet.tiles:
            if t.contains(x, y):
                return t
        cx = [((t.rect[0] + t.rect[2]) / 2 - x) ** 2 + ((t.rect[1] + t.rect[3]) / 2 - y) ** 2
              for t in self.sheet.tiles]
        return self.sheet.tiles[int(np.argmin(cx))]

    def to_image(self, points_mm: np.ndarray) -> np.ndarray:
        pts = np.asarray(points_mm, np.float64).reshape(-1, 2)
        out = np.empty_like(pts)
        for i, (x, y) in enumerate(pts):
            out[i] = self.tiles[self._tile_at(x, y).name].to_image(pts[i:i + 1])[0]
        return out

    def to_sheet(self, points_px: np.ndarray) -> np.ndarray:
        """Each point through the tile that maps it inside itself (the nearest tile's when none does)."""
        pts = np.asarray(points_px, np.float64).reshape(-1, 2)
        out = np.empty_like(pts)
        for i in range(len(pts)):
            cands = [(t, self.tiles[t.name].to_sheet(pts[i:i + 1])[0]) for t in self.sheet.tiles]
            inside = [mm for t, mm in cands if t.contains(*mm)]
            out[i] = inside[0] if inside else cands[0][1]
        return out

    def rectify(self, image: np.ndarray, px_per_mm: float = 2.0) -> np.ndarray:
        """The sheet's top view. Each tile's part comes through that tile's homography; across a seam
        the two fits are blended over `BLEND_MM`, so a die standing over the seam stays whole (pasting
        the tiles edge to edge would cut it in two, each half shifted by the gap)."""
        check_image(image)
        h, w = image.shape[:2]
        if (w, h) != tuple(self.image_size):
            raise VisionError(f"frame is {w}x{h} but the calibration was made on "
                              f"{self.image_size[0]}x{self.image_size[1]} frames; re-localise")
        key = (px_per_mm, tuple(id(c) for c in self.tiles.values()))
        if self._maps is None or self._maps[0] != key:
            mx, my = self._remap(px_per_mm)
            self._maps = (key, mx, my, self._gaps(mx, my), None)
        _, mx, my, gaps, seen_empty = self._maps
        top = cv2.remap(image, mx, my, cv2.INTER_LINEAR)
        if not gaps.any():
            return top
        # The table seen through the gaps between tiles is no part of the sheet: a dark line along a
        # seam would swamp the local contrast of every zone it crosses. Where a gap still looks as in
        # the first view it is filled in from both sides; where it changed, something (a die) stands
        # over it and is kept whole.
        grey = cv2.cvtColor(top, cv2.COLOR_BGR2GRAY)
        if seen_empty is None:
            self._maps = (*self._maps[:4], grey)
            seen_empty = grey
        still = gaps & (cv2.absdiff(grey, seen_empty) < GAP_CHANGE).astype(np.uint8)
        return cv2.inpaint(top, still, 2, cv2.INPAINT_TELEA)

    def _gaps(self, mx: np.ndarray, my: np.ndarray) -> np.ndarray:
        """Top-view pixels near a seam that no tile's paper covers (uint8 mask, dilated by 2 px)."""
        on_paper = np.zeros(mx.shape, bool)
        near_seam = np.zeros(mx.shape, bool)
        for t in self.sheet.tiles:
            H = self.tiles[t.name].homography
            den = H[2, 0] * mx + H[2, 1] * my + H[2, 2]
            sx = (H[0, 0] * mx + H[0, 1] * my + H[0, 2]) / den
            sy = (H[1, 0] * mx + H[1, 1] * my + H[1, 2]) / den
            x0, y0, x1, y1 = t.rect
            on_paper |= (sx >= x0) & (sx <= x1) & (sy >= y0) & (sy <= y1)
        h, w = mx.shape
        px = w / self.sheet.width_mm
        for edge in {t.rect[0] for t in self.sheet.tiles} - {0.0}:
            c = round(edge * px)
            near_seam[:, max(0, c - round(6 * px)):c + round(6 * px)] = True
        for edge in {t.rect[1] for t in self.sheet.tiles} - {0.0}:
            r = round(edge * px)
            near_seam[max(0, r - round(6 * px)):r + round(6 * px), :] = True
        gaps = (near_seam & ~on_paper).astype(np.uint8)
        return cv2.dilate(gaps, np.ones((5, 5), np.uint8))  # the camera blurs the paper edges

    def _remap(self, px_per_mm: float) -> tuple[np.ndarray, np.ndarray]:
        """Image coordinates of every top-view pixel: the tiles' inverse homographies, weighted."""
        size = (round(self.sheet.width_mm * px_per_mm), round(self.sheet.height_mm * px_per_mm))
        xs = np.arange(size[0], dtype=np.float64) / px_per_mm
        ys = np.arange(size[1], dtype=np.float64) / px_per_mm
        mx = np.zeros((size[1], size[0]))
        my = np.zeros((size[1], size[0]))
        cols = sorted({t.rect[0] for t in self.sheet.tiles} | {t.rect[2] for t in self.sheet.tiles})
        rows = sorted({t.rect[1] for t in self.sheet.tiles} | {t.rect[3] for t in self.sheet.tiles})
        for t in self.sheet.tiles:
            wx, wy = _band(xs, t.rect[0], t.rect[2], cols), _band(ys, t.rect[1], t.rect[3], rows)
            ix, iy = np.flatnonzero(wx), np.flatnonzero(wy)
            if not len(ix) or not len(iy):
                continue
            sx, sy = slice(ix[0], ix[-1] + 1), slice(iy[0], iy[-1] + 1)  # where this tile has a say
            gx, gy = np.meshgrid(xs[sx], ys[sy])
            inv = np.linalg.inv(self.tiles[t.name].homography)
            den = inv[2, 0] * gx + inv[2, 1] * gy + inv[2, 2]
            wgt = wy[sy, None] * wx[None, sx]
            mx[sy, sx] += wgt * (inv[0, 0] * gx + inv[0, 1] * gy + inv[0, 2]) / den
            my[sy, sx] += wgt * (inv[1, 0] * gx + inv[1, 1] * gy + inv[1, 2]) / den
        return mx.astype(np.float32), my.astype(np.float32)


GAP_CHANGE = 30  # grey levels: a gap pixel further than this from its first look is covered by something
BLEND_MM = 40.0  # width of the band across a seam where two tiles' fits are blended


def _band(v: np.ndarray, lo: float, hi: float, edges: list[float]) -> np.ndarray:
    """Weight of the strip [lo, hi] along one axis: 1 inside, ramping to 0 across each inner edge over
    BLEND_MM (the ramps of neighbouring strips add up to 1); no ramp at the sheet's outer edges."""
    half = BLEND_MM / 2
    up = np.ones_like(v) if lo <= edges[0] else np.clip((v - (lo - half)) / BLEND_MM, 0.0, 1.0)
    down = np.ones_like(v) if hi >= edges[-1] else np.clip(((hi + half) - v) / BLEND_MM, 0.0, 1.0)
    return np.minimum(up, down)


def _shift_mm(cal: Calibration, tile: TileSpec, found: dict[int, np.ndarray]) -> float | None:
    """How far the tile's markers seen now lie from where they are printed, through the tile's kept
    calibration: the mean marker-corner displacement on the sheet, in mm (None: none of them seen).
    Measured on the sheet, as `vision.localise.Localiser` does, so that one limit means the same at
    every camera resolution and distance (the old limit, 4 image pixels, was 3.8 mm to a 720p camera at
    850 mm, 2.6 mm to a 1080p one and 1.3 mm to a 4K one)."""
    wanted = tile.marker_corners()
    seen = [m for m in found if m in wanted]
    if not seen:
        return None
    return float(np.mean([np.linalg.norm(cal.to_sheet(found[m]) - wanted[m], axis=1).mean() for m in seen]))


class TiledLocaliser:
    """Follows an assembled sheet over frames, tile by tile, like `vision.localise.Localiser` does
    for a one-piece sheet: a tile whose visible markers stay within `move_mm` (on the sheet) of where its
    calibration puts them keeps that calibration (a steady top view); one whose markers moved is refitted; one
    whose markers are hidden keeps the last calibration. When one tile moved, every tile in view is
    refitted (the camera was most likely knocked)."""

    def __init__(self, sheet: TiledSheet, move_mm: float = MOVE_MM) -> None:
        self.sheet = sheet
        self.move_mm = move_mm
        self.calibration: TiledCalibration | None = None

    def update(self, image: np.ndarray) -> LocaliseResult:
        check_image(image)
        h, w = image.shape[:2]
        prev = self.calibration if self.calibration and tuple(self.calibration.image_size) == (w, h) else None
        found = self._steady_markers(image, prev)
        if found is None:
            found = detect_sheet_markers(image, self.sheet.whole())
        seen = sorted(found)
        tiles: dict[str, Calibration] = {}
        located: list[str] = []
        refitted = 0
        olds = {t.name: prev.tiles[t.name] if prev and t.name in prev.located else None
                for t in self.sheet.tiles}
        shifts = {t.name: _shift_mm(olds[t.name], t, found) if olds[t.name] is not None else None
                  for t in self.sheet.tiles}
        # one tile moved: most likely the camera did, and a tile whose markers moved a little less than
        # the limit (nearer the bump's pivot) is then a few px off too; refit every tile in view
        moved = any(v is not None and v > self.move_mm for v in shifts.values())
        for t in self.sheet.tiles:
            old, shift = olds[t.name], shifts[t.name]
            if old is not None and (shift is None or (shift <= self.move_mm and not moved)):
                tiles[t.name] = old
                located.append(t.name)
                continue
            own = {m: c for m, c in found.items() if m in t.marker_centres()}
            if len(own) >= 2:
                try:
                    tiles[t.name] = localise(image, t, markers=own)
                    located.append(t.name)
                    refitted += 1
                    continue
                except LocaliseError:
                    pass
            if old is not None:  # markers moved but too few to refit: keep the last one
                tiles[t.name] = old
                located.append(t.name)
        if not located:
            msg = f"no tile of the {self.sheet.kind!r} sheet could be located (markers seen: {seen})"
            if prev is not None:
                return LocaliseResult("kept", prev, msg + "; keeping the last good calibration", seen)
            return LocaliseResult("none", None, msg, seen)
        for t in self.sheet.tiles:  # a tile never located borrows its nearest located neighbour's fit
            if t.name not in tiles:
                cx, cy = (t.rect[0] + t.rect[2]) / 2, (t.rect[1] + t.rect[3]) / 2
                near = min(located, key=lambda n: _dist(self._tile(n), cx, cy))
                tiles[t.name] = tiles[near]
        if prev is not None and not refitted and located == prev.located and all(
                tiles[n] is prev.tiles[n] for n in tiles):
            msg = f"{len(located)} tiles where expected (markers seen: {seen})"
            return LocaliseResult("steady", prev, msg, seen)
        cal = TiledCalibration(self.sheet, (w, h), tiles, located,
                               max(tiles[n].error_mm for n in located),
                               sorted({m for n in located for m in tiles[n].markers_used}))
        status = "located" if prev is None else ("moved" if refitted else "steady")
        self.calibration = cal
        return LocaliseResult(status, cal, f"{len(located)} of {len(self.sheet.tiles)} tiles located "
                              f"(markers seen: {seen})", seen)

    def _tile(self, name: str) -> TileSpec:
        return next(t for t in self.sheet.tiles if t.name == name)

    def _steady_markers(self, image: np.ndarray,
                        prev: TiledCalibration | None) -> dict[int, np.ndarray] | None:
        """The plain detection's markers when they show every tile where its fit puts it, else None.
        With twenty-odd small markers some are nearly always missed (a die or a hand on one), and the
        rescue passes that look for them cost five times the plain one on every frame; a tile that
        shows one marker where it should be is steady without them."""
        if prev is None or len(prev.located) < len(self.sheet.tiles):
            return None
        wanted = {m for t in self.sheet.tiles for m, _, _ in t.markers}
        plain = {m: c for m, c in detect_markers(image).items() if m in wanted}
        for t in self.sheet.tiles:
            shift = _shift_mm(prev.tiles[t.name], t, plain)
            if shift is None or shift > self.move_mm:
                return None
        return plain


def _dist(t: TileSpec, x: float, y: float) -> float:
    return float(np.hypot((t.rect[0] + t.rect[2]) / 2 - x, (t.rect[1] + t.rect[3]) / 2 - y))


def tiled_sheet_from_json(data: dict) -> TiledSheet:
    """A tiled print's plan back from its STEM-PAPER-tiles.json (docs/formats/printing-tiles.md)."""
    try:
        size = tuple(float(v) for v in data["size_mm"])
        tiles = []
        for t in data["tiles"]:
            markers = tuple((int(m), float(p[0]), float(p[1])) for m, p in t["markers"].items())
            rect = tuple(float(v) for v in t["rect_mm"])
            tiles.append(TileSpec(str(data["sheet"]), *size, float(data["marker_size_mm"]),
                                  name=str(t["tile"]), rect=rect, markers=markers))
        return TiledSheet(str(data["sheet"]), *size, tuple(tiles))
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise VisionError(f"not a tiled sheet plan: {exc!r}") from exc
