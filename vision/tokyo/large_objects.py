"""Hands and other objects far wider than the pieces: reported, and cut out of the piece mask so their
outlines and fingers are not read as sticks.

Pieces are thin: nothing of theirs lies more than a column's width from the table, so a much deeper
distance transform of the piece mask means something else. Two things made that test fire on tables
with no hand (sixth session, seeds 3/6/7/8 and 301-304: 10 of 873 views without a hand warned):
* the rods' width, read as the commonest ridge width of the mask, came out at 2 px on a wood table whose
  grain streaks filled the mask, so every stick was "far wider than a rod". With a calibrated camera a
  rod's width at that place is known, and the reference is never under it (blur included);
* the lit table enclosed by shadowed roads entered the mask as one blob. Its colour is the table's; a
  hand's is not (the renders' hands: at least 0.039 in chromaticity from the table, the blobs of table
  under 0.021), so a blob of the table's own colour is not reported.
* a lamp's halo on the mat: the table's colour with light added alike to every channel, far from the
  table's chromaticity but no hand (tuning seed 43, camera 2 at 650-750 mm, 40 degrees: a halo at its
  picture's edge, deeper than 3.5 of the thinner rods' half-widths, blocked every frame of the match
  and no move was read). A blob mostly lit mat (`lying_pieces.lit_mat`, the grey-blob test's own) is
  not reported; a hand's skin over the mat is raised unevenly across the channels.
A hand's fingers reach out of the region withheld around its palm and were read as sticks: the region
now grows over the wider-than-rod mask joined to it, and `drop_fingers` leaves out sticks of the hand's
own colour near it. `rod_half_width_floor` gives the stick pass the same calibrated floor for the rods'
width. Measurements: docs/vision/tokyo.md, "Fragments, neighbours and false hands".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import cv2
import numpy as np

from vision.tokyo.calibration import TokyoCalibration
from vision.tokyo.channels import channel_norm, channel_sum
from vision.tokyo.foreground import CHROMA
from vision.tokyo.labels import components
from vision.tokyo.lying_pieces import lit_mat
from vision.tokyo.observation import TokyoObservation
from vision.tokyo.pixels import mask_box, nonzero_yx
from vision.tokyo.sticks import RawStick, _ridge_boxed, rod_half_width

DEPTH_WIDTHS = 3.5  # deeper than this many rod half-widths from the table: no piece
BLUR_GAIN = 1.3  # the mask's rod half-width over the calibrated one (blur, shading): 9-13 px for 6-10 px
TABLE_CHROMA = CHROMA  # a blob whose mean chromaticity lies this close to the table's is table
# the withheld region grows over the mask wider than any rod (this many rod half-widths deep) joined to
# the object: a hand's fingers are narrower than its palm but wider than a stick, and were read as sticks
WIDE_WIDTHS = 1.6
# a stick of a reported object's colour (chromaticity within FINGER_CHROMA) lying within FINGER_REACH
# times the square root of its withheld region's area of it is a finger, not a stick
FINGER_CHROMA = 0.5 * CHROMA
FINGER_REACH = 0.75
# the least rod half-width read off the mask, as a share of the calibrated one at the mask's pixels (the
# mask's own reading is about 1.3 times that where it is sane, so the floor seldom binds; at 0.7 a
# speckled cloth table's faint grey sticks came out as short false pieces)
FLOOR_SHARE = 1.0


@dataclass
class LargeObject:
    """One object reported: the region withheld around it and its colour (mean BGR of its core)."""

    region: np.ndarray | None  # uint8 0/1, image-sized (None: not outlined, see `large_objects`)
    bgr: np.ndarray | None


HAND_WARNING = "hand or large object"  # how each found object is warned of
_HAND_AT = re.compile(re.escape(HAND_WARNING) + r" near \((\d+), (\d+)\) px")


def hand_at(warning: str) -> tuple[int, int] | None:
    """Where a hand or large object warning (as this module writes it) places the object, in whole
    pixels; None for any other warning."""
    found = _HAND_AT.search(warning)
    return (int(found[1]), int(found[2])) if found else None


def large_objects(
    obs: TokyoObservation,
    fg: np.ndarray,
    image: np.ndarray | None = None,
    table: np.ndarray | None = None,
    calibration: TokyoCalibration | None = None,
    found: list[LargeObject] | None = None,
    dist: np.ndarray | None = None,
    outline: bool = True,
) -> np.ndarray:
    """Warn of each large object in `fg` (cleared there in place) and return the mask (255) of the
    regions withheld. `image` and `table` (the table estimate, image-sized) let table-coloured blobs
    pass; `calibration` sets the rods' width where the mask cannot; `found`, if given, receives each
    object (for `drop_fingers`); `dist`, if the caller has it, is `fg`'s distance transform (L2, 5x5
    mask), as the stick pass takes it. Without `outline` the objects are warned of (and given to
    `found`) but no region is grown round them and `fg` is left as it is: a reader that stops at a
    hand needs the warnings alone (the tests of each object read neither `fg` nor the regions)."""
    dist, ridge, box = _ridge_boxed(fg, dist)
    hw = rod_half_width(dist, ridge, box)
    cut = np.zeros(fg.shape, np.uint8)
    # the deep parts lie in the mask (the transform is 0 elsewhere): labelled on the mask's box, its
    # corner on an even row and column, they come in the whole frame's order with its stats (labels.py)
    part = mask_box(fg, 0, 2)
    if part is None:
        return cut
    y0, x0 = part[0].start // 2 * 2, part[1].start
    part = (slice(y0, part[0].stop), part[1])
    deep = dist[part] > DEPTH_WIDTHS * hw
    if not deep.any():
        return cut
    n, part_lab, stats, centres = components(deep.astype(np.uint8))
    lab: np.ndarray | None = None  # the frame's labels, made only to outline an object
    tinted = image is not None and table is not None and table.shape[:2] == image.shape[:2]
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        inner = part_lab[y : y + h, x : x + w] == i
        x, y = x + x0, y + y0
        # the tests on the component's box: the same pixels in the same order as on the whole frame
        box = (slice(y, y + h), slice(x, x + w))
        ref = hw
        if calibration is not None:
            centre = _frame_centroid(centres[i], int(area), x0, y0)
            ref = max(hw, BLUR_GAIN * _rod_half_width_at(calibration, centre))
            if float(dist[box][inner].max()) <= DEPTH_WIDTHS * ref:
                continue
        if tinted and float(_chroma_gap(image[box][inner], table[box][inner]).mean()) < TABLE_CHROMA:
            continue
        if tinted and lit_mat(image[box], table[box], inner.view(np.uint8), (0, 0, w, h)):
            continue  # the mat with a lamp's light added alike to every channel: a halo, no hand
        obs.warnings.append(
            f"{HAND_WARNING} near ({x + w / 2:.0f}, {y + h / 2:.0f}) px: readings there are withheld"
        )
        # the object's colour from its pixels in the frame's row order (its box holds them all)
        bgr = None if image is None else image[box][inner].mean(0)
        if not outline:
            if found is not None:
                found.append(LargeObject(None, bgr))
            continue
        # grown by int(4 * ref) 3x3 dilations on its box widened by that reach: the dilation's border
        # adds nothing, so these are the pixels the whole frame's dilation gives
        k = int(4 * ref)
        grow = (slice(max(0, y - k), y + h + k), slice(max(0, x - k), x + w + k))
        if lab is None:
            lab = np.zeros(fg.shape, np.int32)
            lab[part] = part_lab
        region = np.zeros(fg.shape, np.uint8)
        region[grow] = cv2.dilate((lab[grow] == i).view(np.uint8), np.ones((3, 3), np.uint8), iterations=k)
        if WIDE_WIDTHS > 0:
            region |= _wide_parts(dist, region, WIDE_WIDTHS * ref, ref, grow)
        fg[region > 0] = 0
        cut |= region
        if found is not None:
            found.append(LargeObject(region, bgr))
    return cut * 255


def _frame_centroid(centre: np.ndarray, area: int, x0: int, y0: int) -> np.ndarray:
    """The centroid OpenCV gives a component labelled on the whole frame, from the one it gave it on a
    box cornered at (x0, y0): its pixels' coordinate sums (whole numbers, exactly recovered from the
    box's mean) moved by the corner, over the area, as OpenCV divides them."""
    a = float(area)
    return np.array([float(round(float(centre[0]) * a) + x0 * area) / a,
                     float(round(float(centre[1]) * a) + y0 * area) / a])


def drop_fingers(obs: TokyoObservation, raw: list[RawStick], objects: list[LargeObject]) -> list[RawStick]:
    """The sticks left after taking out those of a reported object's colour (within FINGER_CHROMA)
    lying within FINGER_REACH of its size from it: a hand's fingers reach out of the region withheld
    around its palm, and read as sticks."""
    if not objects:
        return raw
    near = []
    for ob in objects:
        if ob.bgr is None or ob.region is None:
            continue
        reach = FINGER_REACH * float(np.sqrt(ob.region.sum()))
        gap = cv2.distanceTransform((ob.region == 0).astype(np.uint8), cv2.DIST_L2, 3)
        near.append((gap, reach, _chroma(ob.bgr)))
    keep = []
    for s in raw:
        pts = s.p0 + np.linspace(0.0, 1.0, 9)[:, None] * (s.p1 - s.p0)
        finger = False
        for gap, reach, chroma in near:
            h, w = gap.shape
            xs = np.clip(pts[:, 0].round().astype(int), 0, w - 1)
            ys = np.clip(pts[:, 1].round().astype(int), 0, h - 1)
            if gap[ys, xs].min() <= reach and np.linalg.norm(_chroma(s.bgr) - chroma) < FINGER_CHROMA:
                finger = True
        if finger:
            mid = (s.p0 + s.p1) / 2
            obs.warnings.append(
                f"stick-like part of a hand near ({mid[0]:.0f}, {mid[1]:.0f}) px (its colour): left out"
            )
        else:
            keep.append(s)
    return keep


def _chroma(bgr: np.ndarray) -> np.ndarray:
    f = np.asarray(bgr, np.float64) + 4
    return f / f.sum()


def _wide_parts(dist: np.ndarray, region: np.ndarray, depth: float, ref: float,
                within: tuple[slice, slice]) -> np.ndarray:
    """The parts of the mask deeper than `depth` that touch `region` (nothing outside the box
    `within`), widened to their full width."""
    wide = (dist > depth).astype(np.uint8)
    n, lab = cv2.connectedComponents(wide)
    touching = np.unique(lab[within][(region[within] > 0) & (wide[within] > 0)])
    touching = touching[touching > 0]
    if len(touching) == 0:
        return np.zeros_like(region)
    grown = np.isin(lab, touching).astype(np.uint8)
    k = int(2 * ref) | 1
    # dilated within the parts' box widened by the kernel's reach: the same pixels, far fewer visited
    ys, xs = nonzero_yx(grown)
    h, w = grown.shape
    y0, y1 = max(0, ys.min() - k), min(h, ys.max() + k + 1)
    x0, x1 = max(0, xs.min() - k), min(w, xs.max() + k + 1)
    out = np.zeros_like(grown)
    out[y0:y1, x0:x1] = cv2.dilate(grown[y0:y1, x0:x1],
                                   cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1)))
    return out


def rod_half_width_floor(calibration: TokyoCalibration, fg: np.ndarray, samples: int = 64) -> float:
    """The median calibrated half-width of a stick over (up to `samples` of) the mask's pixels: the
    least the rods' width read off the mask may be."""
    ys, xs = nonzero_yx(fg)
    if len(xs) == 0:
        return 0.0
    pick = np.linspace(0, len(xs) - 1, min(samples, len(xs))).astype(int)
    # the samples' widths in one projection (`local_scales`: the same values as `_rod_half_width_at`
    # one at a time, which took 25 ms a frame); each back-projected alone, as there (NumPy multiplies
    # a single row by a matrix another way than several, which can differ in the last bit), in one
    # stacked call (`ray_to_plane_each`)
    z = 1.5 * calibration.sizes.unit_mm
    points = calibration.camera.ray_to_plane_each(np.stack([xs[pick], ys[pick]], 1).astype(np.float64), z)
    return FLOOR_SHARE * float(np.median(calibration.local_scales(points)[2]))


def _rod_half_width_at(calibration: TokyoCalibration, uv: np.ndarray) -> float:
    """A stick's half-width in pixels, seen side on, where a low road would stand at pixel `uv`."""
    z = 1.5 * calibration.sizes.unit_mm
    point = calibration.camera.ray_to_plane(np.asarray(uv, np.float64).reshape(1, 2), z)[0]
    return calibration.local_scale(point)[2]


def _chroma_gap(pixels: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Per pixel ((N, 3) BGR, or an image), how far its chromaticity lies from the table estimate's
    there (the same shape: only the pixels asked about are computed)."""
    f = pixels.astype(np.float32) + 4
    b = table.astype(np.float32) + 4
    return channel_norm(f / channel_sum(f)[..., None] - b / channel_sum(b)[..., None])
