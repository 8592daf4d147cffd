"""Binding endpoints safely: a second bind to an `ipc://` path must fail, not take it over.

libzmq unlinks and rebinds an `ipc://` path that another live socket is bound to (measured), so
the first socket silently stops receiving. `ExclusiveBind` holds an advisory lock on
`PATH.lock` for the socket's lifetime and probes the path before binding; a second binder, in
this process or another, gets `EndpointInUseError`. TCP endpoints need no guard: the kernel
refuses a second bind with EADDRINUSE, which is reported the same way.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket as pysocket

import zmq

from studio.closing import Closing
from studio.errors import BusError, EndpointInUseError


def _ipc_path(endpoint: str) -> str | None:
    if endpoint.startswith("ipc://"):
        path = endpoint[len("ipc://") :]
        # An abstract-namespace name (leading "@") has no file to lock; libzmq refuses those twice.
        return None if path.startswith("@") else path
    return None


def _someone_listens(path: str) -> bool:
    probe = pysocket.socket(pysocket.AF_UNIX, pysocket.SOCK_STREAM)
    try:
        probe.settimeout(0.5)
        probe.connect(path)
    except OSError:
        return False
    finally:
        probe.close()
    return True


class ExclusiveBind(Closing):
    """The right to bind one endpoint, held until `close()` (idempotent; context manager)."""

    def __init__(self, endpoint: str) -> None:
        """Claim `endpoint`; raises EndpointInUseError if another binder holds or listens on it.

        Raises BusError when the lock file of an `ipc://` path cannot be made.
        """
        self.endpoint = endpoint
        self._lock_fd: int | None = None
        path = _ipc_path(endpoint)
        if path is None:
            return
        try:
            fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as err:  # no such directory, or not ours to write
            raise BusError(f"cannot bind {endpoint}: {err.strerror}") from err
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            os.close(fd)
            raise EndpointInUseError(f"{endpoint} is already bound by another socket") from err
        if _someone_listens(path):
            # A binder that does not take our lock (another program) still owns the path.
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
            raise EndpointInUseError(f"{endpoint} is already bound by another program")
        self._lock_fd = fd

    def close(self) -> None:
        """Give the endpoint up (the socket bound to it must be closed first)."""
        if self._lock_fd is not None:
            fd, self._lock_fd = self._lock_fd, None
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


def check_endpoint(endpoint: str) -> None:
    """Raise BusError for an endpoint libzmq would silently take as another one.

    libzmq reads a TCP port above 65535 modulo 65536 (`tcp://127.0.0.1:99999` binds 34463).
    """
    if endpoint.startswith("tcp://"):
        port = endpoint.rpartition(":")[2]
        if port.isascii() and port.isdigit() and int(port) > 65535:
            raise BusError(f"bad endpoint {endpoint}: a TCP port is 0 to 65535")


def connect(socket: zmq.Socket[bytes], endpoint: str) -> None:
    """Connect `socket` to `endpoint`; raises BusError when the endpoint is malformed."""
    check_endpoint(endpoint)
    try:
        socket.connect(endpoint)
    except zmq.ZMQError as err:
        raise BusError(f"cannot connect to {endpoint}: {err}") from err


def bind(socket: zmq.Socket[bytes], endpoint: str) -> ExclusiveBind:
    """Bind `socket` to `endpoint` exclusively; return the claim to close after the socket.

    Raises EndpointInUseError when the endpoint is taken, BusError when it cannot be bound.
    """
    check_endpoint(endpoint)
    claim = ExclusiveBind(endpoint)
    try:
        socket.bind(endpoint)
    except zmq.ZMQError as err:
        claim.close()
        if err.errno == zmq.EADDRINUSE:
            raise EndpointInUseError(f"{endpoint} is already bound: {err}") from err
        raise BusError(f"cannot bind {endpoint}: {err}") from err
    return claim


def release(claims: list[ExclusiveBind]) -> None:
    """Close every claim in `claims` and empty the list (safe to call twice)."""
    while claims:
        with contextlib.suppress(OSError):
            claims.pop().close()
