"""MicroPython entry point for the LED board (Raspberry Pi Pico / RP2040; runs on an ESP32 too).

Copy this file and ledproto.py to the board (see docs/hardware/led-board.md); MicroPython runs
main.py at boot. All protocol logic is in ledproto.Board, which the host emulator runs unchanged;
this file only moves bytes between USB serial and the strip. Not importable on a PC (it needs the
`machine` and `neopixel` modules of MicroPython).
"""

import select
import sys
import time

import ledproto
import machine
import micropython
import neopixel

LED_PIN = 0  # GP0 on a Pico (pin 1); on an ESP32 use e.g. 16
LED_COUNT = 24  # LEDs on the strip: the bundled highway-grid layout uses 20, more is fine
READ_CHUNK = 512  # bytes read per loop before the strip is refreshed
SAFE_PIN = 15  # GP15 (pin 20) tied to GND at boot: do not start, keep the REPL usable (Ctrl-C is off)


class Clock:
    """Milliseconds since boot as an unbounded int (ticks_ms wraps after ~12 days)."""

    def __init__(self) -> None:
        self.last = time.ticks_ms()
        self.now = 0

    def __call__(self) -> int:
        t = time.ticks_ms()
        self.now += time.ticks_diff(t, self.last)
        self.last = t
        return self.now


def run() -> None:
    micropython.kbd_intr(-1)  # frame bytes may contain 0x03: do not let them raise KeyboardInterrupt
    strip = neopixel.NeoPixel(machine.Pin(LED_PIN), LED_COUNT)
    clock = Clock()
    board = ledproto.Board(LED_COUNT, clock())
    stdin = sys.stdin.buffer
    out = sys.stdout.buffer
    poll = select.poll()
    poll.register(sys.stdin, select.POLLIN)
    out.write(board.boot(clock()))
    chunk = bytearray()
    while True:
        while len(chunk) < READ_CHUNK and poll.poll(0):
            chunk.extend(stdin.read(1))
        now = clock()
        if chunk:
            reply = board.receive(chunk, now)
            chunk = bytearray()
        else:
            reply = board.tick(now)
            poll.poll(2)  # nothing to do: wait briefly for the next byte
        if reply:
            out.write(reply)
        pixels = board.frame(clock())
        if pixels is not None:
            for i, c in enumerate(pixels):
                strip[i] = c
            strip.write()


if machine.Pin(SAFE_PIN, machine.Pin.IN, machine.Pin.PULL_UP).value():
    run()
else:
    print("LED firmware: safe mode (GP15 held low), not started")
