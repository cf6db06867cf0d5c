"""Sticks coloured like the table (issue #8): the faint-stick pass finds a tan rod on a beige table that
the piece masks take for table, adds nothing along sticks already found, leaves wood grain alone, and
lifts `eval sticks` on a render of tan roads on a yellow mat."""

from __future__ import annotations

import json

import cv2
import numpy as np

from datasets.tokyo.camera import camera_looking_at
from datasets.tokyo.render import render_tokyo_frame
from referee_app.cli import main
from vision.tokyo import read_tokyo
from vision.tokyo.faint_sticks import FAINT_CHROMA, faint_sticks
from vision.tokyo.foreground import BRIGHT, CHROMA, pieces_masks
from vision.tokyo.reader import STICK_BRIGHT
from vision.tokyo.sticks import RawStick, detect_sticks

TABLE = (124, 189, 200)  # beige (BGR)
TAN = (116, 172, 200)  # a tan rod: chromaticity 0.020 from the table's, under the masks' 0.024


def _beige_table(grain: bool = False) -> np.ndarray:
    rng = np.random.default_rng(3)
    img = np.full((360, 480, 3), TABLE, np.float32)
    if grain:  # wood-like stripes: brightness only, the table's own chromaticity
        xx = np.arange(480, dtype=np.float32)
        img *= (1 + 0.1 * np.sin(2 * np.pi * xx / 11))[None, :, None]
    # the rod's cast shadow (darker table) beside it, then the rod with dark bevelled long edges
    cv2.line(img, (70, 96), (400, 176), tuple(0.7 * v for v in TABLE), 10)
    cv2.line(img, (60, 80), (390, 160), tuple(0.75 * v for v in TAN), 12)
    cv2.line(img, (60, 80), (390, 160), TAN, 8)
    img += rng.normal(0, 1.5, img.shape)
    return img.clip(0, 255).astype(np.uint8)


def _masks(img: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    (rods, faint), _ = pieces_masks(img, (STICK_BRIGHT, STICK_BRIGHT), (CHROMA, FAINT_CHROMA))
    return rods, faint


def test_masks_keep_their_defaults_and_take_a_chroma_per_mask() -> None:
    img = _beige_table()
    (ordinary,), _ = pieces_masks(img, (BRIGHT,))
    (same,), _ = pieces_masks(img, (BRIGHT,), (CHROMA,))
    assert (ordinary == same).all()
    rods, faint = _masks(img)
    rod = np.zeros(img.shape[:2], np.uint8)
    cv2.line(rod, (80, 85), (370, 155), 1, 3)
    assert (rods[rod > 0] > 0).mean() < 0.2  # the ordinary threshold takes the tan rod for table
    assert (faint[rod > 0] > 0).mean() > 0.9


def test_faint_pass_finds_the_tan_rod_and_only_once() -> None:
    img = _beige_table()
    rods, faint = _masks(img)
    found, hw = detect_sticks(img, rods)
    assert found == []
    more, bands = faint_sticks(img, rods, faint, found, 5.0)
    assert len(more) == 1
    ends = sorted([tuple(more[0].p0), tuple(more[0].p1)])
    assert np.hypot(ends[0][0] - 60, ends[0][1] - 80) < 8 and np.hypot(ends[1][0] - 390, ends[1][1] - 160) < 8
    assert bands[120, 225] > 0 and bands[300, 100] == 0  # its new pixels, nothing off it
    # a stick the first pass already read along the same line is not added again
    again, _ = faint_sticks(
        img, rods, faint, [RawStick(np.array([61.0, 81]), np.array([389.0, 159]), 5.0, 0, np.zeros(3))], 5.0
    )
    assert again == []


def test_wood_grain_alone_gives_no_faint_stick() -> None:
    rng = np.random.default_rng(5)
    xx = np.arange(480, dtype=np.float32)
    img = np.full((360, 480, 3), TABLE, np.float32) * (1 + 0.12 * np.sin(2 * np.pi * xx / 9))[None, :, None]
    img[:, 200:203] *= 0.65  # a plank seam
    img = (img + rng.normal(0, 2, img.shape)).clip(0, 255).astype(np.uint8)
    rods, faint = _masks(img)
    more, _ = faint_sticks(img, rods, faint, [], 5.0)
    assert more == []
    # with the rod drawn on the same grain the pass still finds it
    img2 = _beige_table(grain=True)
    rods2, faint2 = _masks(img2)
    assert len(faint_sticks(img2, rods2, faint2, [], 5.0)[0]) == 1


# tan ("natural") roads on the printed mat's yellow tint (seed 106 draws it); a red one for contrast
SCENE = {
    "supports": [
        {"id": 0, "x_mm": -120, "y_mm": -40, "height": 1, "junction": False},
        {"id": 1, "x_mm": -20, "y_mm": 10, "height": 2, "junction": False},
        {"id": 2, "x_mm": 80, "y_mm": -30, "height": 3, "junction": False},
        {"id": 3, "x_mm": 20, "y_mm": 100, "height": 1, "junction": False},
    ],
    "sticks": [
        {"a": 0, "b": 1, "color": "natural"},
        {"a": 1, "b": 2, "color": "natural"},
        {"a": 1, "b": 3, "color": "red"},
    ],
}


def test_eval_sticks_reads_tan_roads_on_a_yellow_mat(tmp_path) -> None:
    seed = 106
    cam = camera_looking_at((0, 0, 0), 640, 30, (20 + 37 * seed) % 360, 52, 1280, 720)
    image, lab = render_tokyo_frame(SCENE, seed, camera=cam, table="mat", hand=False, glare=False)
    cv2.imwrite(str(tmp_path / "tan.png"), image)
    doc = {"source": "test", "items": [{"image": "tan.png", **lab}]}
    (tmp_path / "labels.json").write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / "m.json"
    assert main(["eval", "sticks", str(tmp_path), "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    # before the faint pass: one of the three (the red road)
    assert res["stick_recall"] == 1.0 and res["stick_precision"] == 1.0
    obs = read_tokyo(image, lab["calibration"])
    assert sorted(s.color for s in obs.sticks).count("red") == 1
