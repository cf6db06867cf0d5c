"""The user's path: `highway-referee compare dice` and `train dice` through referee_app.cli.main."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from referee_app.cli import main
from vision.learned.reader import MODELS


@pytest.fixture()
def two_photos(shared_dir: Path, tmp_path: Path) -> Path:
    src = shared_dir / "realdata" / "nell_byler_d6"
    data = json.loads((src / "labels.json").read_text(encoding="utf-8"))
    names = sorted(i["image"] for i in data["items"])[60:62]
    data["items"] = [i for i in data["items"] if i["image"] in names]
    out = tmp_path / "nell_byler_d6"  # same folder name: the training-photo filter applies by name
    out.mkdir()
    for n in names:
        shutil.copyfile(src / n, out / n)
    (out / "labels.json").write_text(json.dumps(data), encoding="utf-8")
    return out


@pytest.mark.skipif(not (MODELS / "dice_die_n320.onnx").exists(), reason="no shipped detector")
def test_compare_scores_each_reader_on_the_same_photos(two_photos: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "cmp.json"
    md = tmp_path / "table.md"
    assert main(["compare", "dice", str(two_photos), "--json", str(out), "--readers", "classical,combo",
                 "--markdown", str(md)]) == 0
    report = json.loads(out.read_text())
    res = report["folders"][0]["results"]
    assert set(res) == {"classical", "combo"}
    labelled = {r["n_labelled"] for r in res.values()}
    assert len(labelled) == 1 and labelled.pop() > 0
    for r in res.values():
        assert 0.0 <= r["recall"] <= 1.0 and r["n_images"] == 2 and r["fps"] > 0
    assert "| nell_byler_d6 | combo |" in md.read_text()
    assert "recall" in capsys.readouterr().out


def test_compare_training_photos_are_left_out(shared_dir: Path, tmp_path: Path) -> None:
    import json

    from referee_app.commands.compare import trained_photos
    from vision.learned.crops import DEFAULT_CROP_MODEL

    skip = trained_photos(["classical"]).get("nell_byler_d6", set())
    names = sorted(p.name for p in (shared_dir / "realdata" / "nell_byler_d6").glob("*.jpg"))
    crop_card = json.loads(DEFAULT_CROP_MODEL.with_suffix(".json").read_text(encoding="utf-8"))
    # every model trained on the first 52; the crop network's card may list more (a block fold)
    from vision.learned.card_photos import photos_by_set

    assert set(names[:52]) | photos_by_set(crop_card)["nell_byler_d6"] == skip
    assert len(set(names) - skip) >= 30


def test_compare_rejects_unknown_readers_and_empty_input(tmp_path: Path, capsys) -> None:
    assert main(["compare", "dice", str(tmp_path), "--json", str(tmp_path / "o.json"),
                 "--readers", "magic"]) == 2
    assert "unknown reader 'magic'" in capsys.readouterr().err
    assert main(["compare", "dice", "--json", str(tmp_path / "o.json"), "--readers", "classical"]) == 2
    assert "FOLDER or --renders" in capsys.readouterr().err


def test_compare_names_a_folder_without_labels(tmp_path: Path, capsys) -> None:
    assert main(["compare", "dice", str(tmp_path), "--json", str(tmp_path / "o.json"),
                 "--readers", "classical"]) == 2
    assert "no labels.json" in capsys.readouterr().err


@pytest.mark.skipif(importlib.util.find_spec("ultralytics") is not None, reason="train extra installed")
def test_train_without_the_extra_says_what_to_install(tmp_path: Path, capsys) -> None:
    assert main(["train", "dice", "--runs", str(tmp_path)]) == 3
    err = capsys.readouterr().err
    assert "train extra" in err and "pip install torch==2.14.1" in err and "Traceback" not in err


def test_markdown_table_replaces_only_the_marked_part_of_a_doc(tmp_path: Path) -> None:
    from referee_app.commands.compare import BEGIN, END, markdown_table, splice_table

    row = {"n_images": 3, "n_labelled": 10, "n_detected": 9, "recall": 0.9, "precision": 1.0,
           "value_accuracy": 0.5, "end_to_end": 0.45, "ms_per_image": 20.0, "fps": 50.0}
    table = markdown_table({"threads": 1, "folders": [{"folder": "a/photos", "results": {"combo": row}}]})
    assert "| photos | combo | 3 | 10 | 9 | 90.0 % | 100.0 % | 50.0 % | 45.0 % | 20.0 | 50.0 |" in table
    doc = tmp_path / "models.md"
    doc.write_text(f"# Models\nprose\n{BEGIN}\nold table\n{END}\nmore prose\n")
    out = splice_table(doc, table)
    assert out.startswith("# Models\nprose\n") and out.endswith(f"{END}\nmore prose\n")
    assert "old table" not in out and "| photos | combo |" in out
    assert splice_table(tmp_path / "new.md", table) == table


def test_compare_learned_reader_without_a_value_model_says_how_to_get_one(tmp_path: Path, capsys) -> None:
    assert main(["compare", "dice", str(tmp_path), "--json", str(tmp_path / "o.json"), "--readers", "learned",
                 "--value-model", str(tmp_path / "missing.onnx")]) == 2
    err = capsys.readouterr().err
    assert "six-class model" in err and "--scheme value" in err


def test_compare_scores_the_crops_reader_beside_the_classical_one(two_photos: Path, tmp_path: Path) -> None:
    out = tmp_path / "cmp.json"
    assert main(["compare", "dice", str(two_photos), "--json", str(out), "--readers", "crops,classical"]) == 0
    res = json.loads(out.read_text())["folders"][0]["results"]
    assert set(res) == {"crops", "classical"}
    assert res["crops"]["n_images"] == 2 and res["crops"]["n_labelled"] == res["classical"]["n_labelled"]
    assert res["crops"]["recall"] >= 0.9 and res["crops"]["value_accuracy"] >= 0.8
