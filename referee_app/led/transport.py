"""The serial line to the LED board, behind a small interface (as OctoPrint keeps its transport)
so the output can reopen it after an unplug and tests can substitute it. Open errors become
LedPortError with a message that says what to do."""

from __future__ import annotations

import errno
import time
from typing import Protocol

import serial

from referee_app.led.ports import PortNotFound, resolve_port


class LedPortError(Exception):
    """The port cannot be used (missing, busy, no permission, board silent): a user-facing message."""


class Transport(Protocol):
    path: str

    def write(self, data: bytes) -> None: ...

    def read(self, max_bytes: int, timeout: float) -> bytes: ...

    def close(self) -> None: ...


def _explain(spec: str, exc: serial.SerialException) -> str:
    code = exc.errno
    text = str(exc)
    if code == errno.ENOENT or "FileNotFoundError" in text:
        return (f"serial port {spec} does not exist: is the board plugged in? "
                "`highway-referee led list` shows the ports")
    if code in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EBUSY) or "Access is denied" in text:
        return (f"serial port {spec} is busy: another program (a serial monitor, another referee, "
                "ModemManager) has it open")
    if code == errno.EACCES:
        return (f"no permission to open {spec}: on Linux add yourself to the 'dialout' group "
                "(sudo usermod -aG dialout $USER) and log in again")
    return f"cannot open serial port {spec}: {text}"


class SerialTransport:
    """A pyserial port opened exclusively (a second referee on the same board fails clearly)."""

    def __init__(self, spec: str, baud: int = 115200, write_timeout: float = 2.0) -> None:
        self.spec = spec
        self.baud = baud
        self.write_timeout = write_timeout
        self.path = spec
        self._ser: serial.Serial | None = None

    def open(self) -> SerialTransport:
        try:
            self.path = resolve_port(self.spec)
        except PortNotFound as exc:
            raise LedPortError(str(exc)) from None
        try:
            self._ser = serial.Serial(self.path, self.baud, timeout=0.05, write_timeout=self.write_timeout,
                                      exclusive=True)
        except serial.SerialException as exc:
            raise LedPortError(_explain(self.path, exc)) from None
        except (OSError, ValueError) as exc:
            raise LedPortError(f"cannot open serial port {self.path}: {exc}") from None
        return self

    @property
    def is_open(self) -> bool:
        return self._ser is not None and self._ser.is_open

    def write(self, data: bytes) -> None:
        if self._ser is None:
            raise serial.SerialException(f"{self.path} is not open")
        self._ser.write(data)

    def read(self, max_bytes: int, timeout: float) -> bytes:
        """Whatever arrives within `timeout` (at least one byte, or b"")."""
        if self._ser is None:
            raise serial.SerialException(f"{self.path} is not open")
        deadline = time.monotonic() + timeout
        while True:
            waiting = self._ser.in_waiting
            if waiting:
                return self._ser.read(min(waiting, max_bytes))
            if time.monotonic() >= deadline:
                return b""
            time.sleep(0.005)

    def close(self) -> None:
        if self._ser is not None:
            try:
                self._ser.close()
            except (OSError, serial.SerialException):
                pass
            self._ser = None
