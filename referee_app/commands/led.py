"""`highway-referee led ...`: list serial ports, walk the LEDs of a connected board, run the board
emulator on a pseudo-terminal, play a demo sequence of referee events, and generate layouts."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from engine import jsontext
from referee_app import events as ev
from referee_app.cli import CliError, CommandTree
from referee_app.led.colors import RGB
from referee_app.led.drivers import PROTOCOLS, Driver, NativeDriver, make_driver
from referee_app.led.layout import (
    LayoutError,
    find_layout,
    rows_from_board_file,
    rows_from_cells,
    serpentine_layout,
)
from referee_app.led.output import LedOutput
from referee_app.led.ports import list_ports
from referee_app.led.transport import LedPortError, SerialTransport
from referee_app.led.view import HOME_CLEAR, render_ansi, render_text


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"must be 0..3600 seconds, got {value}")
    return value


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value <= 1:  # also rejects nan
        raise argparse.ArgumentTypeError(f"must be 0..1, got {value}")
    return value


def _connection_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--port", required=True, help="serial device (/dev/ttyACM0, COM3) or USB id VID:PID")
    p.add_argument("--protocol", choices=PROTOCOLS, default="adalight",
                   help="adalight: stock Adalight/WLED boards; native: this project's firmware")
    p.add_argument("--baud", type=_positive_int, default=115200)
    p.add_argument("--greeting-timeout", type=_seconds, default=3.0, metavar="S",
                   help="seconds to wait for the board's 'Ada' greeting (or status reply) after opening")
    p.add_argument("--no-greeting", action="store_true",
                   help="do not wait for the 'Ada' greeting (WLED and boards that never greet)")


# -- led list -------------------------------------------------------------------------------------------
def _list(args: argparse.Namespace) -> int:
    ports = list_ports()
    if args.json:
        print(json.dumps([{"device": p.device, "usb_id": p.usb_id, "description": p.description,
                           "serial_number": p.serial_number, "board": p.board} for p in ports], indent=2))
        return 0
    if not ports:
        print("no serial ports found (is the board plugged in? on Linux, check `dmesg` for ttyACM/ttyUSB)")
        return 0
    for p in ports:
        extra = f"  <- {p.board}" if p.board else ""
        print(f"{p.device:<24} {p.usb_id or '-':<10} {p.description}{extra}")
    return 0


# -- led test -------------------------------------------------------------------------------------------
def _open(args: argparse.Namespace) -> tuple[SerialTransport, Driver]:
    transport = SerialTransport(args.port, args.baud)
    try:
        transport.open()
        driver = make_driver(args.protocol, transport)
        driver.connect(0.0 if args.no_greeting and args.protocol == "adalight" else args.greeting_timeout)
    except LedPortError as exc:
        transport.close()
        raise CliError(str(exc), 3) from None
    return transport, driver


def _describe(driver: Driver) -> str:
    if isinstance(driver, NativeDriver) and driver.status is not None:
        s = driver.status
        return (f"protocol v{s.version}, {s.led_count} LEDs, brightness {s.brightness}, frames {s.frames}, "
                f"checksum errors {s.crc_errors}, dropped bytes {s.dropped_bytes}, overflows {s.overflows}")
    return "Adalight board (it cannot report its LED count)"


def _test(args: argparse.Namespace) -> int:
    transport, driver = _open(args)
    try:
        print(f"connected to {transport.path}: {_describe(driver)}")
        count = args.count or driver.led_count
        if count is None:
            raise CliError("Adalight boards cannot report how many LEDs they drive: pass --count N", 2)
        if driver.led_count is not None and args.count and args.count > driver.led_count:
            print(f"warning: the board reports {driver.led_count} LEDs, walking {args.count} anyway")
        colors: list[RGB] = [(255, 0, 0), (0, 255, 0), (0, 0, 255)]
        level = max(1, min(255, round(args.level * 255)))
        for i in range(count):
            pixels: list[RGB] = [(0, 0, 0)] * count
            r, g, b = colors[i % 3]
            pixels[i] = (r * level // 255, g * level // 255, b * level // 255)
            driver.pixels(pixels)
            if sys.stdout.isatty():
                print(f"\rLED {i + 1}/{count}", end="", flush=True)
            time.sleep(args.delay)
        print(f"\rwalked {count} LEDs")
        driver.pixels([(0, 0, 0)] * count)
        if isinstance(driver, NativeDriver):
            driver.query(max(args.greeting_timeout, 0.5))
            print(f"after the walk: {_describe(driver)}")
    except OSError as exc:
        raise CliError(f"lost the board on {transport.path}: {exc}", 3) from None
    finally:
        transport.close()
    return 0


def _test_setup(p: argparse.ArgumentParser) -> None:
    _connection_args(p)
    p.add_argument("--count", type=_positive_int, help="LEDs to walk (native boards report their own)")
    p.add_argument("--delay", type=_seconds, default=0.15, metavar="S", help="seconds per LED")
    p.add_argument("--level", type=_fraction, default=0.3, help="brightness of the walking LED, 0..1")


# -- led emulate -------------------------------------------------------------------------------------------
def _emulate(args: argparse.Namespace) -> int:
    from firmware.emulator import Emulator

    layout = None
    if args.layout:
        try:
            layout = find_layout(args.layout)
        except LayoutError as exc:
            raise CliError(str(exc)) from None
    count = args.count or (layout.led_count if layout else 24)
    if layout is not None and count < layout.led_count:
        raise CliError(f"--count {count} is smaller than the layout's {layout.led_count} LEDs")
    view = args.view or ("ansi" if sys.stdout.isatty() else "text")
    try:
        emu = Emulator(count, baud=args.baud, link=args.link, resets_on_open=not args.no_reset).start()
    except (OSError, ValueError) as exc:
        raise CliError(f"cannot start the emulator: {exc}") from None
    where = f"{emu.path}" + (f" (link {args.link})" if args.link else "")
    print(f"LED board emulator: {count} LEDs on {where}", flush=True)
    print(f"try: highway-referee led demo --port {args.link or emu.path} --protocol native", flush=True)
    deadline = time.monotonic() + args.duration if args.duration else None
    shown = -1
    try:
        while deadline is None or time.monotonic() < deadline:
            time.sleep(0.1)
            if view == "none" or emu.frames_shown == shown:
                continue
            shown = emu.frames_shown
            pixels = emu.pixels()
            if view == "ansi":
                title = f"LED board emulator on {where}  (Ctrl-C quits)"
                print(f"{HOME_CLEAR}{title}\n{render_ansi(pixels, layout)}", flush=True)
            else:
                print(f"frame {shown}: {render_text(pixels)}", flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        emu.unplug()
    if view != "none":
        print(f"final: {render_text(emu.pixels())}")
    print(f"bytes received {emu.bytes_in}, frames {emu.board.parser.frames}, checksum errors "
          f"{emu.board.parser.crc_errors}, dropped bytes {emu.board.parser.dropped}")
    return 0


def _emulate_setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("--count", type=_positive_int,
                   help="LEDs on the emulated strip (default: the layout's, or 24)")
    p.add_argument("--layout", help="layout file or game name: draw the LEDs as the board")
    p.add_argument("--link", help="also make this symlink to the pty (a stable name to pass as --port)")
    p.add_argument("--baud", type=_positive_int, help="pace reading to this UART speed (default: pty speed)")
    p.add_argument("--no-reset", action="store_true",
                   help="do not reset and greet when a host opens the port")
    p.add_argument("--view", choices=("ansi", "text", "none"),
                   help="ansi: coloured blocks, refreshed; text: one line of hex colours per change")
    p.add_argument("--duration", type=_seconds, help="stop after this many seconds (default: until Ctrl-C)")


# -- led demo -------------------------------------------------------------------------------------------
def _demo(args: argparse.Namespace) -> int:
    try:
        layout = find_layout(args.layout)
    except LayoutError as exc:
        raise CliError(str(exc)) from None
    greet = 0.0 if args.no_greeting else args.greeting_timeout
    out = LedOutput(layout, args.port, args.protocol, baud=args.baud, greeting_timeout=greet, reconnect_s=0.5)
    # open once up front so a wrong port fails clearly instead of being retried in the background
    probe = SerialTransport(args.port, args.baud)
    try:
        probe.open()
    except LedPortError as exc:
        raise CliError(str(exc), 3) from None
    probe.close()
    bus = ev.EventBus()
    out.attach(bus).start()
    game, cells = layout.game, list(layout.cells)
    step = args.step
    script: list[tuple[str, dict[str, object]]] = [
        (ev.MATCH_START, {}), (ev.CAMERA, {"status": "ok"}),
        (ev.TURN, {"player": 0, "players": ["A", "B"]}),
        (ev.VERDICT, {"verdict": {"legal": True, "rule": "demo", "reason": "legal", "consequence": "none"},
                      "cells": cells[:1], "player": 0}),
        (ev.TURN, {"player": 1, "players": ["A", "B"]}),
        (ev.VERDICT, {"verdict": {"legal": False, "rule": "demo", "reason": "occupied",
                                  "consequence": "must_correct"}, "cells": cells[:1], "player": 1}),
        (ev.VERDICT, {"verdict": {"legal": True, "rule": "demo", "reason": "legal", "consequence": "none"},
                      "cells": cells[1:2], "player": 1}),
        (ev.MISMATCH, {"message": "piece moved", "cells": cells[2:3]}),
        (ev.MISMATCH, {"message": "", "cells": []}),
        (ev.CAMERA, {"status": "lost"}), (ev.CAMERA, {"status": "ok"}),
        (ev.MATCH_END, {"outcome": {"winners": [0], "draw": False, "reason": "demo"}}),
    ]
    try:
        for kind, data in script:
            bus.publish(kind, "demo", game, **data)
            print(f"{kind} {json.dumps(data)}", flush=True)
            time.sleep(step)
        bus.drain()
        out.wait_idle(3.0)
    finally:
        out.stop()
        bus.close()
    s = out.stats
    print(f"frames written {s.frames_sent}, dropped {s.dropped}, connects {s.connects}, "
          f"disconnects {s.disconnects}" + (f", last error: {s.last_error}" if s.last_error else ""))
    return 0 if s.frames_sent else 3


def _demo_setup(p: argparse.ArgumentParser) -> None:
    _connection_args(p)
    p.add_argument("--layout", default="highway-grid", help="layout file or game name (default highway-grid)")
    p.add_argument("--step", type=_seconds, default=1.5, metavar="S", help="seconds between events")


# -- led layout -------------------------------------------------------------------------------------------
def _layout(args: argparse.Namespace) -> int:
    try:
        if args.rows_file:
            try:
                text = jsontext.read_text(args.rows_file)
            except OSError as exc:
                raise CliError(f"cannot read {args.rows_file}: {exc.strerror or exc}") from None
            except json.JSONDecodeError as exc:
                raise CliError(f"{args.rows_file}: {exc.msg}") from None
            rows = [line.replace(",", " ").split() for line in text.splitlines()]
            rows = [r for r in rows if r and not r[0].startswith("#")]
        elif args.board_json:
            rows = rows_from_board_file(args.board_json)
        elif args.cells:
            rows = rows_from_cells([c.strip() for c in args.cells.split(",") if c.strip()], args.width or 0)
        else:
            raise CliError("give the board's cells: --rows-file FILE, --board-json FILE, "
                           "or --cells a1,b1,... --width N")
        layout = serpentine_layout(args.game, rows, args.seats, serpentine=not args.straight)
    except LayoutError as exc:
        raise CliError(str(exc)) from None
    text = json.dumps(layout.to_json(), indent=2) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"wrote {args.output}: {layout.led_count} LEDs ({len(layout.cells)} cells, "
              f"{len(layout.seats)} seats, {len(layout.status)} status lights)")
    else:
        sys.stdout.write(text)
    return 0


def _layout_setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", required=True, help="the game the layout is for (its cell ids)")
    p.add_argument("--rows-file",
                   help="text file: one board row per line, cell ids separated by spaces or commas")
    p.add_argument("--board-json", help="board file with a \"cells\" list of {id, x, y}: rows found by y "
                   "(e.g. engine/dice_road/boards/default.json)")
    p.add_argument("--cells", help="cell ids row after row, comma-separated (with --width)")
    p.add_argument("--width", type=_positive_int, help="cells per row for --cells")
    p.add_argument("--seats", type=int, default=2, help="seat LEDs after the board (default 2)")
    p.add_argument("--straight", action="store_true", help="every row runs left to right (not serpentine)")
    p.add_argument("-o", "--output", help="write here instead of printing")


def register(cli: CommandTree) -> None:
    cli.group(("led",), help="the LED board: ports, test, emulator, demo, layouts")
    cli.add(("led", "list"), lambda p: p.add_argument("--json", action="store_true"), _list,
            help="list serial ports with their USB ids")
    cli.add(("led", "test"), _test_setup, _test, help="walk the LEDs of a connected board one by one")
    cli.add(("led", "emulate"), _emulate_setup, _emulate,
            help="run the LED board emulator on a pseudo-terminal and show its LEDs")
    cli.add(("led", "demo"), _demo_setup, _demo, help="play a short sequence of referee events on a board")
    cli.add(("led", "layout"), _layout_setup, _layout,
            help="generate a layout for a serpentine strip from the board's cell ids")
