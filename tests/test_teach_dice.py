"""Teach-your-set through the user's path: `teach dice`, `eval dice --profile`, `serve --dice-profile`,
on tiny labelled folders made from the shipped rendered sample (datasets/samples/dice)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from referee_app.cli import CliError, main

SAMPLE = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "dice"


def folder_from_sample(tmp: Path, change=None, n: int = 6) -> Path:
    """A copy of the sample's first n photos and their labels; `change(labels)` edits the labels."""
    out = tmp / "set"
    (out / "images").mkdir(parents=True)
    labels = json.loads((SAMPLE / "labels.json").read_text())
    labels["items"] = sorted(labels["items"], key=lambda it: it["image"])[:n]
    for it in labels["items"]:
        shutil.copy(SAMPLE / it["image"], out / it["image"])
    if change:
        change(labels)
    (out / "labels.json").write_text(json.dumps(labels))
    return out


def five_is_a_symbol_two(labels: dict) -> None:
    """Pretend this set's 2-face carries a symbol drawn like five pips: every die showing 5 is a 2."""
    for it in labels["items"]:
        for o in it["objects"]:
            if o["value"] == 5:
                o["value"], o["symbol"] = 2, "five-dot emblem"


def test_teach_then_eval_with_the_profile_leaves_the_teaching_photos_out(tmp_path: Path, capsys) -> None:
    folder = folder_from_sample(tmp_path)
    prof = tmp_path / "my-dice.json"
    assert main(["teach", "dice", str(folder), "--first", "3", "--out", str(prof)]) == 0
    assert "wrote" in capsys.readouterr().out
    data = json.loads(prof.read_text())
    taught = data["taught_on"]["photos"]
    assert data["format"] == "highway-referee dice profile" and len(taught) == 3
    assert set(data["dice_per_value"]) <= {"1", "2", "3", "4", "5", "6"} and data["colours"]
    report = tmp_path / "r.json"
    assert main(["eval", "dice", str(folder), "--profile", str(prof), "--json", str(report)]) == 0
    r = json.loads(report.read_text())
    assert r["profile"] == str(prof) and set(taught) <= set(r["skipped_images"])
    assert r["n_images"] == 3 and r["recall"] > 0.5


def test_a_taught_symbol_face_is_read_as_its_labelled_value(tmp_path: Path, capsys) -> None:
    folder = folder_from_sample(tmp_path, five_is_a_symbol_two)
    prof = tmp_path / "my-dice.json"
    assert main(["teach", "dice", str(folder), "--first", "3", "--out", str(prof)]) == 0
    assert "faces with symbols: 2 (five-dot emblem)" in capsys.readouterr().out
    assert json.loads(prof.read_text())["symbols"] == {"2": "five-dot emblem"}
    plain, taught = tmp_path / "plain.json", tmp_path / "taught.json"
    assert main(["eval", "dice", str(folder), "--json", str(plain)]) == 0
    assert main(["eval", "dice", str(folder), "--profile", str(prof), "--json", str(taught)]) == 0
    # on the three photos it was not taught on: the default reading calls the symbol a 5, the profile a 2
    held = set(json.loads(taught.read_text())["skipped_images"])
    plain_two = [p for (t, p, _c), img in _reads_by_image(json.loads(plain.read_text()))
                 if t == 2 and img not in held]
    taught_two = [p for (t, p, _c), _img in _reads_by_image(json.loads(taught.read_text())) if t == 2]
    assert plain_two and taught_two
    assert sum(p == 2 for p in plain_two) < len(plain_two) / 2  # the default reader says 5
    assert sum(p == 2 for p in taught_two) == len(taught_two)


def _reads_by_image(report: dict) -> list[tuple[tuple[int, int, float], str]]:
    """value_reads paired with their image (reads are in image order, value_total per image)."""
    out, k = [], 0
    for row in report["images"]:
        for _ in range(row["value_total"]):
            out.append((tuple(report["value_reads"][k]), row["image"]))
            k += 1
    return out


def seven(labels: dict) -> None:
    labels["items"][1]["objects"][0]["value"] = 7


def no_dice(labels: dict) -> None:
    labels["items"][2]["objects"] = []


@pytest.mark.parametrize("change, message", [
    (seven, "has value 7; a die's value is 1..6"),
    (no_dice, "a teaching photo must show labelled dice; this one has none"),
    ("unreadable", "not a decodable image"),
])
def test_bad_teaching_photos_give_a_clear_error_and_write_nothing(tmp_path: Path, capsys, change,
                                                                   message: str) -> None:
    folder = folder_from_sample(tmp_path, None if change == "unreadable" else change, n=3)
    if change == "unreadable":
        first = sorted((folder / "images").iterdir())[1]
        first.write_bytes(b"not a jpeg")
    prof = tmp_path / "out" / "my-dice.json"
    assert main(["teach", "dice", str(folder), "--first", "3", "--out", str(prof)]) == 2
    err = capsys.readouterr().err
    assert message in err and "nothing was written" in err and "Traceback" not in err
    assert not prof.exists() and not prof.parent.exists()


@pytest.mark.parametrize("argv, message", [
    (["--first", "9"], "--first 9 but only 6 labelled photos"),
    (["--first", "0"], "teach on at least one photo"),
    (["--photos", "images/nope.jpg"], "no labelled photo named images/nope.jpg"),
])
def test_teach_refuses_photos_it_does_not_have(tmp_path: Path, capsys, argv: list[str], message: str) -> None:
    prof = tmp_path / "p.json"
    assert main(["teach", "dice", str(SAMPLE), "--out", str(prof), *argv]) == 2
    assert message in capsys.readouterr().err and not prof.exists()
    assert main(["eval", "dice", str(SAMPLE), "--reader", "classical", "--profile", str(prof)]) == 2
    assert "--profile go with --reader crops" in capsys.readouterr().err


def test_eval_and_serve_refuse_a_broken_profile(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "highway-referee dice profile", "version": 1, "delta": []}')
    assert main(["eval", "dice", str(SAMPLE), "--profile", str(bad)]) == 2
    assert "malformed dice profile" in capsys.readouterr().err
    frames = tmp_path / "frames"
    frames.mkdir()
    data = tmp_path / "data"
    assert main(["serve", "--frames", str(frames), "--dice-profile", str(bad), "--port", "0",
                 "--data", str(data)]) == 2
    assert "--dice-profile" in capsys.readouterr().err and not data.exists()
    assert main(["serve", "--demo", "--dice-profile", str(bad), "--port", "0", "--data", str(data)]) == 2
    assert "give --camera, --video, --frames" in capsys.readouterr().err


def test_serve_reads_the_boards_dice_with_the_profile(tmp_path: Path) -> None:
    """`serve --dice-profile` reaches the zone reader the highway-dice referee runs, and that reader
    gives the taught value of a symbol face."""
    import argparse

    from referee_app.commands import serve
    from vision.sources import read_image

    folder = folder_from_sample(tmp_path, five_is_a_symbol_two)
    prof = tmp_path / "my-dice.json"
    assert main(["teach", "dice", str(folder), "--first", "3", "--out", str(prof)]) == 0
    frames = tmp_path / "frames"
    frames.mkdir()
    import cv2

    cv2.imwrite(str(frames / "0001.png"), np.full((48, 64, 3), 128, np.uint8))  # serve wants an image
    p = argparse.ArgumentParser()
    serve._setup(p)
    args = p.parse_args(["--frames", str(frames), "--dice-profile", str(prof), "--data", str(tmp_path / "d")])
    other = p.parse_args(["--frames", str(frames), "--game", "tokyo-highway", "--dice-profile", str(prof),
                          "--data", str(tmp_path / "d2")])
    with pytest.raises(CliError, match="reads no pip dice"):
        serve.build_referee(other)
    _hub, loops = serve.build_referee(args)
    adapter = loops[-1].adapter
    try:
        from referee_app.games.dice import BoardDiceReader

        assert adapter._profile is not None
        blocked = adapter.read(np.full((480, 640, 3), 128, np.uint8))  # no board in view: nothing read
        assert blocked.blocked and isinstance(adapter._reader, BoardDiceReader)
        zones = adapter._reader.zones
        assert zones.profile is adapter._profile
        labels = json.loads((folder / "labels.json").read_text())
        held_out = sorted(labels["items"], key=lambda it: it["image"])[3:]  # not taught on
        symbols = [(it["image"], o["bbox"]) for it in held_out for o in it["objects"] if o.get("symbol")]
        assert symbols
        tray = next(z for z in zones.zones if z.many)
        for name, box in symbols:
            value, _conf, _colour, readings, _at = zones._value(read_image(folder / name),
                                                                np.array(box, np.float32), tray)
            assert value == 2 and readings["profile"][0] == 2
    finally:
        loops[-1].frames.close()


REAL = Path(__file__).resolve().parents[1].parent / "shared" / "realdata" / "nell_byler_d6"


@pytest.mark.skipif(not (REAL / "labels.json").is_file(), reason="needs ../shared/realdata")
def test_a_profile_of_other_dice_leaves_a_real_series_as_it_was(tmp_path: Path) -> None:
    """Taught on rendered dice, the profile must not change what the reader says on real photos of
    other dice (its guard keeps the default reading)."""
    folder = folder_from_sample(tmp_path)
    prof = tmp_path / "rendered.json"
    assert main(["teach", "dice", str(folder), "--first", "3", "--out", str(prof)]) == 0
    real = tmp_path / "real"
    real.mkdir()
    labels = json.loads((REAL / "labels.json").read_text())
    labels["items"] = sorted(labels["items"], key=lambda it: it["image"])[100:104]  # never trained on
    for it in labels["items"]:
        (real / it["image"]).symlink_to(REAL / it["image"])
    (real / "labels.json").write_text(json.dumps(labels))
    plain, taught = tmp_path / "plain.json", tmp_path / "taught.json"
    assert main(["eval", "dice", str(real), "--json", str(plain)]) == 0
    assert main(["eval", "dice", str(real), "--profile", str(prof), "--json", str(taught)]) == 0
    a, b = json.loads(plain.read_text()), json.loads(taught.read_text())
    assert a["n_labelled"] > 10 and b["matched"] == a["matched"]
    assert b["value_accuracy"] >= a["value_accuracy"]


def _reads_on(report: dict, images: set[str]) -> list[tuple[int, int, float]]:
    return [r for r, img in _reads_by_image(report) if img in images]


def test_a_profile_that_learned_no_change_reads_every_die_as_the_default_reader(tmp_path: Path) -> None:
    """The profile corrects the crop reader's own probabilities: with its learned change set to zero,
    every die the guard lets it read keeps the default value and confidence (on main's code the
    profile re-read each die on another box, so its confidences moved with nothing learned)."""
    folder = folder_from_sample(tmp_path)
    prof = tmp_path / "my-dice.json"
    assert main(["teach", "dice", str(folder), "--first", "3", "--out", str(prof)]) == 0
    data = json.loads(prof.read_text())
    data["delta"] = np.zeros_like(np.asarray(data["delta"])).tolist()
    data["keep"], data["near"] = 0.5, -1.0  # the default threshold; the guard lets it read every die
    zero = tmp_path / "zero.json"
    zero.write_text(json.dumps(data))
    plain, taught = tmp_path / "plain.json", tmp_path / "taught.json"
    assert main(["eval", "dice", str(folder), "--json", str(plain)]) == 0
    assert main(["eval", "dice", str(folder), "--profile", str(zero), "--json", str(taught)]) == 0
    with_zero = json.loads(taught.read_text())
    scored = {row["image"] for row in with_zero["images"]}
    before, after = _reads_on(json.loads(plain.read_text()), scored), _reads_on(with_zero, scored)
    assert len(after) == len(before) > 5
    assert [r[:2] for r in after] == [r[:2] for r in before]
    assert np.allclose([r[2] for r in after], [r[2] for r in before], atol=2e-4)


@pytest.mark.parametrize("version, readable", [(1, True), (2, True), (3, False)])
def test_profile_versions_one_and_two_are_read_and_a_newer_one_is_refused(tmp_path: Path, capsys,
                                                                         version: int,
                                                                         readable: bool) -> None:
    folder = folder_from_sample(tmp_path, n=4)
    prof = tmp_path / "my-dice.json"
    assert main(["teach", "dice", str(folder), "--first", "3", "--out", str(prof)]) == 0
    data = json.loads(prof.read_text())
    assert data["version"] == 2
    data["version"] = version
    prof.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["eval", "dice", str(folder), "--profile", str(prof)]) == (0 if readable else 2)
    if not readable:
        err = capsys.readouterr().err
        assert "dice profile version 3; this referee reads versions 1, 2: teach it again" in err
