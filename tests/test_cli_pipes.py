"""The eval commands piped into a reader that stops early (`| head`, here `| true`), and an unwritable --json path:
the JSON report is written before the printout, a closed pipe is no traceback, a bad path is a clear
error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from datasets.tokyo.dataset import write_dataset
from referee_app.cli import main


@pytest.fixture(scope="module")
def sticks_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sticks")
    write_dataset(folder, n=1, seed=5, n_sticks=5)
    return folder


def test_eval_sticks_into_a_closed_pipe_writes_json_and_no_traceback(sticks_folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "m.json"
    # `true` reads nothing and has exited long before the scores are printed: every print hits a
    # closed pipe
    cmd = f"{sys.executable} -m referee_app eval sticks {sticks_folder} --json {out} | true; exit ${{PIPESTATUS[0]}}"
    run = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=240)
    assert "Traceback" not in run.stderr, run.stderr
    assert run.returncode in (0, 141), run.stderr  # 141: the pipe closed before the last line
    assert json.loads(out.read_text())["images"] == 1


def test_eval_sticks_unwritable_json_is_a_clear_error(sticks_folder: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "no-such-folder" / "m.json"
    assert main(["eval", "sticks", str(sticks_folder), "--json", str(target)]) == 1
    assert f"cannot write {target}" in capsys.readouterr().err
