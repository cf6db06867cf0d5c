"""The scene-set builders: YOLO lines decoded back to pixels must match the generators' own labels,
which must be what the generators give for the recorded scene parameters; splits; determinism."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from datasets.yolo.scenes import SceneSetSpec, build_scene_set, prepare_folder

SIZE = (320, 192)  # small and not square: a swapped normalisation fails


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("yolo_sets")
    specs = {"tiles": SceneSetSpec("tiles", n=4, seed=5, scheme="number", size=SIZE),
             "route-dice": SceneSetSpec("route-dice", n=4, seed=5, size=SIZE),
             "sticks": SceneSetSpec("sticks", n=3, seed=5, scheme="pieces", size=SIZE)}
    for kind, spec in specs.items():
        build_scene_set(root / kind, spec, show_progress=False)
    return {kind: root / kind for kind in specs}


def decode(line: str, w: int, h: int) -> tuple[int, list[float], list[tuple[float, float, int]]]:
    """class, [x0, y0, x1, y1] in pixels, keypoints (x, y, visibility) in pixels."""
    v = [float(t) for t in line.split()]
    cx, cy, bw, bh = v[1] * w, v[2] * h, v[3] * w, v[4] * h
    kpts = [(v[i] * w, v[i + 1] * h, int(v[i + 2])) for i in range(5, len(v), 3)]
    return int(v[0]), [cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], kpts


def pairs(folder: Path) -> list[tuple[dict[str, Any], list[str]]]:
    """(labels.json item, its YOLO lines) for every image of the set."""
    items = json.loads((folder / "labels.json").read_text())["items"]
    out = []
    for it in items:
        assert (folder / it["image"]).is_file()
        txt = folder / it["image"].replace("images/", "labels/", 1).replace(".jpg", ".txt")
        out.append((it, txt.read_text().splitlines()))
    return out


def clipped(bbox: list[float], w: int, h: int) -> list[float]:
    return [max(0.0, bbox[0]), max(0.0, bbox[1]), min(float(w), bbox[2]), min(float(h), bbox[3])]


def usable(bbox: list[float], w: int, h: int) -> bool:
    x0, y0, x1, y1 = clipped(bbox, w, h)
    return x1 - x0 >= 2 and y1 - y0 >= 2


@pytest.mark.parametrize("kind", ["tiles", "route-dice"])
def test_boxes_and_classes_match_generator_labels(built: dict[str, Path], kind: str) -> None:
    m = json.loads((built[kind] / "manifest.json").read_text())
    names = m["names"]
    n_boxes = 0
    for it, lines in pairs(built[kind]):
        w, h = it["width"], it["height"]
        assert (w, h) == SIZE
        want = [o for o in it["objects"] if usable(o["bbox"], w, h)]
        assert len(lines) == len(want)
        for line, obj in zip(lines, want, strict=True):
            cls, box, kpts = decode(line, w, h)
            assert box == pytest.approx(clipped(obj["bbox"], w, h), abs=0.01)
            assert not kpts
            expected = "leaning" if obj.get("leaning") else str(obj["value"])
            assert names[cls] == expected
        n_boxes += len(lines)
    assert n_boxes == sum(m["boxes"].values()) > 0


def test_sticks_pose_lines_match_generator_ends(built: dict[str, Path]) -> None:
    names = json.loads((built["sticks"] / "manifest.json").read_text())["names"]
    seen = {"stick": 0, "support": 0}
    for it, lines in pairs(built["sticks"]):
        w, h = it["width"], it["height"]
        want = [o for o in it["objects"] if o["kind"] in names and usable(o["bbox"], w, h)
                and o.get("visible_fraction", 1) > 0]
        assert len(lines) == len(want)
        for line, obj in zip(lines, want, strict=True):
            cls, box, kpts = decode(line, w, h)
            assert names[cls] == obj["kind"]
            assert box == pytest.approx(clipped(obj["bbox"], w, h), abs=0.01)
            seen[obj["kind"]] = seen.get(obj["kind"], 0) + 1
            if obj["kind"] != "stick":
                assert kpts == [(0, 0, 0), (0, 0, 0)]
                continue
            ends = sorted(tuple(e) for e in obj["endpoints"])
            for (x, y, vis), (ex, ey) in zip(kpts, ends, strict=True):
                if 0 <= ex <= w and 0 <= ey <= h:
                    assert vis == 2 and (x, y) == pytest.approx((ex, ey), abs=0.01)
                else:
                    assert (x, y, vis) == (0, 0, 0)
    assert seen["stick"] > 0 and seen["support"] > 0


def test_labels_are_the_generators_own(built: dict[str, Path], tmp_path: Path) -> None:
    from datasets.route_dice.scenes import dice_scene
    from datasets.tiles.scenes import grid_scene
    from datasets.tokyo.dataset import write_dataset

    tiles = json.loads((built["tiles"] / "labels.json").read_text())["items"][1]
    _, objects, cells = grid_scene(tiles["board"], tiles["seed"], "mixed", tiles["faults"], 1.0, out_size=SIZE)
    assert objects == tiles["objects"] and cells == tiles["cells"]
    dice = json.loads((built["route-dice"] / "labels.json").read_text())["items"][2]
    _, objects = dice_scene(dice["faces"], dice["seed"], dice["leaning"], 1.0, out_size=SIZE)
    assert objects == dice["objects"]
    # the sticks set renders the very scenes of `dataset tokyo` with the same seed
    doc = write_dataset(tmp_path / "tokyo", 2, 5, *SIZE)
    ours = json.loads((built["sticks"] / "labels.json").read_text())["items"]
    assert [it["objects"] for it in doc["items"]] == [it["objects"] for it in ours[:2]]


def test_splits_data_yaml_and_manifest(built: dict[str, Path]) -> None:
    m = json.loads((built["tiles"] / "manifest.json").read_text())
    assert m["scenes"] == {"train": [0, 1, 2], "val": [3]}  # 4 * 0.2 rounds to 1: the last scene
    assert len(list((built["tiles"] / "images" / "val").glob("*.jpg"))) == 1
    assert len(list((built["tiles"] / "labels" / "train").glob("*.txt"))) == 3
    assert sum(m["per_class"].values()) == sum(m["boxes"].values())
    text = (built["tiles"] / "data.yaml").read_text()
    assert f"path: {built['tiles'].resolve()}" in text and "val: images/val" in text and "kpt_shape" not in text
    assert "  15: '16'" in text
    pose = (built["sticks"] / "data.yaml").read_text()
    assert "kpt_shape: [2, 3]" in pose and "flip_idx: [1, 0]" in pose and "  2: 'car'" in pose


def test_same_seed_same_bytes_other_seed_differs(built: dict[str, Path], tmp_path: Path) -> None:
    again = tmp_path / "again"
    build_scene_set(again, SceneSetSpec("route-dice", n=4, seed=5, size=SIZE), show_progress=False)
    for sub in ("labels/train", "labels/val", "images/val"):
        for f in (built["route-dice"] / sub).iterdir():
            assert (again / sub / f.name).read_bytes() == f.read_bytes()
    other = tmp_path / "other"
    build_scene_set(other, SceneSetSpec("route-dice", n=1, seed=6, size=SIZE), show_progress=False)
    assert (other / "labels/train/route-dice_6_00000.txt").read_text() != \
        (again / "labels/train/route-dice_5_00000.txt").read_text()


def test_no_val_fraction_and_rebuild_over_an_earlier_set(tmp_path: Path) -> None:
    out = tmp_path / "set"
    build_scene_set(out, SceneSetSpec("tiles", n=2, seed=1, size=SIZE), show_progress=False)
    m = build_scene_set(out, SceneSetSpec("tiles", n=1, seed=2, val_fraction=0.0, size=SIZE),
                        show_progress=False)
    assert m["images"] == {"train": 1, "val": 0}
    assert [p.name for p in (out / "images" / "train").iterdir()] == ["tiles_2_00000.jpg"]  # old ones gone
    assert "val: images/train" in (out / "data.yaml").read_text()


def test_refuses_foreign_folder_and_bad_specs(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep me")
    with pytest.raises(ValueError, match="not empty and holds no YOLO set"):
        prepare_folder(tmp_path)
    assert (tmp_path / "mine.txt").read_text() == "keep me"
    for spec, message in [(SceneSetSpec("tiles", n=0), "n must be"),
                          (SceneSetSpec("tiles", val_fraction=1.0), "val_fraction"),
                          (SceneSetSpec("tiles", size=(32, 32)), "size must be"),
                          (SceneSetSpec("sticks", scheme="number"), "scheme for sticks"),
                          (SceneSetSpec("dominoes"), "kind must be")]:
        with pytest.raises(ValueError, match=message):
            build_scene_set(tmp_path / "x", spec, show_progress=False)
    assert not (tmp_path / "x").exists()


def test_images_are_the_rendered_size(built: dict[str, Path]) -> None:
    import cv2

    img = cv2.imread(str(next((built["sticks"] / "images" / "train").glob("*.jpg"))))
    assert img.shape[:2] == (SIZE[1], SIZE[0]) and np.ptp(img) > 0
