"""Choosing how a shoe's line is read, once, by its URL: watched by the loop, or by a thread.

A table applies every delivery in its asyncio loop. Where the line is a file descriptor (a device
path or pty, `socket://`), the loop watches it itself (`WatchedSerialShoe`): a card is read,
decoded and applied in the loop's thread with no hand-over. Every other pyserial URL is read by a
thread of its own (`SerialShoe`) whose deliveries wake the loop (`WakingQueue`): pyserial's RFC
2217 client reads its socket in its own thread, `loop://` has no descriptor, and a URL scheme
this does not know is safest there. `READERS` is the one list of URL schemes a loop watches.
"""

from __future__ import annotations

import asyncio
import logging
import os
import queue
from collections.abc import Callable

from drivers.shoe.host import ProtocolOptions
from drivers.shoe.line_reader import ShoeLineReader
from drivers.shoe.readings import Delivery
from drivers.shoe.serial_shoe import SerialShoe
from drivers.shoe.watched_shoe import WatchedSerialShoe

log = logging.getLogger(__name__)


class WakingQueue(queue.Queue[Delivery]):
    """A queue whose every `put` (from any thread) schedules `wake()` on an asyncio loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop, wake: Callable[[], None]) -> None:
        super().__init__()
        self._loop = loop
        self._wake = wake

    def put(self, item: Delivery, block: bool = True, timeout: float | None = None) -> None:
        """Queue `item` and wake the loop (a loop already closed is not woken)."""
        super().put(item, block, timeout)
        try:
            self._loop.call_soon_threadsafe(self._wake)
        except RuntimeError:
            log.debug("delivery after the loop closed stays queued")


Verify = Callable[[str], str | None]
"""Names what is wrong with the device at a URL (None: the right one); see `ShoeLineReader`."""
ReaderFactory = Callable[
    [
        str,
        str,
        asyncio.AbstractEventLoop,
        Callable[[], None],
        ProtocolOptions | None,
        int,
        Verify | None,
    ],
    ShoeLineReader,
]
"""Builds a reader from (url, protocol, loop, wake, options, baudrate, verify)."""


def threaded(
    url: str,
    protocol: str,
    loop: asyncio.AbstractEventLoop,
    wake: Callable[[], None],
    options: ProtocolOptions | None,
    baudrate: int,
    verify: Verify | None,
) -> ShoeLineReader:
    """A `SerialShoe` whose every delivery wakes `loop` to run `wake()`."""
    deliveries = WakingQueue(loop, wake)
    return SerialShoe(
        url, protocol, options=options, deliveries=deliveries, baudrate=baudrate, verify=verify
    )


def watched(
    url: str,
    protocol: str,
    loop: asyncio.AbstractEventLoop,
    wake: Callable[[], None],
    options: ProtocolOptions | None,
    baudrate: int,
    verify: Verify | None,
) -> ShoeLineReader:
    """A `WatchedSerialShoe` on `loop`, which runs `wake()` after each read that delivered."""
    return WatchedSerialShoe(
        url, protocol, loop=loop, wake=wake, options=options, baudrate=baudrate, verify=verify
    )


READERS: dict[str, ReaderFactory] = {"": watched, "socket": watched} if os.name == "posix" else {}
"""The pyserial URL schemes whose line a loop watches ("": a device path), by reader; any other
is read by a thread. Descriptors are watched on POSIX only (the loop's selector)."""


def scheme(url: str) -> str:
    """The pyserial URL scheme of `url` ("" for a device path)."""
    return url.split("://", 1)[0].lower() if "://" in url else ""


def open_reader(
    url: str,
    protocol: str,
    *,
    loop: asyncio.AbstractEventLoop | None = None,
    wake: Callable[[], None] = lambda: None,
    options: ProtocolOptions | None = None,
    baudrate: int = 9600,
    verify: Verify | None = None,
) -> ShoeLineReader:
    """Start reading the shoe at `url`; `wake()` runs in `loop`'s thread after deliveries.

    The deliveries are on the reader's `deliveries` queue; `wake()` may run once for several.
    Without a loop, only a thread can read: a `SerialShoe`, whose queue its owner reads (no
    `wake()`). Raises `DriverConfigurationError` for an unknown protocol or a malformed URL (see
    `ShoeLineReader`).
    """
    if loop is None:
        return SerialShoe(url, protocol, options=options, baudrate=baudrate, verify=verify)
    make = READERS.get(scheme(url), threaded)
    return make(url, protocol, loop, wake, options, baudrate, verify)
