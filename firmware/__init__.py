"""The LED board's program. `ledproto` is the protocol logic the board runs (MicroPython) and the
host emulator imports unchanged; `main` is the board's entry point; `emulator` serves the same
logic on a pseudo-terminal. See docs/protocols/led.md and docs/hardware/led-board.md."""
