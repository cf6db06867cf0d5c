"""The dice road reader's `exact` steps (vision.zones.EXACT_STEPS): each step branch dicefps (c99a357)
made cheaper and not bit-exact can be put back, to compare readings (bench/dice_reuse_ab.py)."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from referee_app.demo import bundled_demos
from referee_app.games.dice import DiceAdapter
from vision import zones
from vision.types import VisionError


def test_exact_prep_is_the_per_pixel_normalisation_bit_for_bit() -> None:
    """`_prep(..., exact=True)` is the normalisation as it was before c99a357 (3956e27's arithmetic)."""
    rng = np.random.default_rng(3)
    bgr = cv2.GaussianBlur(rng.integers(0, 256, (150, 230, 3), dtype=np.uint8), (0, 0), 2.0)
    for px in (2.0, 2.5, 3.0):
        g = cv2.GaussianBlur(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 0.4 * px)
        win = 2 * round(10 * px) + 1
        mean = cv2.blur(g, (win, win))
        sq = cv2.blur(g * g, (win, win))
        numpy_way = (g - mean) / np.maximum(np.sqrt(np.maximum(sq - mean * mean, 1.0)), 12.0)
        got = zones._prep(bgr, px, exact=True)
        assert got.dtype == np.float32 and np.array_equal(got.view(np.uint32), numpy_way.view(np.uint32))
        assert not np.array_equal(zones._prep(bgr, px), got)  # the block way is another computation
        roi = (40, 33, 200, 140)
        part = zones._prep_roi(bgr, px, roi, exact=True)
        inner = round(zones.ROI_PAD_MM * px)
        assert np.array_equal(part[33 + inner:140 - inner, 40 + inner:200 - inner],
                              got[33 + inner:140 - inner, 40 + inner:200 - inner])


def test_unknown_exact_step_is_refused() -> None:
    with pytest.raises(VisionError):
        zones.ZoneDiceReader(np.zeros((30, 30, 3), np.uint8), (10.0, 10.0), [], exact=frozenset({"nope"}))


def test_exact_reader_reads_the_demo_as_main_does() -> None:
    """Every step put back reads the bundled recording's first frames (hands included) as shipped."""
    demo = next(d for d in bundled_demos() if d.game == "highway-dice")
    main, exact = DiceAdapter(), DiceAdapter(exact=zones.EXACT_STEPS)
    for f in itertools.islice(demo.frames(realtime=False), 13):
        a, b = main.read(f.image), exact.read(f.image)
        assert (a.items, a.blocked) == (b.items, b.blocked)
    assert exact._reader.zones.exact == zones.EXACT_STEPS
