"""`RouterService`: how a ROUTER served on one background thread stops and frees its sockets.

The replay service and the command channel share it, so both stop the same way: signal the
thread, join it, then close the socket, its authenticator and context, and release the endpoint.
"""

from __future__ import annotations

import threading

import zmq

from studio.bus.endpoints import ExclusiveBind, release
from studio.bus.security import KeyGuard
from studio.closing import Closing


class RouterService(Closing):
    """Base of a service whose `_run` loop serves `_sock` until `_stop` is set.

    Subclasses create every attribute below in `__init__` (calling `_teardown()` if binding
    fails), then call `_serve_in_background`; `close()` is idempotent.
    """

    _stop: threading.Event
    _thread: threading.Thread | None
    _ctx: zmq.Context[zmq.Socket[bytes]]
    _sock: zmq.Socket[bytes]
    _guard: KeyGuard | None
    _claims: list[ExclusiveBind]

    @property
    def endpoint(self) -> str:
        """The endpoint actually bound."""
        return self._sock.getsockopt_string(zmq.LAST_ENDPOINT)

    def _run(self) -> None:
        raise NotImplementedError

    def _serve_in_background(self, name: str) -> None:
        """Start the thread that runs `_run` until `close()`."""
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop serving and unbind."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self._teardown()

    def _teardown(self) -> None:
        if self._sock.closed:
            return
        self._sock.close()
        if self._guard is not None:
            self._guard.close()
        self._ctx.term()
        release(self._claims)
