"""What the LED board should show, from referee events: a `Scene` keeps the board's state and turns
each event into an immutable `LedFrame` (base colours plus running blinks), which either protocol
can send. The blink rules match the firmware's (firmware/ledproto.py): lit for the first half of
each period, `cycles` times, 0 meaning until replaced or cleared.

Event rules (docs/protocols/led.md, "What the lights mean"):
- turn: the seat LED of the player to move lights in the seat's colour, the others idle.
- verdict, legal: the action's cells flash green, then stay lit dimly ("placed").
- verdict, illegal: the cells and the player's seat LED flash red; with consequence must_correct
  they keep flashing until the next verdict. Any verdict stops an earlier must-correct flash.
- verdict with correction: true (an action withdrawn): the withdrawn action's cells go dark.
- confirm-needed with cells: those cells blink cyan until the next verdict.
- table-mismatch with cells: those cells and the mismatch light blink amber until a mismatch event
  with no cells or a legal verdict.
- camera lost: the camera light blinks red; camera ok: it glows dim green.
- match-start clears the board; match-end blinks the winners' seat LEDs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from referee_app import events as ev
from referee_app.led.colors import RGB, scale
from referee_app.led.layout import Layout

OFF: RGB = (0, 0, 0)


@dataclass(frozen=True)
class Blink:
    indices: tuple[int, ...]
    color: RGB
    period_s: float
    cycles: int  # 0: until replaced or cleared
    start: float  # clock time the blink began
    tag: str = ""  # why it blinks: "legal", "illegal", "must_correct", "mismatch", "camera", "winner"

    # Times are compared in whole milliseconds, as the board's firmware counts them, so that the host's
    # picture and the board's never disagree at a blink's edge (100.2 + 0.8 is not 101.0 in floats).
    def _elapsed_ms(self, now: float) -> int:
        return max(0, round((now - self.start) * 1000))

    def _period_ms(self) -> int:
        return max(1, round(self.period_s * 1000))

    def expired(self, now: float) -> bool:
        return self.cycles > 0 and self._elapsed_ms(now) >= self.cycles * self._period_ms()

    def lit(self, now: float) -> bool:
        return self._elapsed_ms(now) % self._period_ms() < self._period_ms() / 2

    def resume(self, now: float) -> tuple[int, int, int]:
        """(period_ms, cycles left, phase_ms) to start this blink on a board at `now` in step."""
        period_ms = max(1, round(self.period_s * 1000))
        elapsed_ms = max(0, round((now - self.start) * 1000))
        done, phase_ms = divmod(elapsed_ms, period_ms)
        cycles = 0 if self.cycles == 0 else max(1, self.cycles - done)
        return period_ms, cycles, phase_ms


@dataclass(frozen=True)
class LedFrame:
    base: tuple[RGB, ...]
    blinks: tuple[Blink, ...] = ()
    brightness: float = 1.0
    event_t: float = 0.0  # wall-clock time of the event that produced it (latency measurement)
    seq: int = 0

    def active(self, now: float) -> tuple[Blink, ...]:
        return tuple(b for b in self.blinks if not b.expired(now))

    def render(self, now: float, dim: bool = True) -> list[RGB]:
        """Colours at time `now` (the clock the blinks were started on); `dim` applies brightness."""
        out = list(self.base)
        for b in self.active(now):
            if b.lit(now):
                for i in b.indices:
                    out[i] = b.color
        if dim and self.brightness < 1.0:
            out = [scale(c, self.brightness) for c in out]
        return out


@dataclass
class SceneStats:
    events: int = 0
    unknown_cells: list[str] = field(default_factory=list)  # cell ids no LED shows (last 20)
    other_game: int = 0  # events for a game this layout is not for (cells ignored)


class Scene:
    def __init__(self, layout: Layout, clock: Callable[[], float] = time.monotonic) -> None:
        self.layout = layout
        self.clock = clock
        self.base: list[RGB] = [OFF] * layout.led_count
        self.blinks: list[Blink] = []
        self.stats = SceneStats()
        self._seq = 0
        self._placed: dict[object, list[int]] = {}  # verdict seq -> LEDs it lit, to undo a correction

    # -- building blocks ------------------------------------------------------------------------
    def _blink(self, leds: Iterable[int], color: RGB, cycles: int, tag: str,
               period: float | None = None) -> None:
        idx = tuple(dict.fromkeys(leds))
        if not idx:
            return
        mine = set(idx)
        kept = []
        for b in self.blinks:  # a new blink replaces older ones on the same LEDs, as on the board
            rest = tuple(i for i in b.indices if i not in mine)
            if rest:
                kept.append(b if len(rest) == len(b.indices) else Blink(rest, b.color, b.period_s, b.cycles,
                                                                        b.start, b.tag))
        period = period if period is not None else self.layout.time("flash_period_s")
        kept.append(Blink(idx, color, period, cycles, self.clock(), tag))
        self.blinks = kept

    def _drop(self, *tags: str) -> None:
        self.blinks = [b for b in self.blinks if b.tag not in tags]

    def _cells(self, event: ev.Event, cells: Any) -> list[int]:
        if not isinstance(cells, list | tuple):
            return []
        if event.game != self.layout.game:
            self.stats.other_game += 1
            return []
        leds, unknown = self.layout.leds_for(str(c) for c in cells)
        if unknown:
            self.stats.unknown_cells = (self.stats.unknown_cells + unknown)[-20:]
        return leds

    def _seat(self, player: Any) -> int | None:
        if isinstance(player, int) and not isinstance(player, bool) and 0 <= player < len(self.layout.seats):
            return self.layout.seats[player]
        return None

    # -- events ---------------------------------------------------------------------------------------
    def apply(self, event: ev.Event) -> bool:
        """Update from one event; True when what the board shows changed."""
        handler = {
            ev.VERDICT: self._verdict, ev.TURN: self._turn, ev.MISMATCH: self._mismatch,
            ev.CAMERA: self._camera, ev.MATCH_START: self._start, ev.MATCH_END: self._end,
            ev.CONFIRM: self._confirm,
        }.get(event.kind)
        if handler is None:
            return False
        self.stats.events += 1
        handler(event)
        return True

    def _verdict(self, event: ev.Event) -> None:
        lay, data = self.layout, event.data
        verdict = data.get("verdict") or {}
        leds = self._cells(event, data.get("cells"))
        self._drop("must_correct", "confirm")
        if data.get("correction"):
            withdrawn = self._placed.pop(data.get("target"), [])
            for i in withdrawn:
                self.base[i] = OFF
            self.blinks = [b for b in self.blinks if not set(b.indices) & set(withdrawn)]
            return
        if verdict.get("legal"):
            self._drop("mismatch")
            if "mismatch" in lay.status:
                self.base[lay.status["mismatch"]] = OFF
            for i in leds:
                self.base[i] = lay.color("placed")
            if data.get("seq") is not None and leds:
                self._placed[data["seq"]] = leds
                if len(self._placed) > 1000:  # only recent actions get corrected
                    self._placed.pop(next(iter(self._placed)))
            self._blink(leds, lay.color("legal"), int(lay.time("legal_flashes")), "legal")
            return
        must = verdict.get("consequence") == "must_correct"
        cycles = 0 if must else int(lay.time("illegal_flashes"))
        seat = self._seat(data.get("player"))
        self._blink([*leds, *([seat] if seat is not None else [])], lay.color("illegal"), cycles,
                    "must_correct" if must else "illegal")

    def _turn(self, event: ev.Event) -> None:
        player = event.data.get("player")
        idle = self.layout.color("seat_idle")
        for seat, led in enumerate(self.layout.seats):
            self.base[led] = self.layout.seat_color(seat) if seat == player else idle

    def _mismatch(self, event: ev.Event) -> None:
        leds = self._cells(event, event.data.get("cells"))
        status = self.layout.status.get("mismatch")
        self._drop("mismatch")
        if not event.data.get("cells"):
            if status is not None:
                self.base[status] = OFF
            return
        color = self.layout.color("mismatch")
        self._blink([*leds, *([status] if status is not None else [])], color, 0, "mismatch",
                    period=2 * self.layout.time("flash_period_s"))

    def _confirm(self, event: ev.Event) -> None:
        self._drop("confirm")
        self._blink(self._cells(event, event.data.get("cells")), self.layout.color("confirm"), 0, "confirm")

    def _camera(self, event: ev.Event) -> None:
        led = self.layout.status.get("camera")
        if led is None:
            return
        self._drop("camera")
        if event.data.get("status") == "lost":
            self._blink([led], self.layout.color("camera_lost"), 0, "camera")
        else:
            self.base[led] = self.layout.color("camera_ok")

    def _start(self, event: ev.Event) -> None:
        camera = self.layout.status.get("camera")
        keep = self.base[camera] if camera is not None else OFF
        self.base = [OFF] * self.layout.led_count
        if camera is not None:
            self.base[camera] = keep
        self.blinks = [b for b in self.blinks if b.tag == "camera"]
        self._placed.clear()

    def _end(self, event: ev.Event) -> None:
        self.blinks = [b for b in self.blinks if b.tag == "camera"]
        outcome = event.data.get("outcome") or {}
        winners = outcome.get("winners", []) if isinstance(outcome, dict) else []
        for w in winners:
            seat = self._seat(w)
            if seat is not None:
                self._blink([seat], self.layout.seat_color(int(w)), 0, "winner",
                            period=2 * self.layout.time("flash_period_s"))

    # -- output -----------------------------------------------------------------------------------------
    def frame(self, event_t: float = 0.0) -> LedFrame:
        self._seq += 1
        now = self.clock()
        self.blinks = [b for b in self.blinks if not b.expired(now)]
        return LedFrame(tuple(self.base), tuple(self.blinks), self.layout.brightness, event_t, self._seq)

    def fill(self, color: RGB) -> None:
        self.base = [color] * self.layout.led_count
        self.blinks = []
