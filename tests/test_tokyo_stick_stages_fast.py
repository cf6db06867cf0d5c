"""The stick pass's per-stick steps written on whole arrays (issue #24): `_refine_axis` tests every
cross-section's edges at once and `_axis_half_width` samples every offset in one gather; both give
what the one-at-a-time code (copied here from before) gave, bit for bit, on every stick the reader
finds in the recorded match's views, and on sticks moved and widened off them."""

from __future__ import annotations

import copy

import cv2
import numpy as np
import pytest

from referee_app.demo import DEMO_ROOT
from referee_app.games.tokyo import load_calibration
from vision.tokyo import read_tokyo, sticks
from vision.tokyo.sticks import RawStick, _sample

DEMO = DEMO_ROOT / "tokyo-highway"
FRAMES = ("004.jpg", "021.jpg", "028.jpg", "camera2/021.jpg", "camera2/028.jpg")


def _refine_axis_plain(gx: np.ndarray, gy: np.ndarray, s: RawStick) -> None:
    """`_refine_axis` as it was: the cross-sections' edges tested one at a time."""
    u = (s.p1 - s.p0) / max(s.length, 1e-6)
    n = np.array([-u[1], u[0]], np.float32)
    offs = np.arange(-1.7 * s.half_width, 1.7 * s.half_width + 0.01, 0.5, dtype=np.float32)
    ts = np.linspace(0.08, 0.92, 31)
    mids, strength, where = [], [], []
    centres = s.p0 + ts[:, None] * (s.p1 - s.p0)
    pts = (centres[:, None, :] + (offs[:, None] * n[None])[None]).reshape(-1, 2)
    g_all = (_sample(gx, pts) * n[0] + _sample(gy, pts) * n[1]).reshape(len(ts), len(offs))
    neg, pos = offs < -0.5, offs > 0.5
    g_neg, g_pos, o_neg, o_pos = g_all[:, neg], g_all[:, pos], offs[neg], offs[pos]
    first = np.argmax(np.abs(g_neg), axis=1)
    second = np.argmax(np.abs(g_pos), axis=1)
    for k, t in enumerate(ts):
        a, b = g_neg[k, first[k]], g_pos[k, second[k]]
        e0, e1 = o_neg[first[k]], o_pos[second[k]]
        if np.sign(a) == np.sign(b) or not 0.8 * s.half_width < e1 - e0 < 2.6 * s.half_width:
            continue
        mids.append((e0 + e1) / 2)
        strength.append(min(abs(a), abs(b)))
        where.append(t * s.length)
    if len(mids) < 6:
        return
    mids_a, w_a, at = np.array(mids), np.array(strength), np.array(where)
    keep = w_a >= 0.3 * np.median(w_a)
    for _ in range(2):
        if keep.sum() < 6:
            return
        a, b = np.polyfit(at[keep], mids_a[keep], 1)
        resid = np.abs(mids_a - (a * at + b))
        keep &= resid <= max(1.0, 2.5 * float(np.median(resid[keep])))
    a, b = np.polyfit(at[keep], mids_a[keep], 1)
    s.p0 = (s.p0 + n * b).astype(np.float32)
    s.p1 = (s.p1 + n * (a * s.length + b)).astype(np.float32)


def _axis_half_width_plain(dist: np.ndarray, p0: np.ndarray, p1: np.ndarray, reach: float = 2.0) -> float:
    """`_axis_half_width` as it was: one gather an offset."""
    d = p1 - p0
    length = float(np.linalg.norm(d))
    u = d / max(length, 1e-6)
    n = np.array([-u[1], u[0]], np.float32)
    ts = np.arange(0.2 * length, 0.8 * length, 1.0, dtype=np.float32)
    offs = np.arange(-int(np.ceil(reach)), int(np.ceil(reach)) + 1)
    across = [_sample(dist, p0[None] + ts[:, None] * u[None] + o * n[None]) for o in offs]
    return float(np.median(np.max(across, axis=0))) if len(ts) else 0.0


@pytest.fixture(scope="module")
def recorded() -> dict[str, list]:
    """The arguments of every `_refine_axis` and `_axis_half_width` call of the views' readings."""
    if not (DEMO / "calibration.json").exists():
        pytest.skip("the bundled Tokyo recording is not here")
    calls: dict[str, list] = {"refine": [], "width": []}
    refine, width = sticks._refine_axis, sticks._axis_half_width

    def refine_kept(gx, gy, s):  # noqa: ANN001, ANN202
        calls["refine"].append((gx, gy, copy.deepcopy(s)))
        return refine(gx, gy, s)

    def width_kept(dist, p0, p1, reach=2.0):  # noqa: ANN001, ANN202
        calls["width"].append((dist, p0.copy(), p1.copy(), reach))
        return width(dist, p0, p1, reach)

    mp = pytest.MonkeyPatch()
    mp.setattr(sticks, "_refine_axis", refine_kept)
    mp.setattr(sticks, "_axis_half_width", width_kept)
    try:
        for name in FRAMES:
            path = DEMO / ("calibration2.json" if name.startswith("camera2/") else "calibration.json")
            read_tokyo(cv2.imread(str(DEMO / name), cv2.IMREAD_COLOR), load_calibration(path)[0])
    finally:
        mp.undo()
    assert len(calls["refine"]) >= 20 and len(calls["width"]) >= 20
    return calls


def _moved(s: RawStick, rng: np.random.Generator) -> RawStick:
    t = copy.deepcopy(s)
    t.p0 = (s.p0 + rng.normal(0, 2, 2)).astype(np.float32)
    t.p1 = (s.p1 + rng.normal(0, 2, 2)).astype(np.float32)
    t.half_width = float(s.half_width * rng.uniform(0.7, 1.4))
    return t


def test_refine_axis_gives_the_old_axis(recorded: dict[str, list]) -> None:
    rng = np.random.default_rng(3)
    moved = 0
    for gx, gy, s in recorded["refine"]:
        for stick in (s, _moved(s, rng), _moved(s, rng)):
            a, b = copy.deepcopy(stick), copy.deepcopy(stick)
            sticks._refine_axis(gx, gy, a)
            _refine_axis_plain(gx, gy, b)
            assert a.p0.dtype == b.p0.dtype and a.p0.tobytes() == b.p0.tobytes()
            assert a.p1.dtype == b.p1.dtype and a.p1.tobytes() == b.p1.tobytes()
            moved += not np.array_equal(a.p0, stick.p0)
    assert moved > 20  # the axes were moved, not left as they came


def test_axis_half_width_gives_the_old_width(recorded: dict[str, list]) -> None:
    rng = np.random.default_rng(4)
    for dist, p0, p1, reach in recorded["width"]:
        for q0, q1, r in ((p0, p1, reach), (p0 + rng.normal(0, 3, 2).astype(np.float32), p1, 2.5),
                          (p0, p1 + rng.normal(0, 3, 2).astype(np.float32), 1.0), (p0, p0 + 0.5, reach)):
            got = sticks._axis_half_width(dist, q0, q1, r)
            want = _axis_half_width_plain(dist, q0, q1, r)
            assert type(got) is float and got == want
