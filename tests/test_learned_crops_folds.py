"""Block folds of the real dice photos (datasets/dice/photo_split.py) and cross-validation through
`highway-referee eval dice --crop-model A --crop-model B`: every photo scored once, by a model whose card
does not list it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from datasets.dice.photo_split import training_photos
from vision.learned.crops import DEFAULT_CROP_MODEL


def test_folds_keep_the_first_block_and_split_the_rest_in_alternate_blocks() -> None:
    names = [f"p{i:02d}.jpg" for i in range(20)][::-1]  # any order in, file-name order out
    even = training_photos(names, 6, block=3, fold="even")
    odd = training_photos(names, 6, block=3, fold="odd")
    assert even[:6] == odd[:6] == [f"p{i:02d}.jpg" for i in range(6)]
    assert even[6:] == [f"p{i:02d}.jpg" for i in (6, 7, 8, 12, 13, 14, 18, 19)]
    assert odd[6:] == [f"p{i:02d}.jpg" for i in (9, 10, 11, 15, 16, 17)]
    assert set(even[6:]).isdisjoint(odd[6:]) and set(even) | set(odd) == set(names)
    assert training_photos(names, 6) == even[:6]  # no fold: the first block only


@pytest.mark.parametrize("kwargs", [{"first": -1}, {"first": 2, "block": 0}, {"first": 2, "fold": "third"}])
def test_folds_refuse_bad_arguments(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        training_photos(["a.jpg", "b.jpg"], **kwargs)


def _model_copy(folder: Path, name: str, train_photos: list[str]) -> Path:
    model = folder / f"{name}.onnx"
    shutil.copyfile(DEFAULT_CROP_MODEL, model)
    card = {"trained_on": "nell_byler_d6", "train_photos": train_photos}
    model.with_suffix(".json").write_text(json.dumps(card), encoding="utf-8")
    return model


def test_eval_dice_cross_validates_two_crop_models(shared_dir: Path, tmp_path: Path, capsys) -> None:
    from referee_app.cli import main
    from vision.dice.evaluate import trained_photos

    src = shared_dir / "realdata" / "nell_byler_d6"
    labels = json.loads((src / "labels.json").read_text(encoding="utf-8"))
    # photos no shipped model but the crop network (which the test models replace) trained on
    detector_seen = trained_photos(without=[DEFAULT_CROP_MODEL.with_suffix(".json")])["nell_byler_d6"]
    items = [it for it in sorted(labels["items"], key=lambda it: it["image"]) if it["image"] not in detector_seen]
    chosen = items[-6:]
    folder = tmp_path / "nell_byler_d6"  # the folder name is what the cards refer to
    folder.mkdir()
    for it in chosen:
        shutil.copyfile(src / it["image"], folder / it["image"])
    (folder / "labels.json").write_text(json.dumps(dict(labels, items=chosen)), encoding="utf-8")
    names = [it["image"] for it in chosen]
    a = _model_copy(tmp_path, "fold_a", names[:3])
    b = _model_copy(tmp_path, "fold_b", names[3:])
    out = tmp_path / "cv.json"
    assert main(["eval", "dice", str(folder), "--crop-model", str(a), "--crop-model", str(b),
                 "--json", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    first, second = report["folders"]
    assert first["crop_model"] == str(a) and second["crop_model"] == str(b)
    assert sorted(i["image"] for i in first["images"]) == names[3:]  # A scores what it did not see
    assert sorted(i["image"] for i in second["images"]) == names[:3]
    assert len(report["images"]) == 6 and report["n_labelled"] == sum(len(it["objects"]) for it in chosen)
    assert report["recall"] >= 0.85
    reads = first["value_reads"] + second["value_reads"]
    assert len(reads) == sum(r["value_total"] for r in report["images"])
    assert report["confident_values"][0]["share"] is not None
    assert capsys.readouterr().out.count("crop model:") == 2


def test_eval_dice_crop_model_needs_its_card(tmp_path: Path, shared_dir: Path, capsys) -> None:
    from referee_app.cli import main

    model = tmp_path / "m.onnx"
    shutil.copyfile(DEFAULT_CROP_MODEL, model)
    folder = shared_dir / "realdata" / "nell_byler_d6"
    assert main(["eval", "dice", str(folder), "--crop-model", str(model)]) != 0
    assert "card m.json is missing" in capsys.readouterr().err
    assert main(["eval", "dice", str(folder), "--reader", "classical", "--crop-model", str(model)]) != 0
    err = capsys.readouterr().err
    assert "--crop-model" in err and "go with --reader crops" in err
    assert main(["eval", "dice", str(folder), "--crop-model", str(tmp_path / "none.onnx")]) != 0
    assert "no such file" in capsys.readouterr().err
