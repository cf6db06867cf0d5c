"""The main job through the user's path: `highway-referee serve --demo ...` in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np


def run_cli(*args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "referee_app", *args], capture_output=True, text=True,
                          timeout=timeout)


def test_serve_demo_referees_the_recorded_match_and_keeps_its_log(tmp_path):
    out = run_cli("serve", "--demo", "highway-grid", "--exit-when-done", "--port", "0", "--speed", "8",
                  "--data", str(tmp_path))
    assert out.returncode == 0, out.stderr[-2000:]
    assert "Highway Referee is serving http://127.0.0.1:" in out.stdout
    assert "?token=" in out.stdout and "All recorded matches have been refereed" in out.stdout
    logs = list((tmp_path / "matches").glob("*.jsonl"))
    assert len(logs) == 1
    records = [json.loads(line) for line in logs[0].read_text().splitlines()]
    assert records[0]["game"] == "highway-grid"
    actions = [r for r in records if r["type"] == "action"]
    manifest = json.loads((Path(__file__).parents[1] / "referee_app/data/demo/highway-grid/manifest.json")
                          .read_text())
    assert [a["notation"] for a in actions] == [e["notation"] for e in manifest["expected"]]
    assert all(a["source"] == "vision" for a in actions)
    assert any(r["type"] == "event" and r["kind"] == "table-mismatch" for r in records)
    # and the log replays through the CLI
    replay = run_cli("log", "replay", str(logs[0]))
    assert replay.returncode == 0, replay.stdout + replay.stderr


def test_serve_rejects_bad_options(tmp_path):
    out = run_cli("serve", "--demo", "chess", "--port", "0", "--data", str(tmp_path))
    assert out.returncode == 2 and "no bundled recorded match for 'chess'" in out.stderr
    out = run_cli("serve", "--frames", str(tmp_path / "nope"), "--port", "0", "--data", str(tmp_path))
    assert out.returncode == 1 and "cannot open frames" in out.stderr


def test_serve_drives_an_led_board_over_serial(tmp_path):
    """The recorded match's verdicts and table mismatches reach the LED board's firmware (running in
    its emulator on a pseudo-terminal) through `serve --led`."""
    from firmware.emulator import Emulator
    from referee_app.led import find_layout

    layout = find_layout("highway-grid")
    seen: list[list[tuple[int, int, int]]] = []
    with Emulator(layout.led_count, on_frame=lambda px: seen.append(list(px))) as emu:
        out = run_cli("serve", "--demo", "highway-grid", "--exit-when-done", "--port", "0", "--speed", "8",
                      "--data", str(tmp_path), "--led", emu.path, "--led-protocol", "native")
    assert out.returncode == 0, out.stderr[-2000:]
    assert seen, "the board received no frame"
    mismatch_led = layout.status["mismatch"]
    amber = [f[mismatch_led] for f in seen if f[mismatch_led] != (0, 0, 0)]
    assert amber and all(r > g > b for r, g, b in amber)  # the mismatch light blinked amber (dimmed)
    lit = max(sum(f[leds[0]] != (0, 0, 0) for leds in layout.cells.values()) for f in seen)
    assert lit == 16  # every placed piece lit its cell by the end of the match


def test_serve_calibration_option(tmp_path):
    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "0001.png").write_bytes(cv2.imencode(".png", np.zeros((48, 64, 3), np.uint8))[1].tobytes())
    bad = tmp_path / "cal.json"
    bad.write_text("{not json")
    out = run_cli("serve", "--frames", str(frames), "--game", "tokyo-highway", "--calibration", str(bad),
                  "--port", "0", "--data", str(tmp_path / "d"))
    assert out.returncode == 1 and "cannot use the calibration" in out.stderr
    out = run_cli("serve", "--frames", str(frames), "--game", "highway-grid", "--calibration", str(bad),
                  "--port", "0", "--data", str(tmp_path / "d"))
    assert out.returncode == 2 and "takes no camera calibration" in out.stderr
