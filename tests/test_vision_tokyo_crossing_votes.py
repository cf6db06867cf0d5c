"""Over/under voted by every view (vision.tokyo.crossing_votes): hand-made readings for the vote
itself, and `eval sticks` through the CLI on one rendered three-view table whose first view reads a
crossing of two same-coloured sticks wrong while the other two views read it right."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets.tokyo.scene import random_scene
from datasets.tokyo.views import render_tokyo_views
from referee_app.cli import main
from vision.tokyo.crossing_votes import HEIGHT_WEIGHT, plan_heights, vote_tops
from vision.tokyo.observation import CrossingReading, StickReading, TokyoObservation


def _stick(ends_mm: tuple[tuple[float, float, float], tuple[float, float, float]] | None) -> StickReading:
    return StickReading(((0.0, 0.0), (100.0, 100.0)), 6.0, "grey", (128, 128, 128), 0.9, endpoints_mm=ends_mm)


def _view(top_is_first: bool, conf: float, order: tuple[int, int] = (0, 1)) -> TokyoObservation:
    """Two sticks crossing, stored in `order`; the crossing's top is the view's first stick or not."""
    obs = TokyoObservation(sticks=[_stick(None), _stick(None)])
    a, b = order
    obs.crossings = [CrossingReading(a, b, (50.0, 50.0), a if top_is_first else b, conf, "edges")]
    return obs


# views[0]'s sticks 0 and 1 are sticks 1 and 0 in view 1 and 0 and 1 in view 2
IN_VIEW = [{0: 0, 1: 1}, {0: 1, 1: 0}, {0: 0, 1: 1}]


def test_two_confident_views_outvote_a_weak_first_view() -> None:
    first = _view(top_is_first=False, conf=0.3)  # views[0]: stick 1 on top, weakly
    other1 = _view(top_is_first=False, conf=0.8, order=(0, 1))  # its stick 1 is views[0]'s stick 0
    other2 = _view(top_is_first=True, conf=0.6)
    changed = vote_tops(first, [first, other1, other2], IN_VIEW, own={0})
    c = first.crossings[0]
    assert changed == 1 and c.top == 0
    assert c.confidence == pytest.approx((0.8 + 0.6 - 0.3) / 3, abs=1e-3)


def test_a_confident_first_view_stands_against_one_weak_view() -> None:
    first = _view(top_is_first=False, conf=0.9)
    other = _view(top_is_first=True, conf=0.2)
    assert vote_tops(first, [first, other, TokyoObservation()], IN_VIEW, own={0}) == 0
    assert first.crossings[0].top == 1


def test_a_crossing_one_view_reads_keeps_its_reading() -> None:
    first = _view(top_is_first=False, conf=0.1)
    before = first.crossings[0].confidence
    # the other views do not read the crossing (no crossings), or not both sticks (no match)
    others = [TokyoObservation(sticks=[_stick(None), _stick(None)]), _view(True, 0.9)]
    assert vote_tops(first, [first, *others], [{0: 0, 1: 1}, {0: 0, 1: 1}, {0: 0}], own={0}) == 0
    assert first.crossings[0].top == 1 and first.crossings[0].confidence == before


def test_an_added_crossing_is_not_counted_twice() -> None:
    """A crossing taken from view 1 (not views[0]'s own) is voted by view 1 once, not also as views[0]."""
    first = _view(top_is_first=True, conf=0.9)  # copied from view 1's reading
    other1 = _view(top_is_first=False, conf=0.9, order=(0, 1))  # = views[0]'s stick 0 on top
    other2 = _view(top_is_first=False, conf=0.5)  # views[0]'s stick 1 on top
    vote_tops(first, [first, other1, other2], IN_VIEW, own=set())
    assert first.crossings[0].top == 0  # 0.9 against 0.5; counting it twice would not change this
    assert first.crossings[0].confidence == pytest.approx((0.9 - 0.5) / 2, abs=1e-3)


def test_fused_heights_vote_and_break_a_tie() -> None:
    low = ((0.0, -50.0, 11.5), (0.0, 50.0, 11.5))  # along y, one unit up
    high = ((-50.0, 0.0, 31.5), (50.0, 0.0, 31.5))  # along x, three units up
    z = plan_heights(low, high)
    assert z == pytest.approx((11.5, 31.5))
    assert plan_heights(low, ((100.0, -10.0, 0.0), (200.0, 10.0, 0.0))) is None  # no plan crossing
    first = _view(top_is_first=True, conf=0.4)  # says the low stick is on top
    first.sticks = [_stick(low), _stick(high)]
    other = _view(top_is_first=False, conf=0.4)
    vote_tops(first, [first, other], IN_VIEW[::2], own={0})
    assert first.crossings[0].top == 1 and first.crossings[0].cue == "edges"  # the strongest vote for it
    assert first.crossings[0].confidence == pytest.approx(HEIGHT_WEIGHT / 3, abs=1e-3)


def _render_table(out: Path, seed: int, k: int) -> None:
    """Table k of `dataset tokyo --views 3 --seed SEED`, alone, in the dataset's folder format."""
    s = seed * 100003 + k  # the dataset's stream for its image k
    scene = random_scene(np.random.default_rng(s))
    items = []
    stem = f"tokyo_{seed}_{k:05d}"
    for v, (image, labels) in enumerate(render_tokyo_views(scene, s, 3)):
        cv2.imwrite(str(out / f"{stem}_v{v}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        items.append({"image": f"{stem}_v{v}.jpg", "view_of": stem, "view": v, **labels})
    (out / "labels.json").write_text(json.dumps({"items": items}), encoding="utf-8")


@pytest.mark.timeout(120)
def test_eval_sticks_views_mend_a_first_view_misread(tmp_path: Path) -> None:
    # seed 203 table 7 (a tuning table): views[0] reads one same-coloured crossing's top wrong on
    # the edge cue, its two other views read it right
    _render_table(tmp_path, 203, 7)
    out = tmp_path / "eval.json"
    assert main(["eval", "sticks", str(tmp_path), "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["crossing_recall_views"] > 0
    assert res["over_under_accuracy_first_view"] < 1.0
    assert res["over_under_accuracy_views"] == 1.0
