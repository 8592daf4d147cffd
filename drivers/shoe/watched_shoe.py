"""`WatchedSerialShoe`: a shoe's line read inside an asyncio loop, which watches its descriptor.

A `SerialShoe` reads in a thread of its own and hands every delivery to the loop that applies it:
the loop thread then has to be woken from `epoll` by another thread and win the GIL back, about
0.15 ms of a card's way on the bench against 0.08 for a thread woken through a queue. Where the
line is a file descriptor (a device path, a pty, `socket://`), the loop can watch it itself
(`loop.add_reader`): the bytes are read, decoded and delivered in the loop's thread, and the
consumer's `wake()` runs right there, with no hand-over.

What does not belong on the loop stays off it: opening the line (a `socket://` connect to a
device server that does not answer takes seconds) runs in a one-thread pool, one attempt at a
time, and its result comes back to the loop. The protocol keeps its time (retransmissions,
silence, heartbeats) through a timer every `POLL_SECONDS`, as the threaded reader's read timeout
does. Everything else (faults, backoff, acknowledgements, health) is `ShoeLineReader`'s, shared
with the threaded reader, so both behave the same on a line.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

import serial

from drivers.shoe.host import ProtocolOptions
from drivers.shoe.line_reader import BACKOFF_FIRST, BACKOFF_MAX, ShoeLineReader, Tap
from drivers.shoe.readings import DeliveryQueue

log = logging.getLogger(__name__)

POLL_SECONDS = 0.02
"""How often the protocol is given the time when no byte arrives (the threaded reader's read
timeout): it bounds how late a silent shoe or a frame due for retransmission is noticed."""
READ_CHUNK = 4096
"""Most bytes taken from the line per wake-up: all a shoe sends between two, in one read."""
CLOSE_WAIT = 5.0
"""Seconds `close()` from another thread waits for the loop to let go of the line."""


class WatchedSerialShoe(ShoeLineReader):
    """A shoe on a line the asyncio `loop` watches (a device path, a pty or `socket://`).

    Deliveries go on `deliveries` as with `SerialShoe`; after each read (or fault, or reopening)
    that queued any, `wake()` is called in the loop's thread, outside the reader's lock (it may
    `commit` or `rewind`). Build it from any thread; `close()` is idempotent and may be called
    from any thread (from another one, while the loop runs, it waits for the loop to let go of
    the line). The other arguments are `ShoeLineReader`'s.
    """

    read_timeout = 0.0  # the loop says when bytes are there: a read never waits

    def __init__(
        self,
        url: str,
        protocol: str = "framed",
        *,
        loop: asyncio.AbstractEventLoop,
        wake: Callable[[], None],
        options: ProtocolOptions | None = None,
        deliveries: DeliveryQueue | None = None,
        baudrate: int = 9600,
        trace: bool = False,
        clock: Callable[[], float] = time.monotonic,
        tap: Tap | None = None,
        verify: Callable[[str], str | None] | None = None,
    ) -> None:
        self._loop = loop
        self._wake = wake
        self._opener = ThreadPoolExecutor(max_workers=1, thread_name_prefix="shoe-open")
        self._watched: int | None = None
        self._timer: asyncio.Handle | None = None
        self._failures = 0
        self._let_go = threading.Event()
        super().__init__(
            url,
            protocol,
            options=options,
            deliveries=deliveries,
            baudrate=baudrate,
            trace=trace,
            clock=clock,
            tap=tap,
            verify=verify,
        )

    def __enter__(self) -> WatchedSerialShoe:
        return self

    def _start(self) -> None:
        self._loop.call_soon_threadsafe(self._open)

    def close(self) -> None:
        """Stop watching the line and close it; calling it again does nothing."""
        first = not self._stop.is_set()
        self._stop.set()
        if first:
            if self._in_loop() or not self._loop.is_running():
                self._let_go_now()
            else:
                self._loop.call_soon_threadsafe(self._let_go_now)
                if not self._let_go.wait(CLOSE_WAIT):
                    log.warning("%s: the loop did not let go of the line in time", self.url)
        # An opening in progress ends on its own (its line is closed, see `_open_off_loop`).
        self._opener.shutdown(wait=True)
        self._close_port()

    def _in_loop(self) -> bool:
        try:
            return asyncio.get_running_loop() is self._loop
        except RuntimeError:
            return False

    # -- in the loop's thread ---------------------------------------------------------------------

    def _open(self) -> None:
        self._timer = None
        if self.closed:
            return
        opening = self._opener.submit(self._open_off_loop)
        opening.add_done_callback(self._opened_threadsafe)

    def _opened_threadsafe(self, opening: Future[bool]) -> None:
        with contextlib.suppress(RuntimeError):  # the loop closed: close() closes the line
            self._loop.call_soon_threadsafe(self._opened, opening)

    def _opened(self, opening: Future[bool]) -> None:
        port = self._port
        try:
            opened = opening.result()
        except Exception as err:  # a bug (a device check that raised) must reach the runtime
            opened = False
            self._failed(err)
        if self.closed:
            self._close_port()
        elif opened and port is not None:
            self._failures = 0
            self._watched = port.fileno()
            self._loop.add_reader(self._watched, self._readable)
            self._timer = self._loop.call_later(POLL_SECONDS, self._tick)
        else:
            # Doubling waits, as the threaded reader's (tenacity's wait_exponential there).
            self._failures += 1
            wait = min(BACKOFF_MAX, BACKOFF_FIRST * 2 ** (self._failures - 1))
            self._timer = self._loop.call_later(wait, self._open)
        self._wake_if_delivered()

    def _readable(self, read: bool = True) -> None:
        """The line is readable (the loop's callback), or `read` False: the poll's tick."""
        # One method for both (a `_pump` behind them was one call more on every card's read).
        port = self._port
        if port is None:
            return
        try:
            self._received(port, _read_ready(port) if read else b"")
        except (serial.SerialException, OSError) as err:
            self._drop(f"line lost: {err}")
        except Exception as err:  # a bug must reach the runtime, not die in a loop callback
            self._unwatch()
            self._failed(err)
            self._reopen()
        # Outside every lock and handler: what the consumer does with them is its own affair.
        if not self.deliveries.empty():  # `_wake_if_delivered`, inline: every card's read
            self._wake()

    def _tick(self) -> None:
        self._timer = None
        if self._port is not None:
            self._timer = self._loop.call_later(POLL_SECONDS, self._tick)
            self._readable(read=False)

    def _drop(self, detail: str) -> None:
        self._unwatch()
        self._lost(detail)
        self._reopen()

    def _reopen(self) -> None:
        # The threaded reader tries again at once after a loss, then backs off.
        if not self.closed:
            self._timer = self._loop.call_soon(self._open)

    def _unwatch(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._watched is not None:
            # A descriptor already closed (the loop's selector forgets it) is no error here.
            with contextlib.suppress(OSError, ValueError, KeyError):
                self._loop.remove_reader(self._watched)
            self._watched = None

    def _let_go_now(self) -> None:
        with contextlib.suppress(RuntimeError):  # a closed loop watches nothing any more
            self._unwatch()
        self._close_port()
        self._let_go.set()

    def _wake_if_delivered(self) -> None:
        if not self.deliveries.empty():
            self._wake()

    # -- in the opening thread ---------------------------------------------------------------------

    def _open_off_loop(self) -> bool:
        if self.closed:
            return False
        opened = self._connect()
        if opened and self.closed:
            # close() ran meanwhile and may have let go already: this line is nobody's.
            self._close_port()
            return False
        return opened


def _read_ready(port: serial.Serial) -> bytes:
    """What the line holds now, read once the loop found its descriptor readable.

    A device path or pty (pyserial's POSIX `Serial`, its descriptor non-blocking) is read with
    one `os.read`: pyserial's `read` would `select` it again first and make five Python calls
    of its own, on every card's way. Raises as pyserial's `read` does for a line that reports
    readiness but gives nothing (`SerialException`: the device went away) or fails (`OSError`);
    a wake-up with nothing there gives nothing. Any other line (`socket://`) is pyserial's.
    """
    if type(port) is not serial.Serial or port.fd is None:
        return bytes(port.read(READ_CHUNK))
    try:
        data = os.read(port.fd, READ_CHUNK)
    except (BlockingIOError, InterruptedError):
        return b""
    if not data:
        raise serial.SerialException(
            "device reports readiness to read but returned no data "
            "(device disconnected or multiple access on port?)"
        )
    return data
