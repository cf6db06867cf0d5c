"""The piece masks a channel at a time (issue #24, fifth round): `_classify` works on the table's
chromaticity planes (`TableEstimate.chroma_planes`) and the frame's channel planes, and gives the
masks the 3-channel computation gave (copied here from before the change), bit for bit; each
chromaticity plane resized alone equals that channel of the 3-channel resize."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee_app.demo import DEMO_ROOT
from vision.tokyo.channels import channel_max, channel_sum
from vision.tokyo.faint_sticks import FAINT_CHROMA
from vision.tokyo.foreground import BRIGHT, CHROMA, _classify, estimate_table, pieces_masks
from vision.tokyo.reader import STICK_BRIGHT

DEMO = DEMO_ROOT / "tokyo-highway"
FRAMES = ("000.jpg", "011.jpg", "021.jpg", "028.jpg", "camera2/014.jpg")
GAINS = (BRIGHT, STICK_BRIGHT, STICK_BRIGHT)
CHROMAS = (CHROMA, CHROMA, FAINT_CHROMA)


def _planes_plain(background: np.ndarray, table: np.ndarray, shape: tuple[int, int]):
    h, w = shape
    b = background.astype(np.float32) + 4
    sb = channel_sum(b)
    cb = b / sb[..., None]
    drift = channel_max(np.abs(cb - table)) > 0.035
    cb[drift] = table
    return cv2.resize(cb, (w, h), interpolation=cv2.INTER_LINEAR), cv2.resize(sb, (w, h), interpolation=cv2.INTER_LINEAR)


def _classify_plain(image: np.ndarray, cb: np.ndarray, sb: np.ndarray) -> list[np.ndarray]:
    f = cv2.add(cv2.GaussianBlur(image, (5, 5), 1.2), (4.0, 4.0, 4.0, 0.0), dtype=cv2.CV_32F)
    sf = cv2.transform(f, np.ones((1, 3), np.float32))
    np.divide(f, cv2.merge((sf, sf, sf)), out=f)
    chroma = channel_max(cv2.absdiff(f, cb, dst=f))
    ratio = sf / sb
    dark = ratio < 0.38
    out = []
    for bright, chroma_min in zip(GAINS, CHROMAS, strict=True):
        fg = ((chroma > chroma_min) | (ratio > bright) | dark).astype(np.uint8) * 255
        fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        out.append(cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)))
    return out


@pytest.mark.parametrize("name", FRAMES)
def test_masks_by_channel_planes_equal_the_3_channel_ones(name: str) -> None:
    image = cv2.imread(str(DEMO / name), cv2.IMREAD_COLOR)
    est = estimate_table(image)
    cb, sb = _planes_plain(est.background, est.chroma, image.shape[:2])
    cbs, sb2 = est.chroma_planes(image.shape[:2])
    assert np.array_equal(sb, sb2)
    for k in range(3):
        assert np.array_equal(cb[..., k], cbs[k])
    assert np.array_equal(est.planes(image.shape[:2])[0], cb)  # the 3-channel planes, as before
    want = _classify_plain(image, cb, sb)
    for got, w in zip(_classify(image, cbs, sb2, GAINS, CHROMAS), want, strict=True):
        assert np.array_equal(got, w)
    masks, table = pieces_masks(image, GAINS, CHROMAS, est)
    assert all(np.array_equal(a, b) for a, b in zip(masks, want, strict=True))
    assert np.array_equal(table, cv2.resize(est.background, (image.shape[1], image.shape[0]),
                                            interpolation=cv2.INTER_LINEAR))


def test_planes_are_made_once_and_read_only() -> None:
    est = estimate_table(cv2.imread(str(DEMO / "021.jpg"), cv2.IMREAD_COLOR))
    cbs, sb = est.chroma_planes((720, 1280))
    assert est.chroma_planes((720, 1280))[0] is cbs
    assert est.table_image((720, 1280)) is est.table_image((720, 1280))
    for a in (*cbs, sb, est.table_image((720, 1280))):
        assert not a.flags.writeable


def _piece_maps_plain(image: np.ndarray):
    """piece_maps as it was (3-channel chromaticity, channel_min for the glare)."""
    from vision.tokyo import piece_evidence as pe
    from vision.tokyo.channels import channel_min

    h, w = image.shape[:2]
    f = cv2.GaussianBlur(image, (5, 5), 1.2)
    hsv = cv2.cvtColor(f, cv2.COLOR_BGR2HSV).astype(np.float32)
    sat, hue, val = hsv[..., 1], hsv[..., 0], hsv[..., 2]
    yellow = ((hue >= 14) & (hue <= 36) & (sat >= pe.JUNCTION_SATURATION)).astype(np.float32)
    small = cv2.resize(f, (max(16, w // 8), max(9, h // 8)), interpolation=cv2.INTER_AREA)
    median = cv2.medianBlur(cv2.medianBlur(small, 15), 15)
    table = cv2.resize(median, (w, h), interpolation=cv2.INTER_LINEAR)
    # the grey ramp's top: the table's own saturation where under GREY_SATURATION's top (branch tokyomiss3)
    lo, hi = pe.GREY_SATURATION
    top = cv2.resize(np.clip(cv2.cvtColor(median, cv2.COLOR_BGR2HSV)[..., 1].astype(np.float32),
                             lo + pe.GREY_SPAN_MIN, hi), (w, h), interpolation=cv2.INTER_LINEAR)
    grey = np.clip((top - sat) / (top - lo), 0.0, 1.0) * (val > 45)
    four = (4.0, 4.0, 4.0, 0.0)
    fc = cv2.add(f, four, dtype=cv2.CV_32F)
    tc = cv2.add(table, four, dtype=cv2.CV_32F)
    sf, st = channel_sum(fc), channel_sum(tc)
    chroma = channel_max(np.abs(fc / cv2.merge((sf, sf, sf)) - tc / cv2.merge((st, st, st))))
    piece = pe._ramp(chroma, *pe.PIECE_CHROMA) * (1.0 - np.maximum(grey, yellow))
    s = pe.LLR_SCALE
    grow = np.ones((pe.GLARE_GROW, pe.GLARE_GROW), np.uint8)
    blind = cv2.dilate((channel_min(image) >= pe.GLARE_LEVEL).astype(np.uint8), grow)
    care = (blind == 0).astype(np.float32)
    return [(s * (2 * grey - 1) * care).astype(np.float32), (s * (2 * piece - 1) * care).astype(np.float32),
            (s * (2 * yellow - 1) * care).astype(np.float32)]


@pytest.mark.parametrize("name", FRAMES)
def test_piece_maps_by_channel_planes_equal_the_3_channel_ones(name: str) -> None:
    from vision.tokyo.piece_evidence import piece_maps

    image = cv2.imread(str(DEMO / name), cv2.IMREAD_COLOR)
    image[100:140, 200:260] = 250  # a glare spot, for the blind area
    small = cv2.resize(image, (640, 360), interpolation=cv2.INTER_AREA)
    got = piece_maps(small)
    for a, b in zip((got.grey, got.road, got.yellow), _piece_maps_plain(small), strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)


def test_kept_planes_are_reused_and_do_not_leak_between_frames_or_sizes() -> None:
    """`_classify` writes into this thread's kept planes (issue #24, sixth round): one set per size,
    the same objects from call to call (fails on code that allocates fresh planes), and a frame's
    masks do not depend on the frame read before it, at its size or another."""
    from vision.tokyo import foreground

    images = [cv2.imread(str(DEMO / name), cv2.IMREAD_COLOR) for name in ("000.jpg", "028.jpg")]
    images.append(cv2.resize(images[1], None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA))
    wants = []
    for image in images:
        est = estimate_table(image)
        cb, sb = _planes_plain(est.background, est.chroma, image.shape[:2])
        wants.append((est, _classify_plain(image, cb, sb)))
    for order in ((0, 1, 2, 1, 0), (2, 0, 2)):
        for k in order:
            est, want = wants[k]
            cbs, sb = est.chroma_planes(images[k].shape[:2])
            for got, w in zip(_classify(images[k], cbs, sb, GAINS, CHROMAS), want, strict=True):
                assert np.array_equal(got, w)
    kept = foreground._planes(images[0].shape[:2])
    assert foreground._planes(images[0].shape[:2])[1] is kept[1]
