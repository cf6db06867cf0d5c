"""The dice evaluation: matching and lenient scoring by hand-made cases, and the `eval dice` command
end to end on a small rendered folder, including broken folders and images."""

from __future__ import annotations

import json

import numpy as np

from referee_app.cli import main
from vision.dice.evaluate import confident_values, labels_incomplete, score_image
from vision.realdata import LabelledImage, LabelledObject
from vision.types import Detections


def _item() -> LabelledImage:
    return LabelledImage("x.jpg", 100, 100, [LabelledObject("die", 3, (10, 10, 30, 30)),
                                             LabelledObject("die", 5, (50, 50, 70, 70))])


def _det(boxes, values) -> Detections:
    n = len(boxes)
    return Detections(xyxy=np.array(boxes, np.float32), confidence=np.ones(n, np.float32),
                      values=np.array(values, np.int32), value_confidence=np.ones(n, np.float32))


def test_matching_values_and_lenient_false_positives() -> None:
    det = _det([[11, 11, 31, 31], [50, 52, 70, 72], [80, 80, 95, 95], [55, 55, 65, 65]], [3, 6, 2, 1])
    strict, _ = score_image(_item(), det, lenient=False)
    assert (strict.matched, strict.false_pos, strict.unverifiable) == (2, 2, 0)
    assert (strict.value_correct, strict.value_total) == (1, 2)
    lenient, marks = score_image(_item(), det, lenient=True)
    # the box in empty space may be an unlabelled die; the one inside a labelled die is a duplicate
    assert (lenient.false_pos, lenient.unverifiable) == (1, 1)
    assert [(t, p) for _, t, p in marks["wrong"]] == [(5, 6)]


def test_incomplete_labels_are_recognised_from_the_set_notes() -> None:
    assert labels_incomplete({"notes": "a few dice are unlabelled"})
    assert not labels_incomplete({"notes": "all dice boxed", "labels_complete": True})
    assert not labels_incomplete({})


def test_eval_command_on_a_rendered_folder(tmp_path, capsys) -> None:
    data = tmp_path / "set"
    assert main(["dataset", "dice", "--out", str(data), "--n", "2", "--seed", "5", "--size", "640", "480"]) == 0
    labels = json.loads((data / "labels.json").read_text())
    labels["items"].append({"image": "missing.jpg", "width": 640, "height": 480,
                            "objects": [{"kind": "die", "value": 2, "bbox": [1, 1, 20, 20]}]})
    (data / "broken.jpg").write_bytes(b"\xff\xd8 not a jpeg")
    labels["items"].append({"image": "broken.jpg", "width": 640, "height": 480, "objects": []})
    (data / "labels.json").write_text(json.dumps(labels))
    out = tmp_path / "report.json"
    assert main(["eval", "dice", str(data), "--json", str(out), "--draw-misses", str(tmp_path / "misses")]) == 0
    report = json.loads(out.read_text())
    for key in ("recall", "precision", "value_accuracy", "n_labelled", "n_detected", "images", "confusion"):
        assert key in report
    n_dice = sum(len(it["objects"]) for it in labels["items"])
    assert report["n_labelled"] == n_dice and len(report["images"]) == 4
    assert {e["image"] for e in report["errors"]} == {"missing.jpg", "broken.jpg"}
    assert report["lenient"] is False  # the generated set says its labels are complete
    printed = capsys.readouterr().out
    assert "recall" in printed and "true\\pred" in printed
    assert [r["min_confidence"] for r in report["confident_values"]] == [0.5, 0.7, 0.8, 0.9, 0.95]
    assert "value confidence >= 0.70" in printed


def test_confident_values_trade_coverage_for_accuracy() -> None:
    pairs = [(1, 1), (2, 2), (3, 5), (4, 4), (6, 5)]
    conf = [0.99, 0.8, 0.6, 0.95, 0.3]
    rows = {r["min_confidence"]: r for r in confident_values(pairs, conf, (0.0, 0.5, 0.7, 0.9))}
    assert rows[0.0] == {"min_confidence": 0.0, "share": 1.0, "value_accuracy": 0.6, "wrong": 2}
    assert rows[0.5]["share"] == 0.8 and rows[0.5]["value_accuracy"] == 0.75 and rows[0.5]["wrong"] == 1
    assert rows[0.7] == {"min_confidence": 0.7, "share": 0.6, "value_accuracy": 1.0, "wrong": 0}
    assert rows[0.9]["share"] == 0.4
    assert confident_values([], [], (0.5,)) == [{"min_confidence": 0.5, "share": None,
                                                 "value_accuracy": None, "wrong": 0}]


def test_eval_command_bad_folder(tmp_path, capsys) -> None:
    assert main(["eval", "dice", str(tmp_path)]) == 2
    assert "no labels.json" in capsys.readouterr().err
    (tmp_path / "labels.json").write_text("{not json")
    assert main(["eval", "dice", str(tmp_path)]) == 2
    assert "not valid JSON" in capsys.readouterr().err
