"""`SerialShoe`: a shoe's serial line read by a thread of its own, on any pyserial URL.

The reader thread feeds the host protocol and puts every reading and error on the reader's
queue (`drivers.shoe.line_reader` holds what it shares with the loop-watched reader). It serves
every URL, including those with no file descriptor an event loop could watch: pyserial's RFC 2217
client reads its socket in a thread of its own, `loop://` has no descriptor at all.
"""

from __future__ import annotations

import threading

import serial
import tenacity

from drivers.shoe.line_reader import BACKOFF_FIRST, BACKOFF_MAX, ShoeLineReader

READ_TIMEOUT = 0.02
"""Longest a read waits, in seconds; it bounds how late silence is noticed and close() returns."""


class SerialShoe(ShoeLineReader):
    """A shoe on a serial line (any pyserial URL), read by its own thread.

    Use as a context manager, or call `close()` (idempotent). Items arrive on `deliveries`
    (a `DeliveryQueue`, given or created) and through `read(timeout)`; the constructor
    takes `ShoeLineReader`'s arguments and starts the thread.
    """

    read_timeout = READ_TIMEOUT
    _thread: threading.Thread

    def _start(self) -> None:
        self._thread = threading.Thread(
            target=self._run, name=f"shoe-reader:{self.url}", daemon=True
        )
        self._thread.start()

    def __enter__(self) -> SerialShoe:
        return self

    def close(self) -> None:
        """Stop the reader and close the line; calling it again does nothing."""
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                if self._port is None:
                    self._open_with_backoff()
                    continue
                try:
                    self._pump(self._port)
                except (serial.SerialException, OSError) as err:
                    self._lost(f"line lost: {err}")
                except Exception as err:  # a bug must reach the runtime, not die in the thread
                    self._failed(err)
        finally:
            self._close_port()

    def _open_with_backoff(self) -> bool:
        """Open the line, retrying with doubling waits until it opens or the reader stops."""
        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_result(lambda opened: not opened and not self._stop.is_set()),
            wait=tenacity.wait_exponential(multiplier=BACKOFF_FIRST, max=BACKOFF_MAX),
            # A stop request cuts a wait short: close() never waits out a backoff.
            sleep=self._pause,
        )
        opened: bool = retrying(self._connect)
        return opened

    def _pause(self, seconds: float) -> None:
        self._stop.wait(seconds)

    def _pump(self, port: serial.Serial) -> None:
        self._received(port, port.read(port.in_waiting or 1))
