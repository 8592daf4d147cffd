"""`ShoeLineReader`: what every reader of a shoe's serial line shares, however it is woken.

A reader opens the line only through pyserial's `serial_for_url`, so a device path,
`rfc2217://host:port` (add `?ign_set_control` for a pty-backed ser2net port) and
`socket://host:port` are interchangeable. It feeds the chosen host protocol with the bytes it
reads, writes the protocol's acknowledgements back, and puts every reading and every error on
one queue: nothing is lost. When the line vanishes (a read or write fails, the server closes) it
delivers `ShoeFault(DISCONNECTED)` at once, then reopens the line with doubling backoff and
delivers `ShoeRecovered` when it is back.

Two readers share this: `SerialShoe` (a thread of its own, for any URL) and
`WatchedSerialShoe` (the asyncio loop watches the line's file descriptor: no thread hand-over
per card); `drivers.shoe.readers.open_reader` chooses between them once, by the URL.

A framed shoe keeps each event frame until it is acknowledged. With the protocol option
`hold_acks` the reader does not acknowledge a frame when it arrives but when its consumer calls
`commit(delivery)`, after making the reading durable: a reading the consumer never recorded
comes again (see `drivers.shoe.host`).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from queue import SimpleQueue
from types import TracebackType
from typing import Literal

import serial

from drivers.errors import DriverConfigurationError, DriverError
from drivers.shoe.host import HostItem, HostProtocol, ProtocolOptions, host_protocol, receipt_of
from drivers.shoe.line_open import open_line
from drivers.shoe.pyserial_threads import quiet_rfc2217_reader_threads
from drivers.shoe.readings import (
    Delivery,
    DeliveryQueue,
    FaultReason,
    ShoeFault,
    ShoeHealth,
    ShoeReading,
    ShoeRecovered,
)

log = logging.getLogger(__name__)

BACKOFF_FIRST = 0.05
BACKOFF_MAX = 1.0
"""Reconnection waits double from `BACKOFF_FIRST` to `BACKOFF_MAX` seconds: a replugged shoe is
found within a second, and a missing one costs a few opens per second."""

Tap = Callable[[Literal["rx", "tx"], bytes, float], None]
"""Called with every chunk read from (`"rx"`) and written to (`"tx"`) the line and its time."""


class ShoeLineReader:
    """The line, the protocol and the queue of one shoe reader (see the module docstring).

    A subclass decides when the line is read and reopened: it starts in `_start()`, calls
    `_connect()` to open the line, `_received(port, data)` with what it read (or nothing, to
    let the protocol keep its time) and `_lost(detail)` when the line failed, and implements
    `close()`. Use as a context
    manager, or call `close()` (idempotent). Items arrive on `deliveries` (a
    `DeliveryQueue`, given or created) and through `read(timeout)`.
    """

    read_timeout: float = 0.02
    """The line's pyserial read timeout in seconds (a subclass's choice)."""

    def __init__(
        self,
        url: str,
        protocol: str = "framed",
        *,
        options: ProtocolOptions | None = None,
        deliveries: DeliveryQueue | None = None,
        baudrate: int = 9600,
        trace: bool = False,
        clock: Callable[[], float] = time.monotonic,
        tap: Tap | None = None,
        verify: Callable[[str], str | None] | None = None,
    ) -> None:
        """Check `url` and `protocol` and start reading (the subclass's `_start()`).

        `verify(url)`, if given, runs each time the line opens and names what is wrong with the
        device on it (None: it is the right one); a wrong device is closed unread, reported as a
        `WRONG_DEVICE` fault once, and tried again with the reconnection backoff.

        Raises `DriverConfigurationError` for an unknown protocol or a malformed URL; a device
        that is absent is not an error here: it is reported as a fault and retried. `tap`, if
        given, is called with every chunk read and written and its clock time, in the context
        that reads the line (a capture: `drivers.shoe.capture`).
        """
        self.url = url
        self.protocol: HostProtocol = host_protocol(protocol, options)
        self.deliveries: DeliveryQueue = deliveries if deliveries is not None else SimpleQueue()
        self.trace = trace
        self._tap = tap
        self._baudrate = baudrate
        self._clock = clock
        self._verify = verify
        self._wrong: str | None = None
        try:
            serial.serial_for_url(url, do_not_open=True, baudrate=baudrate)
        except (ValueError, serial.SerialException) as err:
            raise DriverConfigurationError(f"bad shoe URL {url!r}: {err}") from err
        self._port: serial.Serial | None = None
        # The protocol's state and the port are shared with `commit` (the consumer's context).
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._faulted = False
        self._ever_connected = False
        self.reconnects = 0
        self.faults = 0
        self._log = log.getChild(url.replace(".", "_"))
        self._start()

    def _start(self) -> None:
        """Start reading the line (the subclass's way: its thread, or the loop watching it)."""
        raise NotImplementedError

    def __enter__(self) -> ShoeLineReader:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Stop reading and close the line; calling it again does nothing."""
        raise NotImplementedError

    @property
    def closed(self) -> bool:
        """Whether `close()` was called."""
        return self._stop.is_set()

    def read(self, timeout: float | None = None) -> Delivery | None:
        """Return the next delivery, or None when none arrives within `timeout` seconds."""
        try:
            return self.deliveries.get(timeout=timeout)
        except queue.Empty:
            return None

    def commit(self, delivery: Delivery) -> None:
        """`delivery`'s reading is durable: acknowledge its frame, if the shoe waits for that.

        Called from the consumer's thread. A line lost meanwhile drops the acknowledgement: the
        shoe resends the frame and the protocol takes it as the duplicate it is.
        """
        receipt = receipt_of(delivery.item)
        if receipt is None:
            return
        with self._lock:
            reply = self.protocol.commit(receipt)
            port = self._port
            if not reply or port is None:
                return
            try:
                port.write(reply)
            except (serial.SerialException, OSError) as err:
                self._log.debug("acknowledgement not sent (the line is going): %s", err)
                return
            if self._tap is not None:
                self._tap("tx", reply, self._clock())
        if self.trace:
            self._log.debug("tx %s", reply.hex(" "))

    def rewind(self) -> None:
        """The consumer could not put the deliveries since its last `commit` on record.

        A framed shoe still holds those frames and sends them again; they are delivered anew
        (see `FramedHost.rewind`). A barcode line cannot: its lines are gone.
        """
        with self._lock:
            self.protocol.rewind()

    def health(self) -> ShoeHealth:
        """Return a snapshot of the connection state and the protocol's counters."""
        with self._lock:
            counters = self.protocol.counters
            return ShoeHealth(
                connected=self._port is not None,
                url=self.url,
                protocol=self.protocol.name,
                last_heartbeat=counters.last_heartbeat,
                frames=counters.frames,
                crc_errors=counters.crc_errors,
                protocol_errors=counters.protocol_errors,
                retransmissions=counters.naks,
                duplicates=counters.duplicates,
                reconnects=self.reconnects,
                faults=self.faults,
                last_frames=tuple(counters.last_frames),
                damaged=tuple(sorted(counters.damaged.items())),
            )

    def _deliver(self, item: ShoeReading | DriverError | HostItem) -> None:
        if isinstance(item, ShoeFault):
            self.faults += 1
        self.deliveries.put(Delivery(item, self._clock(), datetime.now(UTC)))

    def _failed(self, err: Exception) -> None:
        """A bug while reading: it must reach the consumer, not die in the reader."""
        failure = DriverError(f"shoe reader failed: {err!r}")
        failure.__cause__ = err
        self._deliver(failure)
        self._lost(f"reader failed: {err!r}")

    def _connect(self) -> bool:
        """Open the line once (checking its device first); False: not open, a fault said why."""
        if self.url.startswith("rfc2217://"):
            quiet_rfc2217_reader_threads()
        # Checked before the line is opened: another device is never read at all.
        problem = self._verify(self.url) if self._verify is not None else None
        if problem is not None:
            if problem != self._wrong:
                self._wrong = problem
                self._faulted = True
                self._log.error("%s", problem)
                self._deliver(ShoeFault(FaultReason.WRONG_DEVICE, problem))
            return False
        self._wrong = None
        try:
            port = open_line(self.url, baudrate=self._baudrate, timeout=self.read_timeout)
        except (serial.SerialException, OSError, ValueError) as err:
            if not self._faulted:
                self._faulted = True
                self._deliver(ShoeFault(FaultReason.DISCONNECTED, f"cannot open line: {err}"))
            return False
        with self._lock:
            self._port = port
            self.protocol.line_opened(self._clock())
        if self._ever_connected:
            self.reconnects += 1
        self._ever_connected = True
        self._log.info("line open")
        if self._faulted:
            self._faulted = False
            self._deliver(ShoeRecovered("line open again"))
        return True

    def _received(self, port: serial.Serial, data: bytes) -> None:
        """Feed `data` read from `port` (maybe none) and let the protocol keep its time.

        Raises what writing the protocol's replies to `port` raises (`SerialException`,
        `OSError`): the line is lost.
        """
        now = self._clock()
        if data and self.trace:
            self._log.debug("rx %s", data.hex(" "))
        if data and self._tap is not None:
            self._tap("rx", data, now)
        # The protocol's state is shared with `commit` (the consumer's thread): one at a time,
        # and its replies written in the order it made them.
        # Readings go out before the replies are written: a card's delivery waits for nothing.
        with self._lock:
            items, reply = self.protocol.feed(data, now) if data else ([], b"")
            more, nudge = self.protocol.poll(now)
            for item in (*items, *more):
                self._deliver(item)
            out = reply + nudge
            if out:
                port.write(out)
                if self._tap is not None:
                    self._tap("tx", out, now)
        if out and self.trace:
            self._log.debug("tx %s", out.hex(" "))

    def _lost(self, detail: str) -> None:
        self._close_port()
        self._log.warning("%s", detail)
        if not self._faulted:
            self._faulted = True
            self._deliver(ShoeFault(FaultReason.DISCONNECTED, detail))

    def _close_port(self) -> None:
        with self._lock:
            port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except (serial.SerialException, OSError) as err:
                self._log.debug("closing a lost line failed: %s", err)
