"""The crop network's training for dice seen from low (issue 21): top-face copies framed as the reader
reads a grown die, a validation block left out of the crop set, foreshortening augmentation and the
oversampling of the top-face copies, recorded on the card. Tiny runs; torch is needed for the training
ones (skipped without it), the shared photos for the real-set one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest


def test_top_face_copies_only_for_dice_seen_from_low() -> None:
    from datasets.dice.crops import PATCH, top_face_samples

    image = np.full((200, 200, 3), 90, np.uint8)
    image[40:100, 40:80] = 230  # a die seen from low: 40 wide, 60 tall
    image[120:160, 120:160] = 230  # a die seen from above: square
    rng = np.random.default_rng(0)
    patches, labels = top_face_samples(image, [((40, 40, 80, 100), 3), ((120, 120, 160, 160), 5)], rng, 2)
    assert labels == [3, 3]  # two copies of the tall die only
    assert all(p.shape == (PATCH, PATCH, 3) for p in patches)
    # framed on the top square (40 x 40 from the upper edge): the patch centre lies on the die
    assert patches[0][PATCH // 2, PATCH // 2].mean() > 200


def test_foreshortening_shortens_dice_and_is_off_by_default() -> None:
    torch = pytest.importorskip("torch")
    from datasets.dice.crop_training import augment

    x = torch.zeros(64, 3, 64, 64)
    x[:, :, 22:42, 22:42] = 255.0
    plain = augment(x, torch.Generator().manual_seed(3), True, size=48)
    zero = augment(x, torch.Generator().manual_seed(3), True, size=48, oblique=0.0)
    assert torch.equal(plain, zero)  # oblique 0: the draws and crops of before
    bright = augment(x, torch.Generator().manual_seed(3), True, size=48, oblique=1.0)
    # every crop squashed to 0.6-1 along one direction: the die covers less of the crop on average
    assert float((bright[:, 0] > 128).float().mean()) < 0.95 * float((plain[:, 0] > 128).float().mean())


def _mat_folder(shared: Path, dest: Path, names: list[str]) -> Path:
    src = shared / "realdata" / "epanemu_d6"
    labels = json.loads((src / "labels.json").read_text(encoding="utf-8"))
    items = [it for it in labels["items"] if it["image"] in names]
    dest.mkdir(parents=True)
    for it in items:
        shutil.copyfile(src / it["image"], dest / it["image"])
    (dest / "labels.json").write_text(json.dumps(dict(labels, items=items)), encoding="utf-8")
    return dest


def test_train_dice_crops_with_top_faces_left_out_photos_and_oblique(tmp_path: Path, shared_dir: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from referee_app.cli import main

    # two blue-purple mat photos (large dice seen from low, 5 and 2 dice), the second left out
    folder = _mat_folder(shared_dir, tmp_path / "mat", ["dice_369.jpg", "dice_372.jpg"])
    out = tmp_path / "oblique.onnx"
    assert main(["train", "dice-crops", "--real", str(folder), "--real-first", "2", "--renders", "0",
                 "--synthetic", "8", "--epochs", "1", "--top-face-copies", "2", "--leave-out", "dice_37*.jpg",
                 "--hard-weight", "3", "--oblique", "0.3", "--out", str(out)]) == 0
    card = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert card["train_photos"] == ["dice_369.jpg"]  # the left-out photo is not trained on
    assert card["top_face_copies"] == 2 and card["leave_out"] == ["dice_37*.jpg"]
    assert card["hard_weight"] == 3.0 and card["oblique"] == 0.3
    z = np.load(out.with_suffix(".crops.npz"))
    assert int(z["hard"].sum()) == 2 * 5  # dice_369's five dice are all seen from low
    assert set(z["y"][z["hard"] == 1].tolist()) == {3}
    md = out.with_suffix(".md").read_text(encoding="utf-8")
    for flag in ("--top-face-copies 2", "--leave-out 'dice_37*.jpg'", "--hard-weight 3.0", "--oblique 0.3"):
        assert flag in md  # the rebuild line
    # fine-tuned from it on the other photo: the card still names the one its start trained on
    again = tmp_path / "again.onnx"
    assert main(["train", "dice-crops", "--real", str(folder), "--real-first", "2", "--renders", "0",
                 "--synthetic", "8", "--epochs", "1", "--leave-out", "dice_369.jpg", "--init-onnx", str(out),
                 "--arch", "c32", "--out", str(again)]) == 0
    card = json.loads(again.with_suffix(".json").read_text(encoding="utf-8"))
    assert card["train_photos"] == {"mat": ["dice_369.jpg", "dice_372.jpg"]}
    assert card["photos_seen_by_init"] == {"mat": ["dice_369.jpg"]}


def test_train_dice_crops_rejects_bad_oblique_options(tmp_path: Path, capsys) -> None:
    pytest.importorskip("torch")
    from referee_app.cli import main

    for bad in (["--oblique", "1.5"], ["--hard-weight", "0"], ["--top-face-copies", "-1"]):
        assert main(["train", "dice-crops", *bad, "--out", str(tmp_path / "x.onnx")]) == 2
        assert "--oblique" in capsys.readouterr().err
