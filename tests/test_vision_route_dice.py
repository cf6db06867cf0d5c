"""Railroad Ink dice in the tray: faces, leaning dice, printing, evaluation CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from datasets.route_dice.scenes import dice_scene, render_route_dice_frame
from drawing.canvas import RasterCanvas
from referee_app.cli import main
from vision.route_dice import FACES, read_dice, read_route_dice
from vision.route_dice.faces import draw_face

SAMPLES = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "route_dice"


def test_face_names_cover_route_junction_and_expansion_dice() -> None:
    assert len(FACES) == len(set(FACES)) == 24
    for name in (
        "railway_curve",
        "highway_t",
        "station_curve",
        "overpass",
        "river_bridge_railway",
        "lake_half_pier_highway_railway",
        "lava_quarter_railway",
    ):
        assert name in FACES
    with pytest.raises(ValueError, match="unknown die face"):
        draw_face(RasterCanvas(20, 20), 0, 0, "teleporter")


def test_every_face_is_read_from_a_camera_frame() -> None:
    wrong = []
    for k in range(0, len(FACES), 6):
        faces = list(FACES[k : k + 6])
        got = read_route_dice(render_route_dice_frame(faces, seed=30 + k, effects=0.5))
        names = [f for f, _ in got]
        if sorted(n for n in names if n) != sorted(faces):
            wrong.append((faces, got))
    assert not wrong


def test_a_leaning_die_is_refused() -> None:
    refused = 0
    for seed in range(3):
        image, labels = dice_scene(
            ["highway_t", "overpass", "lake_quarter"], seed=50 + seed, leaning=1, effects=0.4
        )
        readings, _ = read_dice(image)
        faces = [r.face for r in readings if r.status == "face"]
        # the leaning die may hide the die it leans on, but nothing is ever read as another face
        assert set(faces) <= {"highway_t", "lake_quarter", "overpass"} and len(faces) >= 2, faces
        refused += sum(r.status == "unreadable" for r in readings)
        assert all(r.reason for r in readings if r.status == "unreadable")
    assert refused >= 2


def test_print_dice_and_tray(tmp_path: Path) -> None:
    assert main(["print", "railroad-ink-dice", "--out", str(tmp_path), "--dpi", "100"]) == 0
    assert 'width="200mm"' in (tmp_path / "railroad-ink-dice-tray.svg").read_text()
    assert (tmp_path / "railroad-ink-dice-faces.png").stat().st_size > 1000


def test_eval_route_dice_on_the_shipped_sample(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    assert main(["eval", "route-dice", str(SAMPLES), "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["objects"] >= 10
    assert report["recall"] >= 0.85 and report["precision"] >= 0.95 and report["value_accuracy"] >= 0.9
    matrix = report["confusion"]["matrix"]
    wrong_face = sum(matrix[i][j] for i in range(len(FACES)) for j in range(len(FACES)) if i != j)
    assert wrong_face == 0  # dice it cannot read are refused ("none"), never named wrongly
    assert report["confusion"]["labels"][:3] == list(FACES[:3])


def test_eval_route_dice_rejects_unknown_faces(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "labels.json").write_text(
        json.dumps(
            {
                "items": [
                    {
                        "image": "a.jpg",
                        "objects": [{"kind": "route-die", "value": "teleporter", "bbox": [0, 0, 10, 10]}],
                    }
                ]
            }
        )
    )
    assert main(["eval", "route-dice", str(tmp_path)]) == 2
    assert "teleporter" in capsys.readouterr().err
