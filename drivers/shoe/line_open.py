"""Opening a shoe's line through pyserial without discarding the bytes already on it.

Every pyserial backend flushes its input as the last step of `open()` (`tcflush` on a device,
a drain of the socket for `socket://`, a purge request to an RFC 2217 server). On a barcode
shoe, which never retransmits, a card that arrives between the connection and that flush is lost
without a trace: a `socket://` host connects, the device server starts sending, and the flush
throws the first lines away. Whatever the line holds once we have connected is the shoe's, so it
is delivered; a framed shoe's stale frames are judged by its sequence numbers as usual.
"""

from __future__ import annotations

import contextlib
from typing import Any

import serial

_FLUSHES = ("reset_input_buffer", "_reset_input_buffer")
"""The public flush (socket, RFC 2217, loop) and the one POSIX devices call from `open()`."""


def open_line(url: str, **settings: Any) -> serial.Serial:
    """Open `url` (any pyserial URL) with `settings`, keeping the input already received.

    Raises what `serial.serial_for_url` raises: `SerialException`, `OSError` or `ValueError`.
    Only `open()` skips the flush; a later `reset_input_buffer()` works as pyserial documents.
    """
    port: serial.Serial = serial.serial_for_url(url, do_not_open=True, **settings)
    skipped = [name for name in _FLUSHES if hasattr(port, name)]
    for name in skipped:
        setattr(port, name, _keep)
    try:
        port.open()
    finally:
        for name in skipped:
            with contextlib.suppress(AttributeError):
                delattr(port, name)
    return port


def _keep() -> None:
    """Stand in for a flush during `open()`: nothing is discarded."""
