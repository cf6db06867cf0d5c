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
