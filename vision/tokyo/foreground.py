"""Separate pieces from the table: a smooth background estimate and a shadow-tolerant difference.

The table (wood grain, cloth, a mat) is estimated by a wide median filter on a reduced image; a pixel is
foreground when its chromaticity differs from the table's there, or its brightness differs more than
shadows and grain do. Shadows keep the table's chromaticity and only darken it, so they stay background.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.tokyo import classify_jit
from vision.tokyo.channels import channel_max, channel_sum
from vision.tokyo.classify_jit import DARK
from vision.tokyo.labels import components


def table_background(image: np.ndarray, scale: int = 4, window: int = 21) -> np.ndarray:
    """The table at 1/`scale` size: a wide median (twice, to remove piece clusters the first left)."""
    h, w = image.shape[:2]
    small = cv2.resize(image, (max(8, w // scale), max(8, h // scale)), interpolation=cv2.INTER_AREA)
    return cv2.medianBlur(cv2.medianBlur(small, window), window)


def refine_background(image: np.ndarray, fg: np.ndarray, scale: int = 4, sigma: float = 12.0) -> np.ndarray:
    """Re-estimate the table (1/`scale` size) from pixels not marked foreground (normalised
    convolution), so a dense cluster of pieces does not pull the estimate towards the pieces' colour."""
    h, w = image.shape[:2]
    size = (max(8, w // scale), max(8, h // scale))
    keep = cv2.resize(cv2.dilate(fg, np.ones((9, 9), np.uint8)), size, interpolation=cv2.INTER_AREA) < 64
    return _normalised_table(image, size, keep, sigma)


def _keep_from_half(rough: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """`refine_background`'s table pixels (at 1/4 size) for a rough mask made at half size, without
    bringing it to full size first: a 9 x 9 dilation of the mask doubled by nearest neighbours is the
    5 x 5 dilation at half size doubled, and the 4 x 4 area mean of a doubled mask is the 2 x 2 area
    mean of the mask, rounded alike (only for frames whose sides divide by 4; see `estimate_table`)."""
    return cv2.resize(cv2.dilate(rough, np.ones((5, 5), np.uint8)), size, interpolation=cv2.INTER_AREA) < 64


def _normalised_table(image: np.ndarray, size: tuple[int, int], keep: np.ndarray, sigma: float) -> np.ndarray:
    """The table at `size` from the pixels `keep` marks (normalised convolution, see
    `refine_background`)."""
    small = cv2.resize(image, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    m = keep.astype(np.float32)
    num = cv2.GaussianBlur(small * m[..., None], (0, 0), sigma)
    den = cv2.GaussianBlur(m, (0, 0), sigma)[..., None]
    seen = den > 0.02
    if seen.all():  # the wide fallback is needed only where the pieces hide the table all round
        bg = num / np.maximum(den, 1e-6)
    else:
        bg = np.where(seen, num / np.maximum(den, 1e-6), cv2.GaussianBlur(small, (0, 0), sigma * 4))
    return np.clip(bg, 0, 255).astype(np.uint8)


def pieces_mask(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(foreground mask, table background at full size) with one refinement round; the first, rough
    pass runs at half size."""
    masks, table = pieces_masks(image, (BRIGHT,))
    return masks[0], table


def pieces_masks(
    image: np.ndarray,
    brights: tuple[float, ...],
    chromas: tuple[float, ...] | None = None,
    estimate: TableEstimate | None = None,
) -> tuple[list[np.ndarray], np.ndarray]:
    """`pieces_mask` with one mask per brightness gain (a pixel brighter than the table by more is a
    piece) and, optionally, per chromaticity difference (`CHROMA` where not given), from one table
    estimate: `estimate` (one kept from an earlier frame of the same view, see `TableEstimate`) or,
    without it, this image's own."""
    h, w = image.shape[:2]
    est = estimate_table(image) if estimate is None else estimate
    cbs, sb = est.chroma_planes((h, w))
    return _classify(image, cbs, sb, brights, chromas), est.table_image((h, w))


# grey levels a 64 x 36 thumbnail cell (about 20 x 20 px of a 720p frame, so sensor noise averages
# out) may move while the light counts as the same: a piece mask's chromaticity test allows the table
# 0.024, about 10 levels of one channel on a mid-grey table
LIGHT_TOLERANCE = 4.0


@dataclass
class TableEstimate:
    """One view's table: its chromaticity over the whole frame (`chroma`), the local estimate at 1/4
    size (`background`) and the 64 x 36 thumbnail of the image they were taken from (`thumb`).

    The estimate costs about half of the piece masks (the median of a reduced frame, the rough half-size
    mask, the normalised convolution's wide blurs) and depends on the table, not on the pieces: a
    camera watching a table keeps it while the light holds (`fits`), and builds, hands and pieces come
    and go against it (under a new piece the kept estimate shows the very table, where a fresh one
    interpolates it from around the piece)."""

    chroma: np.ndarray
    background: np.ndarray
    thumb: np.ndarray
    _planes: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = field(
        default_factory=dict, repr=False)
    _chroma_planes: dict[tuple[int, int], tuple[tuple[np.ndarray, ...], np.ndarray]] = field(
        default_factory=dict, repr=False)
    _tables: dict[tuple[int, int], np.ndarray] = field(default_factory=dict, repr=False)

    def planes(self, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(table chromaticity, table brightness sum, table image) at `shape`, made once per shape."""
        if shape not in self._planes:
            cbs, sb = self.chroma_planes(shape)
            cb = cv2.merge(cbs)
            cb.setflags(write=False)
            self._planes[shape] = cb, sb, self.table_image(shape)
        return self._planes[shape]

    def chroma_planes(self, shape: tuple[int, int]) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
        """(the table chromaticity's three planes, the table brightness sum) at `shape`, made once per
        shape: what the piece masks compare with."""
        if shape not in self._chroma_planes:
            cbs, sb = _table_planes(self.background, self.chroma, shape)
            for a in (*cbs, sb):  # shared by every frame read against this estimate: nobody may write them
                a.setflags(write=False)
            self._chroma_planes[shape] = cbs, sb
        return self._chroma_planes[shape]

    def table_image(self, shape: tuple[int, int]) -> np.ndarray:
        """The table estimate brought to `shape` (BGR), made once per shape."""
        if shape not in self._tables:
            table = cv2.resize(self.background, (shape[1], shape[0]), interpolation=cv2.INTER_LINEAR)
            table.setflags(write=False)
            self._tables[shape] = table
        return self._tables[shape]

    def fits(self, image: np.ndarray, tolerance: float = LIGHT_TOLERANCE,
             thumb: np.ndarray | None = None) -> bool:
        """Whether `image` shows this estimate's table in the same light and from the same place: in
        at least half of the thumbnail's cells no channel moved by more than `tolerance` levels (a
        hand or new pieces change some cells, a new light or a moved camera changes most). `thumb`:
        `thumbnail(image)`, where the caller has it."""
        now = _thumb(image) if thumb is None else thumb
        if now.shape != self.thumb.shape:
            return False
        moved = channel_max(cv2.absdiff(now, self.thumb))
        return float(np.median(moved)) <= tolerance


def _thumb(image: np.ndarray) -> np.ndarray:
    return cv2.resize(image, (64, 36), interpolation=cv2.INTER_AREA)


def thumbnail(image: np.ndarray) -> np.ndarray:
    """The 64 x 36 thumbnail a table estimate keeps and a light test compares (made once a view: the
    hand probe's test and the view's own estimate read the same one)."""
    return _thumb(image)


def estimate_table(image: np.ndarray, thumb: np.ndarray | None = None) -> TableEstimate:
    """This image's own table estimate (what `pieces_masks` takes without a kept one): a rough mask at
    half size against a wide median, then the table re-estimated from the pixels it leaves. The wide
    median (twice, 21 px at 1/4 size) runs at 1/8 size (11 px): the same reach for an eighth of the
    work, and it only sets the rough mask. `thumb`: `thumbnail(image)`, where the caller has it."""
    h, w = image.shape[:2]
    thumb = _thumb(image) if thumb is None else thumb
    table = _chroma_of(thumb)
    half = cv2.resize(image, (max(8, w // 2), max(8, h // 2)), interpolation=cv2.INTER_AREA)
    eighth = cv2.resize(half, (max(8, w // 8), max(8, h // 8)), interpolation=cv2.INTER_AREA)
    rough = foreground_mask(half, cv2.medianBlur(cv2.medianBlur(eighth, 11), 11), table)
    if w % 4 == 0 and h % 4 == 0 and min(w, h) >= 32:  # the half-size mask doubles to the frame exactly
        size = (w // 4, h // 4)
        return TableEstimate(table, _normalised_table(image, size, _keep_from_half(rough, size), 12.0), thumb)
    rough = cv2.resize(rough, (w, h), interpolation=cv2.INTER_NEAREST)
    return TableEstimate(table, refine_background(image, rough), thumb)


def table_chroma(image: np.ndarray) -> np.ndarray:
    """The table's chromaticity over the whole frame (it covers most of it): the median of a reduced
    image. A large object the local estimate swallowed (a hand) cannot move this one."""
    return _chroma_of(_thumb(image))


def _chroma_of(thumb: np.ndarray) -> np.ndarray:
    small = thumb.reshape(-1, 3).astype(np.float32) + 4
    return np.median(small / small.sum(1, keepdims=True), 0)


BRIGHT = 1.2  # brighter than the table by this gain: a piece (grain and light vary less)
CHROMA = 0.024  # chromaticity further from the table's than this: a piece


def foreground_mask(image: np.ndarray, background: np.ndarray, table: np.ndarray | None = None) -> np.ndarray:
    """Pieces against the table estimate `background` (any size; it is smooth, so it is compared after
    resizing its chromaticity and brightness, not its pixels)."""
    return _masks(image, background, table, (BRIGHT,))[0]


def _masks(
    image: np.ndarray,
    background: np.ndarray,
    table: np.ndarray | None,
    brights: tuple[float, ...],
    chromas: tuple[float, ...] | None = None,
) -> list[np.ndarray]:
    cb, sb = _table_planes(background, table, image.shape[:2])
    return _classify(image, cb, sb, brights, chromas)


def _table_planes(
    background: np.ndarray, table: np.ndarray | None, shape: tuple[int, int]
) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """The table estimate's chromaticity (3 planes) and brightness sum, at `shape`. Each plane is
    brought to `shape` on its own: the values the 3-channel resize gives its channels, bit for bit
    (tests/test_tokyo_classify_planes.py), and the piece masks read the planes apart."""
    h, w = shape
    b = background.astype(np.float32) + 4
    sb = channel_sum(b)
    cb = b / sb[..., None]
    if table is not None:
        # where the local estimate drifted far from the table's colour it swallowed an object
        drift = channel_max(np.abs(cb - table)) > 0.035
        cb[drift] = table
    cbs = tuple(np.ascontiguousarray(cb[..., k]) for k in range(3))
    if cb.shape[:2] != (h, w):
        cbs = tuple(cv2.resize(c, (w, h), interpolation=cv2.INTER_LINEAR) for c in cbs)
        sb = cv2.resize(sb, (w, h), interpolation=cv2.INTER_LINEAR)
    return cbs, sb


def _classify(
    image: np.ndarray,
    cbs: tuple[np.ndarray, ...],
    sb: np.ndarray,
    brights: tuple[float, ...],
    chromas: tuple[float, ...] | None,
) -> list[np.ndarray]:
    """One mask per (brightness gain, chromaticity difference) against the table's chromaticity planes
    `cbs` and brightness sum `sb`."""
    # the full-size float planes are computed a channel at a time, in place: the same float32
    # operations as on the 3-channel frame (the sum of three whole numbers is exact in any order), no
    # 3-channel temporaries or merges, and the channels' maximum over contiguous planes
    # + 4: chromaticity is noisy in the dark (added while converting: the same exact sums, one pass)
    # into this thread's kept planes: a frame's fresh float planes cost more in page faults than the
    # arithmetic (the same operations, written in place: the same bits)
    blurred = cv2.split(cv2.GaussianBlur(image, (5, 5), 1.2))
    chromas = chromas or (CHROMA,) * len(brights)
    fast = _compiled_masks(blurred, cbs, sb, brights, chromas)
    if fast is not None:
        return [_open_close(mask) for mask in fast]
    fs, sf, ratio, dark, fg, above = _planes(image.shape[:2])
    for c, f in zip(blurred, fs, strict=True):
        cv2.add(c, 4.0, dst=f, dtype=cv2.CV_32F)
    cv2.add(fs[0], fs[1], dst=sf)
    cv2.add(sf, fs[2], dst=sf)
    chroma = None
    for f, cb in zip(fs, cbs, strict=True):
        np.divide(f, sf, out=f)
        cv2.absdiff(f, cb, dst=f)
        chroma = f if chroma is None else cv2.max(chroma, f, dst=chroma)
    np.divide(sf, sb, out=ratio)
    np.less(ratio, DARK, out=dark)
    out = []
    for bright, chroma_min in zip(brights, chromas, strict=True):
        np.greater(chroma, chroma_min, out=fg)
        fg |= np.greater(ratio, bright, out=above)
        fg |= dark
        mask = fg.view(np.uint8)
        mask *= 255
        out.append(_open_close(mask))
    return out


def _open_close(mask: np.ndarray) -> np.ndarray:
    """A raw piece mask opened then closed (3 x 3): specks and pinholes gone."""
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))


def _compiled_masks(
    planes: tuple[np.ndarray, ...], cbs: tuple[np.ndarray, ...], sb: np.ndarray, brights: tuple[float, ...],
    chromas: tuple[float, ...],
) -> np.ndarray | None:
    """`_classify`'s raw masks (before opening and closing) from the compiled pass
    (vision/tokyo/classify_jit.py: the same float32 operations, the same masks), written into this
    thread's kept buffer; None where it does not apply (no numba, PURE_ENV, other types: `_classify`'s
    own passes then run). Thresholds must be Python floats: NumPy compares a float32 plane with one
    in float32, as the compiled pass does, but with a NumPy float64 in float64."""
    kernel = classify_jit.load()
    if (kernel is None or any(type(v) is not float for v in (*brights, *chromas))
            or any(p.dtype != np.uint8 for p in planes)
            or any(a.dtype != np.float32 or a.shape != sb.shape for a in (*cbs, sb))
            or len(planes) != 3 or len(cbs) != 3 or planes[0].shape != sb.shape):
        return None
    shape = (len(brights), *sb.shape)
    kept = getattr(_KEPT, "raw", None)
    if kept is None or kept[0].shape != shape:
        kept = _KEPT.raw = (np.empty(shape, np.uint8), np.empty(sb.shape[1], np.float32),
                            np.empty(sb.shape[1], np.float32))
    out, mrow, rrow = kept
    kernel(*planes, *cbs, sb, np.array(brights, np.float32), np.array(chromas, np.float32), out, mrow, rrow)
    return out


_KEPT = threading.local()


def _planes(shape: tuple[int, int]) -> tuple[list[np.ndarray], np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                              np.ndarray]:
    """This thread's working planes for `_classify` at `shape` (three colour planes, their sum, the
    brightness ratio; the dark, mask and comparison bools), made once per shape; their contents are
    overwritten by every call."""
    kept = getattr(_KEPT, "planes", None)
    if kept is None or kept[1].shape != shape:
        f32, b8 = (lambda: np.empty(shape, np.float32)), (lambda: np.empty(shape, bool))
        kept = ([f32(), f32(), f32()], f32(), f32(), b8(), b8(), b8())
        _KEPT.planes = kept
    return kept


def glare_mask(image: np.ndarray, table: np.ndarray | None = None, keep_pieces: bool = True) -> np.ndarray:
    """Blown-out highlights (every channel near saturation) and, given the table estimate, the bright
    halo around each: a glare spot's fading rim is brighter than the table and would read as pieces.
    The halo is searched only within about a spot's radius of it, so bright pieces elsewhere stay; with
    `keep_pieces` it takes only the table washed towards white, not a light piece beside the spot."""
    guarded, every = glare_masks(image, table)
    return guarded if keep_pieces else every


def glare_masks(image: np.ndarray, table: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """`glare_mask` with and without `keep_pieces`, from one search for the spots (the reader needs
    both: the second says whether there is glare at all)."""
    core = compact_blobs(saturated(image))
    if table is None or not core.any():
        return core * 255, core * 255
    # with the white-light test guarding pieces, the halo's faint outer rim can be taken as well
    gray, gray_table = (cv2.cvtColor(a, cv2.COLOR_BGR2GRAY).astype(np.float32) for a in (image, table))
    bright_guarded = (gray > HALO_GAIN_GUARDED * gray_table + 4).astype(np.uint8)
    bright_every = (gray > 1.12 * gray_table + 4).astype(np.uint8)
    guarded, every = core.copy(), core.copy()
    n, lab, stats, _ = components(core)
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        r = int(1.2 * np.sqrt(area / np.pi)) + 6
        y0, y1, x0, x1 = max(0, y - r), y + h + r, max(0, x - r), x + w + r
        spot = (lab[y0:y1, x0:x1] == i).astype(np.uint8)
        near = cv2.dilate(spot, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
        guarded[y0:y1, x0:x1] |= near & bright_guarded[y0:y1, x0:x1] & _like_glare(image[y0:y1, x0:x1],
                                                                                   table[y0:y1, x0:x1])
        every[y0:y1, x0:x1] |= near & bright_every[y0:y1, x0:x1]
    grow = np.ones((5, 5), np.uint8)
    return cv2.dilate(guarded, grow) * 255, cv2.dilate(every, grow) * 255


def saturated(image: np.ndarray) -> np.ndarray:
    """1 where every channel is at least 245 (uint8 0/1: `channel_min(image) >= 245`), in one pass."""
    core = cv2.inRange(image, (245, 245, 245), (255, 255, 255))
    core >>= 7  # 255 -> 1
    return core


HALO_GAIN_GUARDED = 1.04
GLARE_MIN_AREA = 12  # px: smaller saturated specks are sensor noise or a glint, not a spot to mask
GLARE_MAX_ELONGATION = 3.0  # a spot is round-ish; a saturated streak along a white stick is not
GLARE_MIN_SOLIDITY = 0.6  # area / convex hull: the lit tops of crossing white sticks make a star
GLARE_MIN_RADIUS = 3.0  # px inscribed: a streak cut short between crossing sticks is round-ish but thin


def compact_blobs(core: np.ndarray) -> np.ndarray:
    """The saturated components that can be glare: compact blobs. A white or light stick on a grey
    table saturates along its lit top in a thin streak (and crossing ones in a star); masking those
    would cut the sticks apart, so components that are long for their width, or far from convex,
    are left to the piece masks, and so are thin ones (a streak cut short where sticks cross over
    it can be round-ish, but no spot is only a few pixels wide)."""
    out = np.zeros_like(core)
    if not core.any():  # the usual frame: nothing saturated
        return out
    n, lab, stats, _ = components(core)
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if area < GLARE_MIN_AREA:
            continue
        blob = (lab[y:y + h, x:x + w] == i).astype(np.uint8)
        if cv2.distanceTransform(np.pad(blob, 1), cv2.DIST_L2, 3).max() < GLARE_MIN_RADIUS:
            continue
        contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        pts = np.vstack(contours).reshape(-1, 2).astype(np.float32)
        (_, _), (rw, rh), _ = cv2.minAreaRect(pts)
        long_side, short_side = max(rw, rh) + 1.0, min(rw, rh) + 1.0  # +1: pixel centres to extent
        hull = cv2.contourArea(cv2.convexHull(pts)) + 0.5 * cv2.arcLength(cv2.convexHull(pts), True) + 1.0
        if long_side > GLARE_MAX_ELONGATION * short_side or area < GLARE_MIN_SOLIDITY * hull:
            continue
        out[y:y + h, x:x + w] |= blob
    return out


def _like_glare(image: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Pixels that are the table plus white light: a highlight adds about the same to every channel
    (until one saturates). A light grey stick beside a glare spot is brighter than the table too, but
    by different amounts per channel wherever the table has a colour: it stays a piece."""
    f = image.astype(np.float32)
    d = f - table.astype(np.float32)
    live = f < 250  # a saturated channel lost what was added to it
    hi = np.where(live, d, -np.inf).max(2)
    lo = np.where(live, d, np.inf).min(2)
    n_live = live.sum(2)
    mean = np.where(live, d, 0).sum(2) / np.maximum(n_live, 1)
    ok = (n_live < 2) | (hi - lo < 0.25 * np.maximum(mean, 0) + 14)
    return ok.astype(np.uint8)
