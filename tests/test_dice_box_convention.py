"""Issue 21 item 1: dice scoring honours the set's `box_convention` (whole_die / top_face / pips),
by hand-made cases and through `eval dice` and `compare dice` on real pip-box photos."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from referee_app.cli import main
from vision.dice.evaluate import box_convention, score_image
from vision.realdata import LabelledImage, LabelledObject
from vision.types import Detections, VisionError


def _det(boxes, values) -> Detections:
    n = len(boxes)
    return Detections(xyxy=np.array(boxes, np.float32), confidence=np.ones(n, np.float32),
                      values=np.array(values, np.int32), value_confidence=np.ones(n, np.float32))


def test_pip_boxes_match_whole_die_detections_by_centre() -> None:
    # a 1 (one pip, 8 px box), a 3 (the diagonal), both inside 40 px dice the reader boxes whole
    item = LabelledImage("x.jpg", 200, 200, [LabelledObject("die", 1, (36, 36, 44, 44)),
                                             LabelledObject("die", 3, (110, 110, 130, 130))])
    det = _det([[20, 20, 60, 60], [100, 100, 140, 140], [160, 20, 190, 50]], [1, 4, 2])
    whole, _ = score_image(item, det, lenient=False)  # by IoU they would all be misses
    assert whole.matched == 0
    pips, marks = score_image(item, det, lenient=False, convention="pips")
    assert (pips.matched, pips.false_pos, pips.value_correct, pips.value_total) == (2, 1, 1, 2)
    assert [(t, p) for _, t, p in marks["wrong"]] == [(3, 4)]


def test_centre_matching_pairs_each_die_once_nearest_first() -> None:
    # two detections around one top face: the nearer one is the match, the other a false detection
    item = LabelledImage("x.jpg", 200, 200, [LabelledObject("die", 5, (40, 40, 60, 60))])
    det = _det([[30, 30, 80, 80], [35, 35, 65, 65]], [5, 5])
    s, _ = score_image(item, det, lenient=False, convention="top_face")
    assert (s.matched, s.false_pos) == (1, 1)


def test_a_detection_inside_a_large_label_matches_by_its_centre() -> None:
    item = LabelledImage("x.jpg", 200, 200, [LabelledObject("die", 6, (20, 20, 80, 80))])
    det = _det([[50, 50, 70, 70]], [6])  # the label's centre (50, 50) is on its corner; its own inside
    s, _ = score_image(item, det, lenient=False, convention="top_face")
    assert s.matched == 1


def test_an_unknown_convention_is_refused() -> None:
    assert box_convention({}) == "whole_die"
    with pytest.raises(VisionError, match="box_convention 'centre'"):
        box_convention({"box_convention": "centre"})


@pytest.fixture
def pip_photos(shared_dir, tmp_path):
    """Six matteop65_d6 webcam frames (pip boxes, every 23rd) copied with their labels."""
    src = shared_dir / "realdata" / "matteop65_d6"
    if not src.is_dir():
        pytest.skip("matteop65_d6 is not in ../shared/realdata")
    labels = json.loads((src / "labels.json").read_text())
    items = labels["items"][::23][:6]  # across the frame series
    out = tmp_path / "pips"
    out.mkdir()
    for it in items:
        shutil.copy(src / it["image"], out / it["image"])
    (out / "labels.json").write_text(json.dumps({**labels, "items": items}))
    return out


def _as_whole_die(folder, tmp_path):
    data = json.loads((folder / "labels.json").read_text())
    other = tmp_path / "as_whole"
    shutil.copytree(folder, other)
    (other / "labels.json").write_text(json.dumps({**data, "box_convention": "whole_die"}))
    return other


def test_eval_dice_scores_pip_boxes_by_centre(pip_photos, tmp_path, capsys):
    """The same photos and reads scored twice: as the pip boxes they are, and as if whole-die boxes."""
    out = tmp_path / "both.json"
    assert main(["eval", "dice", str(pip_photos), str(_as_whole_die(pip_photos, tmp_path)),
                 "--json", str(out), "--include-training"]) == 0
    assert "boxes: pips" in capsys.readouterr().out
    report = json.loads(out.read_text())
    pips, whole = report["folders"]
    assert (pips["box_convention"], whole["box_convention"]) == ("pips", "whole_die")
    assert pips["n_labelled"] > 6 and whole["n_detected"] == pips["n_detected"]
    assert pips["matched"] > whole["matched"]  # a whole-die box rarely overlaps pips at IoU 0.5
    by = report["by_convention"]
    assert set(by) == {"pips", "whole_die"}
    assert by["pips"]["recall"] == pytest.approx(pips["recall"])
    assert by["whole_die"]["recall"] == pytest.approx(whole["recall"])


def test_compare_dice_scores_pip_boxes_by_centre(pip_photos, tmp_path, capsys):
    out, md = tmp_path / "c.json", tmp_path / "c.md"
    assert main(["compare", "dice", str(pip_photos), "--readers", "crops", "--json", str(out),
                 "--markdown", str(md), "--include-training"]) == 0
    entry = json.loads(out.read_text())["folders"][0]
    assert entry["box_convention"] == "pips" and "| pips (pips boxes) | crops |" in md.read_text()
    evaluated = tmp_path / "e.json"
    assert main(["eval", "dice", str(pip_photos), "--json", str(evaluated), "--include-training"]) == 0
    assert entry["results"]["crops"]["recall"] == json.loads(evaluated.read_text())["recall"]


def test_a_folder_with_an_unknown_convention_is_refused_before_reading(pip_photos, tmp_path, capsys):
    data = json.loads((pip_photos / "labels.json").read_text())
    (pip_photos / "labels.json").write_text(json.dumps({**data, "box_convention": "corners"}))
    out = tmp_path / "r.json"
    assert main(["eval", "dice", str(pip_photos), "--json", str(out)]) == 2
    assert "box_convention 'corners'" in capsys.readouterr().err and not out.exists()
