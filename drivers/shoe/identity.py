"""Which device is on the shoe's line: its USB identity, from pyserial's `list_ports`.

A table may pin its shoe (`UsbPin`: vendor id, product id, serial number). The reader checks
the pin each time it opens the line (`SerialShoe(verify=...)`), so a device swapped in on a
reconnect is caught too: any other device is a `WRONG_DEVICE` fault and is never read, so it can
never be a source of cards. The port is found by the line's path with symbolic links resolved
(a `/dev/serial/by-id/...` link names the same port as `/dev/ttyUSB0`). A line that is no local
USB port (a pty, `socket://`, `rfc2217://`) has no USB identity: with a pin it is refused.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from serial.tools import list_ports
from serial.tools.list_ports_common import ListPortInfo


@dataclass(frozen=True, slots=True)
class UsbPin:
    """The USB identity a shoe must have; a None field is not checked."""

    vendor: int | None = None
    product: int | None = None
    serial: str | None = None

    def describe(self) -> str:
        """The pin as `vvvv:pppp serial S` (`*` for a field not pinned)."""
        vendor = f"{self.vendor:04x}" if self.vendor is not None else "*"
        product = f"{self.product:04x}" if self.product is not None else "*"
        return f"{vendor}:{product} serial {self.serial if self.serial is not None else '*'}"


@dataclass(frozen=True, slots=True)
class PortIdentity:
    """A serial port and what it says of itself (None where it says nothing)."""

    device: str
    vid: int | None
    pid: int | None
    serial_number: str | None
    manufacturer: str | None
    product: str | None
    description: str

    @classmethod
    def of(cls, port: ListPortInfo) -> PortIdentity:
        """The identity pyserial found for `port`."""
        return cls(
            port.device,
            port.vid,
            port.pid,
            port.serial_number,
            port.manufacturer,
            port.product,
            port.description,
        )

    def describe(self) -> str:
        """One line: device, `vvvv:pppp`, serial number, maker and product."""
        if self.vid is None or self.pid is None:
            return f"{self.device}: no USB identity ({self.description})"
        made = " ".join(p for p in (self.manufacturer, self.product) if p) or self.description
        return (
            f"{self.device}: USB {self.vid:04x}:{self.pid:04x} serial "
            f"{self.serial_number or '-'} ({made})"
        )


def ports(found: Iterable[ListPortInfo] | None = None) -> list[PortIdentity]:
    """Every serial port this machine has, by device path (`found` overrides the listing)."""
    listed = list_ports.comports() if found is None else found
    return sorted((PortIdentity.of(p) for p in listed), key=lambda p: p.device)


def port_of(url: str, found: Iterable[PortIdentity]) -> PortIdentity | None:
    """The port behind the line `url` (a device path or a link to one), or None."""
    if "://" in url:
        return None
    target = os.path.realpath(url)
    return next((p for p in found if os.path.realpath(p.device) == target), None)


def pin_problem(pin: UsbPin, url: str, found: Iterable[PortIdentity]) -> str | None:
    """Why the device at `url` is not the pinned shoe, in one line; None when it is."""
    port = port_of(url, found)
    if port is None or port.vid is None:
        return f"{url} is no USB serial port, and the shoe is pinned to USB {pin.describe()}"
    wrong = [
        f"{name} {got} (pinned {want})"
        for name, got, want in (
            ("vendor", f"{port.vid:04x}", None if pin.vendor is None else f"{pin.vendor:04x}"),
            ("product", f"{port.pid:04x}", None if pin.product is None else f"{pin.product:04x}"),
            ("serial", port.serial_number, pin.serial),
        )
        if want is not None and got != want
    ]
    if wrong:
        return f"{url} is not the pinned shoe: " + ", ".join(wrong)
    return None


def usb_verifier(
    pin: UsbPin, listing: Callable[[], list[PortIdentity]] = ports
) -> Callable[[str], str | None]:
    """A `SerialShoe(verify=...)` check: the line's device must be the pinned one."""
    return lambda url: pin_problem(pin, url, listing())
