"""Serial port discovery: list the ports with their USB ids, and resolve what the user typed
(a device path, or a USB VID:PID such as 2e8a:0005 that survives the port being renumbered)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from serial.tools import list_ports as _list_ports

# USB ids of boards people are likely to plug in; only used to label `led list`.
KNOWN_USB: dict[tuple[int, int], str] = {
    (0x2E8A, 0x0005): "Raspberry Pi Pico running MicroPython (this project's firmware)",
    (0x2341, 0x0043): "Arduino Uno (Adalight sketch)",
    (0x2341, 0x0001): "Arduino Uno (Adalight sketch)",
    (0x1A86, 0x7523): "CH340 USB-serial (Arduino clone or ESP32 board: Adalight / WLED)",
    (0x10C4, 0xEA60): "CP210x USB-serial (ESP32 board: WLED)",
    (0x0403, 0x6001): "FTDI USB-serial",
    (0x303A, 0x1001): "ESP32-S3/C3 native USB (WLED or MicroPython)",
}
_USB_ID = re.compile(r"^(?:usb:)?([0-9a-fA-F]{4}):([0-9a-fA-F]{4})$")


class PortNotFound(LookupError):
    pass


@dataclass(frozen=True)
class PortInfo:
    device: str
    vid: int | None = None
    pid: int | None = None
    description: str = ""
    serial_number: str | None = None

    @property
    def usb_id(self) -> str:
        return f"{self.vid:04x}:{self.pid:04x}" if self.vid is not None and self.pid is not None else ""

    @property
    def board(self) -> str:
        if self.vid is None or self.pid is None:
            return ""
        return KNOWN_USB.get((self.vid, self.pid), "")


def list_ports() -> list[PortInfo]:
    ports = [PortInfo(p.device, p.vid, p.pid, p.description or "", p.serial_number)
             for p in _list_ports.comports()]
    return sorted(ports, key=lambda p: p.device)


def parse_usb_id(spec: str) -> tuple[int, int] | None:
    m = _USB_ID.match(spec.strip())
    return (int(m.group(1), 16), int(m.group(2), 16)) if m else None


def resolve_port(spec: str) -> str:
    """A device path for `spec`: a USB id picks the first port with that VID:PID; anything else is
    taken as a path and checked when it is opened."""
    usb = parse_usb_id(spec)
    if usb is None:
        return spec
    ports = list_ports()
    for p in ports:
        if (p.vid, p.pid) == usb:
            return p.device
    seen = ", ".join(f"{p.device} ({p.usb_id or 'no USB id'})" for p in ports) or "none"
    raise PortNotFound(f"no serial port with USB id {spec} is connected (ports now: {seen})")
