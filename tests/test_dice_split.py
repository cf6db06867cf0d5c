"""The training split of the real dice series (datasets/dice/photo_split.series_split), pip boxes grown
to whole dice (datasets/dice/pip_boxes.py), multi-set model cards and `eval dice` leaving out every
photo a card lists, whatever its folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest
from photo_subset import first_photos

from datasets.dice.photo_split import natural_key, series_split, shots
from datasets.dice.pip_boxes import grow_pip_box
from vision.learned.card_photos import photos_by_set
from vision.realdata import LabelledImage, LabelledObject, LabelledSet


def _item(name: str, values: list[int], **extra: object) -> LabelledImage:
    objs = [LabelledObject("die", v, (10.0 * k, 0.0, 10.0 * k + 8, 8.0)) for k, v in enumerate(values)]
    return LabelledImage(name, 640, 640, objs, extra=dict(extra))


def test_natural_order_puts_dice_9_before_dice_10() -> None:
    names = ["dice_10.jpg", "dice_9.jpg", "two_3.jpg", "dice_100.jpg"]
    assert sorted(names, key=natural_key) == ["dice_9.jpg", "dice_10.jpg", "dice_100.jpg", "two_3.jpg"]


def test_augmented_copies_stay_in_their_originals_shot() -> None:
    items = [_item("dice_1.jpg", [3, 6]), _item("dice_2.jpg", [6, 3], augmented=True),
             _item("dice_3.jpg", [1]), _item("dice_20.jpg", [1])]  # same dice, far in number: a new shot
    assert [[it.image for it in s] for s in shots(items)] == [["dice_1.jpg", "dice_2.jpg"], ["dice_3.jpg"],
                                                              ["dice_20.jpg"]]


def test_each_scene_family_gives_its_first_half_in_whole_shots(tmp_path: Path) -> None:
    items = [_item(f"dice_{k}.jpg", [k % 6 + 1], scene="mat") for k in range(1, 9)]
    items += [_item(f"dice_{k}.jpg", [2, 2], scene="board", augmented=k % 2 == 0) for k in (50, 51, 52)]
    items += [_item(f"dice_{k}.jpg", [4], scene="board") for k in (53, 54, 55)]
    train = series_split(LabelledSet(tmp_path / "some_set", items, {}))
    assert train == sorted(["dice_1.jpg", "dice_2.jpg", "dice_3.jpg", "dice_4.jpg",  # mat: 4 of 8
                            "dice_50.jpg", "dice_51.jpg", "dice_52.jpg"])  # board: the whole first shot


def test_each_file_name_series_gives_its_first_half(tmp_path: Path) -> None:
    items = [_item(f"two_{k}.jpg", [2] if k % 2 else [2, 2]) for k in range(1, 7)]
    items += [_item(f"six_{k}.jpg", [6, k % 5 + 1]) for k in range(1, 5)]
    train = series_split(LabelledSet(tmp_path / "webcam", items, {}))
    assert train == sorted(["two_1.jpg", "two_2.jpg", "two_3.jpg", "six_1.jpg", "six_2.jpg"])
    nell = [_item(f"IMG_{k:03d}.jpg", [1]) for k in range(60)]
    assert series_split(LabelledSet(tmp_path / "nell_byler_d6", nell, {})) == [f"IMG_{k:03d}.jpg" for k in range(52)]


def test_real_series_split_holds_out_part_of_every_family(shared_dir: Path) -> None:
    from vision.realdata import load_labels

    for name in ("epanemu_d6", "matteop65_d6"):
        labels = load_labels(shared_dir / "realdata" / name)
        train = set(series_split(labels))
        assert 0.4 * len(labels.items) < len(train) < 0.65 * len(labels.items)
        for shot in shots(labels.items):  # a shot is never split between training and evaluation
            assert len({it.image in train for it in shot}) == 1
    epanemu = load_labels(shared_dir / "realdata" / "epanemu_d6")
    train = set(series_split(epanemu))
    for scene in {it.extra["scene"] for it in epanemu.items}:
        members = [it.image for it in epanemu.items if it.extra["scene"] == scene]
        assert any(m in train for m in members) and any(m not in train for m in members), scene


def _die_on_wood(side: int = 40) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    img = np.zeros((200, 200, 3), np.uint8)
    img[:] = (120, 170, 200)  # light wood (BGR)
    x0, y0 = 80, 70
    cv2.rectangle(img, (x0, y0), (x0 + side, y0 + side), (235, 240, 240), -1)
    for cx, cy in ((x0 + 10, y0 + 10), (x0 + 30, y0 + 30)):
        cv2.circle(img, (cx, cy), 4, (20, 20, 20), -1)
    return img, (x0, y0, x0 + side, y0 + side)


def test_a_pip_box_grows_to_the_die_it_lies_on() -> None:
    img, die = _die_on_wood()
    grown, from_image = grow_pip_box(img, (86, 76, 114, 104))  # the two pips' box
    assert from_image
    assert np.allclose(grown, die, atol=2)


def test_a_pip_box_on_a_featureless_image_falls_back_to_a_square() -> None:
    img = np.full((200, 200, 3), 128, np.uint8)
    grown, from_image = grow_pip_box(img, (90, 90, 110, 100))
    assert not from_image
    assert np.allclose(grown, (84.5, 79.5, 115.5, 110.5))  # 1.55 x the longer side (20 px), about the centre


def test_cards_name_photos_per_folder_in_both_forms() -> None:
    assert photos_by_set({"trained_on": "a", "train_photos": ["x.jpg"]}) == {"a": {"x.jpg"}}
    assert photos_by_set({"trained_on": ["a", "b"], "train_photos": {"a": ["x.jpg"], "b": ["y.jpg"]}}) == \
        {"a": {"x.jpg"}, "b": {"y.jpg"}}
    assert photos_by_set({"trained_on": None, "train_photos": []}) == {}


def test_eval_dice_leaves_out_every_photo_a_multi_set_card_lists(shared_dir: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A crop network trained on several folders: `eval dice --crop-model` skips, in each folder,
    the photos its card lists for that folder (before: such a card named no folder, nothing was
    skipped)."""
    from referee_app.cli import main
    from vision.learned.crops import DEFAULT_CROP_MODEL

    src = shared_dir / "realdata" / "matteop65_d6"
    folder = tmp_path / "matteop65_d6"
    chosen = first_photos(src, 4, folder)
    model = tmp_path / "multi.onnx"
    shutil.copyfile(DEFAULT_CROP_MODEL, model)
    card = {"trained_on": ["matteop65_d6", "nell_byler_d6"],
            "train_photos": {"matteop65_d6": [chosen[0]["image"], chosen[1]["image"]], "nell_byler_d6": []}}
    model.with_suffix(".json").write_text(json.dumps(card), encoding="utf-8")
    out = tmp_path / "r.json"
    assert main(["eval", "dice", str(folder), "--crop-model", str(model), "--json", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert sorted(i["image"] for i in report["images"]) == sorted(it["image"] for it in chosen[2:])
