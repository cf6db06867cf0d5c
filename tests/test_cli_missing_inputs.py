"""Inputs named on the command line that are not there, or not what the option takes, are said
before anything is written: `serve --video/--frames` (an empty folder served a match that ended at
once, exit 0; a missing file made the data folder first), `log list/reindex --data` (a mistyped
folder was created and reported as holding 0 matches) (audit23)."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee_app.cli import main


@pytest.fixture()
def places(tmp_path: Path) -> dict[str, Path]:
    empty = tmp_path / "empty-folder"
    empty.mkdir()
    text = tmp_path / "notes.txt"
    text.write_text("not images\n", encoding="utf-8")
    (tmp_path / "no-images").mkdir()
    (tmp_path / "no-images" / "readme.txt").write_text("x", encoding="utf-8")
    return {"missing": tmp_path / "missing.mp4", "empty": empty, "file": text,
            "no-images": tmp_path / "no-images"}


@pytest.mark.parametrize("option,place,message", [
    ("--video", "missing", "no such file"),
    ("--video", "empty", "it is a folder"),
    ("--frames", "missing", "no such folder"),
    ("--frames", "empty", "no images in it"),
    ("--frames", "no-images", "no images in it"),
    ("--frames", "file", "it is a file"),
])
def test_serve_says_a_source_that_is_not_there_before_writing(tmp_path, places, capsys, option, place, message):
    data = tmp_path / "data"
    code = main(["serve", option, str(places[place]), "--game", "highway-grid", "--port", "0",
                 "--data", str(data), "--exit-when-done"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and message in err[0], err
    assert not data.exists()


@pytest.mark.parametrize("command", ["list", "reindex"])
@pytest.mark.parametrize("place,message", [("missing", "no such data folder"), ("file", "is a file")])
def test_log_commands_refuse_a_data_folder_that_is_not_there(places, capsys, command, place, message):
    code = main(["log", command, "--data", str(places[place])])
    assert code == 2 and message in capsys.readouterr().err
    assert not places["missing"].exists()


@pytest.mark.parametrize("command", [["teach", "dice", "{F}", "--out", "{OUT}/p.json"],
                                     ["eval", "dice", "{F}", "--json", "{OUT}/e.json"]])
def test_a_file_given_for_a_labelled_folder_is_one_error_line(tmp_path, capsys, command):
    """main: NotADirectoryError came out as a traceback."""
    labels = tmp_path / "labels.json"
    labels.write_text('{"items": []}', encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    code = main([w.replace("{F}", str(labels)).replace("{OUT}", str(out)) for w in command])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "a file, not a folder" in err[0], err
    assert list(out.iterdir()) == []


def test_eval_dice_refuses_a_label_of_value_7(tmp_path, capsys):
    """main scored the die as one of unknown value and wrote the report (exit 0)."""
    import cv2
    import numpy as np

    folder = tmp_path / "set"
    folder.mkdir()
    cv2.imwrite(str(folder / "a.png"), np.full((120, 160, 3), 200, np.uint8))
    (folder / "labels.json").write_text(
        '{"items": [{"image": "a.png", "width": 160, "height": 120, "objects": ['
        '{"kind": "die", "value": 7, "bbox": [10, 10, 40, 40]}]}]}', encoding="utf-8")
    report = tmp_path / "e.json"
    code = main(["eval", "dice", str(folder), "--json", str(report)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "has value 7; a die's value is 1..6" in err[0], err
    assert not report.exists()


def test_serve_with_a_file_for_its_data_folder_is_one_error_line(places, capsys):
    code = main(["serve", "--demo", "--port", "0", "--data", str(places["file"]), "--exit-when-done"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "cannot create the data folder" in err[0], err  # main: traceback


def test_serve_reads_a_named_led_layout_before_writing_any_match(tmp_path, places, capsys):
    """main wrote the demo matches' logs, then refused the layout."""
    data = tmp_path / "data"
    code = main(["serve", "--demo", "--port", "0", "--data", str(data), "--exit-when-done",
                 "--led", "/dev/null", "--led-layout", str(places["file"])])
    assert code == 2 and "LED board" in capsys.readouterr().err
    assert not data.exists()


@pytest.mark.parametrize("extra,message", [
    (["--demo", "chess"], "no bundled recorded match for 'chess'"),
    (["--demo", "--frames", "{IMAGES}", "--video", "{IMAGES}/a.png"], "one source at a time"),
    (["--demo", "--frames", "{IMAGES}", "--game", "highway-grid", "--calibration", "{IMAGES}/a.png"],
     "takes no camera calibration"),
    (["--demo", "--frames", "{IMAGES}", "--game", "highway-grid", "--players", "A,B,C,D,E"], "--players"),
])
def test_serve_refuses_bad_arguments_before_the_demo_writes_its_logs(tmp_path, capsys, extra, message):
    """main made the data folder (and for all but the first, wrote the demo's match logs) first."""
    import cv2
    import numpy as np

    images = tmp_path / "images"
    images.mkdir()
    cv2.imwrite(str(images / "a.png"), np.full((48, 64, 3), 128, np.uint8))
    data = tmp_path / "data"
    argv = ["serve", "--port", "0", "--data", str(data), "--exit-when-done",
            *[w.replace("{IMAGES}", str(images)) for w in extra]]
    assert main(argv) == 2
    assert message in capsys.readouterr().err
    assert not data.exists()


@pytest.mark.parametrize("argv", [
    ["grid", "hint", ". . . . / . 5 . . / . . . . / . . . .", "--time", "nan"],  # main: searched for ever
    ["grid", "solve", ". . . . / . 5 . . / . . . . / . . . .", "--time", "inf"],
    ["play", "highway-grid", "--computer", "2", "--think", "nan", "--moves", "/dev/null"],
    ["serve", "--demo", "highway-grid", "--speed", "0", "--port", "0", "--exit-when-done"],  # main: ZeroDivisionError, exit 0
    ["serve", "--demo", "highway-grid", "--speed", "nan", "--port", "0", "--exit-when-done"],
])
def test_a_budget_or_speed_that_is_not_a_positive_number_is_refused(tmp_path, capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--data", str(tmp_path / "d")] if argv[0] == "serve" else argv)
    assert exc.value.code == 2 and "must be a positive number" in capsys.readouterr().err
    assert not (tmp_path / "d").exists()


def test_a_calibration_with_no_camera_to_use_it_is_refused(tmp_path, capsys):
    """main ignored it: `serve --demo --calibration missing.json` replayed the demo, exit 0."""
    data = tmp_path / "d"
    assert main(["serve", "--demo", "--calibration", str(tmp_path / "missing.json"), "--port", "0",
                 "--data", str(data), "--exit-when-done"]) == 2
    assert "--calibration is the calibration of the camera watched" in capsys.readouterr().err
    assert not data.exists()
