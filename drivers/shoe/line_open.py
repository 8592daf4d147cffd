"""Opening a shoe's line through pyserial without discarding the bytes already on it.

pyserial's POSIX, `socket://`, `rfc2217://` and `loop://` backends flush their input as the last
step of `open()` (`tcflush` on a device, a drain of the socket, a purge request to the RFC 2217
server; the Windows backend purges inside its own open, which this does not reach). On a barcode
shoe, which never retransmits, a card that arrives between the connection and that flush is lost
without a trace: a `socket://` host connects, the device server starts sending, and the flush
throws the first lines away. Whatever the line holds once we have connected is the shoe's, so it
is delivered; a framed shoe's stale frames are judged by its sequence numbers as usual.

The cost: bytes a device server held from before the connection (some buffer while no host is
connected) arrive as if just read, and bytes a pty or device received before pyserial set its
line discipline arrive as that discipline left them (a CR turned LF, which the barcode decoder
takes as the same terminator; a framed shoe's CRC rejects anything else). A card lost in
silence is worse than a stale one the controller sees and can refuse.
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
