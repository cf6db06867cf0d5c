"""Bundled recorded matches: rendered camera frames of a physical match (with some illegal moves),
replayed through the whole pipeline by the main job and by the tests.

Each demo is a folder under referee_app/data/demo/<name>/ with a manifest.json:
{"game", "players", "variant", "fps", "frames": [{"file", "hold"}...], "expected": [...]}
where each distinct scene is stored once and shown for `hold` frames, and `expected` lists the
verdicts (notation, legal, rule) the referee should reach, so a test can check the whole path.
A match recorded by several cameras names each frame's other pictures: `"second"` (camera 2's file)
or `"others"` (camera 2's, camera 3's ... files, in camera order); its frames are then PairedFrames.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.sources import OtherView, PairedFrame
from vision.types import Frame

log = logging.getLogger("referee_app.demo")
DEMO_ROOT = Path(str(resources.files("referee_app").joinpath("data", "demo")))


@dataclass
class Demo:
    name: str
    folder: Path
    manifest: dict[str, Any]
    skipped: list[str] = field(default_factory=list)

    @property
    def game(self) -> str:
        return str(self.manifest["game"])

    def frames(self, realtime: bool = True, speed: float = 1.0) -> Iterator[Frame]:
        fps = float(self.manifest.get("fps", 8)) * speed
        index = 0
        start = time.time()
        for entry in self.manifest["frames"]:
            path = self.folder / entry["file"]
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:  # a damaged installation: say which file, play the rest
                self.skipped.append(str(path))
                log.warning("%s: bundled demo frame cannot be read; skipped", path)
                continue
            names = list(entry.get("others") or ([entry["second"]] if entry.get("second") else []))
            others = []  # the same moment seen by the match's other cameras (2, 3 ...)
            for cam, name in enumerate(names, start=2):
                other = cv2.imread(str(self.folder / name), cv2.IMREAD_COLOR)
                others.append(OtherView(other, f"demo:{self.name}:camera{cam}",
                                        "" if other is not None else f"{name} cannot be read"))
            for _ in range(int(entry.get("hold", 1))):
                if realtime:
                    delay = start + index / fps - time.time()
                    if delay > 0:
                        time.sleep(delay)
                source = f"demo:{self.name}"
                if others:
                    yield PairedFrame(np.ascontiguousarray(image), time.time(), source, index,
                                      others=list(others))
                else:
                    yield Frame(np.ascontiguousarray(image), time.time(), source, index)
                index += 1


def bundled_demos(root: Path = DEMO_ROOT) -> list[Demo]:
    out = []
    if not root.is_dir():
        return out
    for manifest in sorted(root.glob("*/manifest.json")):
        out.append(Demo(manifest.parent.name, manifest.parent, json.loads(manifest.read_text())))
    return out


def demo_match_id(demo: Demo) -> str:
    """The one match id a bundled recording is replayed under, however often it is replayed."""
    return f"demo-{demo.name}"


class DemoReplays:
    """The bundled recorded matches, replayed again and again for the main job. Each recording
    keeps one match (`demo-<name>`): a new replay replaces that match's log and drops everything
    the hub held of the last one (loop, session, events, pictures), so an idle demo keeps one
    match per recording in the Match list and flat memory however long it runs."""

    def __init__(self, hub: Any, speed: float = 1.0, only: str = "all",
                 demos: list[Demo] | None = None, realtime: bool = True) -> None:
        self.hub = hub
        self.speed = speed
        self.realtime = realtime
        self.demos = [d for d in (demos if demos is not None else bundled_demos())
                      if only in ("all", d.game)]
        self.rounds = 0

    def new_round(self) -> list[Any]:
        """A fresh match for each recording with its referee loop (not started); the dice road
        (else the first) becomes the featured match the page opens on."""
        from referee_app.games import get_adapter
        from referee_app.loop import RefereeLoop

        loops = []
        for demo in self.demos:
            m = demo.manifest
            session = self.hub.replace_match(demo_match_id(demo), demo.game, list(m["players"]),
                                             dict(m.get("variant") or {}), extra={"demo": demo.name})
            # a fresh adapter per replay: readers keep per-match state (a Tokyo reader its last reading)
            loops.append(RefereeLoop(self.hub, session, get_adapter(demo.game).__class__(),
                                     demo.frames(realtime=self.realtime, speed=self.speed),
                                     frames_needed=int(m.get("frames_needed", 3))))
        featured = [lp for lp in loops if lp.session.game.name == "highway-dice"] or loops
        if featured:
            self.hub.featured = featured[0].session.match_id
        self.rounds += 1
        return loops

    def run(self, first: list[Any], stopping: threading.Event, pause: float = 20.0,
            rounds: int | None = None, on_round: Any = None) -> None:
        """Wait for `first` (started loops) to finish, then replay the recordings after `pause`
        seconds, until `stopping` is set (or `rounds` more replays were made)."""
        current = first
        made = 0
        while True:
            for loop in current:
                while not loop.finished.wait(0.5):
                    if stopping.is_set():
                        return
            self.hub.bus.drain()
            if on_round is not None:
                on_round(current)
            if (rounds is not None and made >= rounds) or stopping.wait(pause):
                return
            current = [loop.start() for loop in self.new_round()]
            made += 1
