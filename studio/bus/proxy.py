"""A studio-wide forwarder: many tables' streams in (XSUB), one endpoint out (XPUB).

Messages pass through unchanged (three frames each, see `studio.bus.wire`), so subscribers of
the proxy detect gaps and fetch from each table's own replay service exactly as they would on the
table's stream. Subscriptions travel upstream; the frontend reports every one of them
(`XPUB_VERBOSE`) so each table welcomes each new subscriber with a heartbeat.

The forwarding loop is libzmq's own (`zmq_proxy_steerable`), stopped through its control socket.
With `security`, the frontend is a CURVE server admitting `RESTRICTED_READERS` keys, for a proxy
that carries restricted streams; upstreams given a server key are joined as a CURVE client with
`client_keys`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from itertools import count

import zmq

from studio.bus.endpoints import ExclusiveBind, bind, connect, release
from studio.bus.keys import RESTRICTED_READERS, AllowedKey, KeyPair
from studio.bus.security import KeyGuard, ServerSecurity, secure_client
from studio.bus.subscriber import ReplayTarget
from studio.closing import Closing
from studio.errors import BusError

log = logging.getLogger(__name__)

PROXY_DOMAIN = "proxy"
"""The ZAP domain of a CURVE proxy frontend."""

_ids = count()


def _restricted_reader(entry: AllowedKey) -> bool:
    return entry.role in RESTRICTED_READERS


class StreamProxy(Closing):
    """Forward `upstreams` (table stream endpoints) to subscribers of `frontend`.

    `backend`, if given, is also bound so publishers may connect to the proxy instead. Runs
    from construction until `close()` (idempotent; context manager).
    """

    def __init__(
        self,
        frontend: str,
        upstreams: Sequence[ReplayTarget] = (),
        *,
        backend: str | None = None,
        security: ServerSecurity | None = None,
        client_keys: KeyPair | None = None,
        hwm: int = 100_000,
    ) -> None:
        """Bind and connect, then start forwarding; raises EndpointInUseError or BusError."""
        self._ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
        self._claims: list[ExclusiveBind] = []
        self._guard: KeyGuard | None = None
        self._thread: threading.Thread | None = None
        self._xsub = self._ctx.socket(zmq.XSUB)
        self._xpub = self._ctx.socket(zmq.XPUB)
        self._control = self._ctx.socket(zmq.PAIR)
        self._worker_control = self._ctx.socket(zmq.PAIR)
        try:
            for sock in (self._xsub, self._xpub):
                sock.setsockopt(zmq.LINGER, 0)
                sock.setsockopt(zmq.SNDHWM, hwm)
                sock.setsockopt(zmq.RCVHWM, hwm)
            self._xpub.setsockopt(zmq.XPUB_VERBOSE, 1)
            if security is not None:
                self._guard = security.guard(self._ctx, {PROXY_DOMAIN: _restricted_reader})
                self._guard.secure(self._xpub, security.server_keys, PROXY_DOMAIN)
            self._claims.append(bind(self._xpub, frontend))
            if backend is not None:
                self._claims.append(bind(self._xsub, backend))
            for upstream in upstreams:
                if upstream.server_key is not None:
                    if client_keys is None:
                        raise BusError(f"{upstream.endpoint} needs CURVE: give the proxy a key")
                    secure_client(self._xsub, client_keys, upstream.server_key)
                connect(self._xsub, upstream.endpoint)
            control = f"inproc://studio-proxy-{next(_ids)}"
            self._control.bind(control)
            self._worker_control.connect(control)
        except BaseException:
            self._teardown()
            raise
        self._thread = threading.Thread(target=self._run, name="stream-proxy", daemon=True)
        self._thread.start()

    @property
    def frontend(self) -> str:
        """The frontend endpoint actually bound."""
        return self._xpub.getsockopt_string(zmq.LAST_ENDPOINT)

    def _run(self) -> None:
        try:
            zmq.proxy_steerable(self._xsub, self._xpub, None, self._worker_control)
        except zmq.ZMQError:
            log.exception("stream proxy stopped")

    def wait(self) -> None:
        """Block until the proxy stops (for `studio proxy`, which runs until interrupted)."""
        if self._thread is not None:
            while self._thread.is_alive():
                self._thread.join(0.5)

    def close(self) -> None:
        """Stop forwarding, close every socket and unbind."""
        if self._thread is not None:
            self._control.send(b"TERMINATE")
            self._thread.join()
            self._thread = None
        self._teardown()

    def _teardown(self) -> None:
        if self._xpub.closed:
            return
        for sock in (self._xsub, self._xpub, self._control, self._worker_control):
            sock.close(linger=0)
        if self._guard is not None:
            self._guard.close()
        self._ctx.term()
        release(self._claims)
