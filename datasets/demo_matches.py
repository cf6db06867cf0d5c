"""Build the bundled recorded matches (referee_app/data/demo/<game>/): a scripted physical match,
rendered frame by frame by the project's synthetic cameras, with some illegal moves and table
incidents in it, plus the verdicts the referee must reach.

    python -m datasets.demo_matches [--out referee_app/data/demo] [--only highway-grid]

Deterministic: the same script and seed give the same frames.
"""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

import engine

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "referee_app" / "data" / "demo"
JPEG_QUALITY = 82


def add_hand(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A player's hand reaching over the table: a skin-coloured palm and fingers from one edge."""
    out = image.copy()
    h, w = out.shape[:2]
    skin = tuple(int(v) for v in rng.uniform([120, 150, 190], [150, 180, 225]))  # BGR
    cx = int(rng.uniform(0.3, 0.7) * w)
    cy = int(h * rng.uniform(0.55, 0.75))
    cv2.ellipse(out, (cx, h + 40), (int(w * 0.12), int(h * 0.45)), 0, 0, 360, skin, -1, cv2.LINE_AA)
    for k in range(4):
        fx = cx + int((k - 1.5) * w * 0.035)
        cv2.ellipse(out, (fx, cy - int(h * 0.05)), (int(w * 0.014), int(h * 0.12)), 0, 0, 360, skin, -1,
                    cv2.LINE_AA)
    return cv2.GaussianBlur(out, (3, 3), 0)


class Recorder:
    """Collects scenes (one image each, shown for `hold` frames) and the expected verdicts."""

    def __init__(self, out: Path, game: str, players: list[str], fps: float, frames_needed: int) -> None:
        self.out = out
        self.game = game
        self.players = players
        self.fps = fps
        self.frames_needed = frames_needed
        self.frames: list[dict[str, Any]] = []
        self.expected: list[dict[str, Any]] = []
        self.incidents: list[str] = []
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)

    def scene(self, image: np.ndarray, hold: int, note: str = "") -> None:
        name = f"{len(self.frames):03d}.jpg"
        ok = cv2.imwrite(str(self.out / name), image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        if not ok:
            raise OSError(f"cannot write {self.out / name}")
        entry: dict[str, Any] = {"file": name, "hold": hold}
        if note:
            entry["note"] = note
        self.frames.append(entry)

    def expect(self, notation: str, verdict: engine.Verdict) -> None:
        self.expected.append({"notation": notation, "legal": verdict.legal, "rule": verdict.rule})

    def finish(self, title: str, variant: dict[str, Any] | None = None) -> Path:
        manifest = {
            "title": title,
            "game": self.game,
            "players": self.players,
            "variant": variant or {},
            "fps": self.fps,
            "frames_needed": self.frames_needed,
            "frames": self.frames,
            "expected": self.expected,
            "incidents": self.incidents,
            "made_by": "python -m datasets.demo_matches",
        }
        path = self.out / "manifest.json"
        path.write_text(json.dumps(manifest, indent=1) + "\n")
        return path


# -- Highway 4x4 ------------------------------------------------------------------------------
GRID_MOVES = ["9@b2", "1@a1", "16@c3", "2@d1", "12@b3", "3@d4", "15@c2", "4@a4",
              "13@b1", "5@c4", "14@a2", "6@d3", "10@c1", "7@a3", "11@d2", "8@b4"]


def grid_demo(out: Path, seed: int = 11) -> Path:
    from datasets.camera import SheetObject, random_pose, render_sheet, table_texture
    from datasets.tiles.scenes import board_rgb, piece_top
    from vision.tiles import geometry as g

    game = engine.get_game("highway-grid")
    rec = Recorder(out, "highway-grid", ["Ann", "Bo"], fps=6, frames_needed=2)
    rng = np.random.default_rng(seed)
    size = (960, 540)
    # one steady camera over one table for the whole match; only light and noise vary by frame
    pose = random_pose(np.random.default_rng([seed, 1]), g.SHEET_MM, size, height_mm=(420, 480),
                       tilt_deg=(6, 14), yaw_deg=(-6, 6), fill=(0.86, 0.9))
    table = np.ascontiguousarray(table_texture(np.random.default_rng([seed, 2]), size))
    sheet = board_rgb()
    looks: dict[int, tuple[np.ndarray, float, float, tuple[float, float]]] = {}

    def piece(number: int, cell: str) -> SheetObject:
        if number not in looks:
            prng = np.random.default_rng([seed, 3, number])
            top, side, _round = piece_top(prng, number, "printed")
            looks[number] = (top, side, float(prng.uniform(0, 360)), tuple(prng.uniform(-2, 2, 2)))
        top, side, angle, (dx, dy) = looks[number]
        cx, cy = g.cell_centre_mm(cell)
        return SheetObject(top, (cx + dx, cy + dy), (side, side), angle, 2.0, side_bgr=(190, 200, 205))

    def shot(board: dict[str, int], frame: int) -> np.ndarray:
        objects = [piece(n, c) for c, n in board.items()]
        image, _ = render_sheet(sheet, g.SHEET_MM, pose, rng=np.random.default_rng([seed, 4, frame]),
                                background=table, objects=objects, effects=0.4)
        return image

    state = game.new_state()
    board: dict[str, int] = {}
    rec.scene(shot(board, 0), 3, "empty board")
    for k, move in enumerate(GRID_MOVES):
        action = game.parse_action(move)
        cell = move.split("@")[1]
        rec.scene(add_hand(shot(board, 2 * k + 1), rng), 2, f"hand placing {move}")
        if k == 5:  # an incident: a piece slides to another cell; the referee asks for it back
            moved = dict(board)
            src = "b2"
            moved["a2" if "a2" not in moved else "c1"] = moved.pop(src)
            rec.scene(shot(moved, 100 + k), 3, "piece 9 knocked from b2 (mismatch)")
            rec.incidents.append("piece 9 knocked off b2: table-mismatch, then put back")
            rec.scene(shot(board, 200 + k), 3, "piece 9 back on b2")
        if k == 9:  # two pieces at once: the referee refuses to guess
            extra = dict(board)
            extra[cell] = action.piece
            extra["d4" if "d4" not in extra else "a3"] = 7
            rec.scene(shot(extra, 100 + k), 3, "two pieces placed at once (mismatch)")
            rec.incidents.append("two pieces placed at once: table-mismatch, then one taken back")
        board[cell] = action.piece
        state, verdict = engine.step(state, action)
        rec.expect(action.notation(), verdict)
        rec.scene(shot(board, 2 * k + 2), 3, f"after {move}")
    return rec.finish("Highway 4x4 — Ann v Bo, with a knocked piece and a double placement")


BUILDERS: dict[str, Callable[[Path], Path]] = {"highway-grid": grid_demo}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    p.add_argument("--only", choices=sorted(BUILDERS))
    args = p.parse_args(argv)
    for name, build in BUILDERS.items():
        if args.only and name != args.only:
            continue
        path = build(args.out / name)
        m = json.loads(path.read_text())
        size = sum(f.stat().st_size for f in path.parent.iterdir())
        print(f"{name}: {len(m['frames'])} scenes, {sum(f['hold'] for f in m['frames'])} frames, "
              f"{len(m['expected'])} verdicts, {size / 1e6:.1f} MB -> {path.parent}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
