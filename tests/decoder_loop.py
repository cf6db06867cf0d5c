"""Shared by the decoder tests: run the referee loop (the path `serve` takes) on a scripted adapter
after some typed moves, and collect what it said besides verdicts."""

from __future__ import annotations

from typing import Any

import numpy as np

from referee_app import events
from referee_app.hub import Hub
from referee_app.loop import RefereeLoop
from referee_app.store import MatchStore
from vision.types import Frame


def run_loop(tmp_path, game: str, players: list[str], adapter: Any, frames: int, moves: list[Any] = (),
             frames_needed: int = 2):
    """(session, the mismatch and confirm-needed events). A move is a notation or an Action."""
    hub = Hub(MatchStore(tmp_path))
    said = []
    hub.bus.subscribe(said.append)
    session = hub.create_match(game, players, {})
    for m in moves:
        if isinstance(m, str):
            session.submit_notation(m)
        else:
            session.submit(m, source="manual")
    img = np.zeros((16, 16, 3), np.uint8)
    loop = RefereeLoop(hub, session, adapter, (Frame(img, 0.0, "t", i) for i in range(frames)),
                       frames_needed=frames_needed, publish_video=False)
    loop.run()
    hub.bus.drain()
    return session, [e for e in said if e.kind in (events.MISMATCH, events.CONFIRM)]


def scripted(adapter_class: type, script: list[Any]) -> Any:
    """An adapter of `adapter_class` that reads frame i as `script[i]` instead of from pixels."""

    class Scripted(adapter_class):  # type: ignore[misc, valid-type]
        def read(self, frame: Any) -> Any:
            return script[frame.index]

    return Scripted()
