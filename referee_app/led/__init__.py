"""LED board output: layouts (cells/seats/status -> LED index), a scene built from referee events,
Adalight and native serial protocols, port discovery and an EventBus subscriber that reconnects.
Protocols and layout format: docs/protocols/led.md. Board program and emulator: firmware/."""

from __future__ import annotations

from typing import Any

from referee_app.events import EventBus
from referee_app.led.layout import Layout, LayoutError, find_layout
from referee_app.led.output import LedOutput
from referee_app.led.transport import LedPortError


def attach_led_board(bus: EventBus, port: str, layout: str | Layout = "highway-grid",
                     protocol: str = "adalight", **options: Any) -> LedOutput:
    """Start an LED output on `bus`: `layout` is a Layout, a layout file or a game name; `options`
    go to LedOutput (greeting_timeout, keepalive_s, reconnect_s, ...). Call .stop() when done. It
    never raises for a missing board: it keeps retrying and reports in .stats.last_error."""
    lay = layout if isinstance(layout, Layout) else find_layout(layout)
    return LedOutput(lay, port, protocol, **options).attach(bus).start()


__all__ = ["Layout", "LayoutError", "LedOutput", "LedPortError", "attach_led_board", "find_layout"]
