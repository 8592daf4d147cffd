"""The simulator's end of a line: a real pseudo-terminal or a TCP listening socket.

`PtyLine` creates a pty, puts it in raw mode and publishes its slave under a symlink path, so a
reader opens it like any serial device; `reconnect()` destroys it and creates a fresh one under
the same path (an unplugged and replugged cable). `TcpLine` listens and serves one client at a
time, as a serial device server does. Both are chosen by `line_for_config` from a string:
`pty:PATH` or `tcp:HOST:PORT`.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import socket
import struct
import termios
import tty
from pathlib import Path
from typing import Protocol

from drivers.errors import DriverConfigurationError, DriverConnectionError

WRITE_WAIT = 0.05
"""Seconds a write waits for a full line buffer before the rest is dropped, as on a real wire
whose far end stopped reading."""


class SimLine(Protocol):
    """The simulator's side of a line."""

    address: str

    def read(self, timeout: float) -> bytes:
        """Return bytes from the host, waiting at most `timeout` seconds (b"" if none)."""
        ...

    def write(self, data: bytes) -> int:
        """Send `data`; return how many bytes the line took (the rest is lost)."""
        ...

    def backlog(self) -> int:
        """Bytes written but not yet taken by the host (0 when unknown)."""
        ...

    def connected(self) -> bool:
        """Whether a host can receive right now."""
        ...

    def reconnect(self, outage: float) -> None:
        """Drop the line, stay away `outage` seconds, and come back at the same address."""
        ...

    def close(self) -> None:
        """Release the line; idempotent."""
        ...


class PtyLine:
    """A pseudo-terminal whose slave is published as a symlink at `path`."""

    def __init__(self, path: Path) -> None:
        """Create the pty and the symlink (replacing a stale one).

        Raises `DriverConnectionError` when the pty or the symlink cannot be made.
        """
        self.path = path
        self.address = str(path)
        self._master = -1
        self._slave = -1
        try:
            self._open()
        except OSError as err:
            self._destroy()
            raise DriverConnectionError(f"cannot create a pty at {path}: {err}") from err

    def _open(self) -> None:
        master, slave = os.openpty()
        # Raw mode: no echo of the host's bytes back to it, no line editing, 8 bits through.
        tty.setraw(slave, termios.TCSANOW)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        # The simulator keeps the slave open itself, so the host may close and reopen it without
        # the master seeing a hangup, and so the unread backlog can be measured (FIONREAD).
        tmp = self.path.with_name(self.path.name + ".new")
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        tmp.symlink_to(os.ttyname(slave))
        os.replace(tmp, self.path)

    def read(self, timeout: float) -> bytes:
        """Return what the host wrote, waiting at most `timeout` seconds."""
        if self._master < 0:
            return b""
        ready, _, _ = select.select([self._master], [], [], max(timeout, 0))
        if not ready:
            return b""
        try:
            return os.read(self._master, 4096)
        except (BlockingIOError, InterruptedError):
            return b""

    def write(self, data: bytes) -> int:
        """Write to the host; bytes that do not fit within `WRITE_WAIT` are lost."""
        sent = 0
        while sent < len(data) and self._master >= 0:
            _, ready, _ = select.select([], [self._master], [], WRITE_WAIT)
            if not ready:
                break
            try:
                sent += os.write(self._master, data[sent:])
            except (BlockingIOError, InterruptedError):
                continue
        return sent

    def backlog(self) -> int:
        """Bytes in the slave's input queue that the host has not read yet."""
        if self._slave < 0:
            return 0
        raw = fcntl.ioctl(self._slave, termios.FIONREAD, b"\0\0\0\0")
        return int(struct.unpack("i", raw)[0])

    def connected(self) -> bool:
        """A pty is always there while it exists; whether anyone reads it is unknown."""
        return self._master >= 0

    def reconnect(self, outage: float) -> None:
        """Destroy the pty (the host sees the line vanish), wait, and create a new one."""
        self._destroy()
        select.select([], [], [], outage)
        self._open()

    def _destroy(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        for fd in (self._master, self._slave):
            if fd >= 0:
                os.close(fd)
        self._master = self._slave = -1

    def close(self) -> None:
        """Remove the symlink and close the pty; idempotent."""
        self._destroy()


class TcpLine:
    """A TCP server for one host at a time (the simulator as its own serial device server)."""

    def __init__(self, host: str, port: int) -> None:
        """Listen on `host:port` (port 0 picks a free one; see `address`)."""
        self._host = host
        self._client: socket.socket | None = None
        self._server: socket.socket | None = None
        try:
            self._listen(port)
        except OSError as err:
            raise DriverConnectionError(f"cannot listen on {host}:{port}: {err}") from err
        assert self._server is not None
        self.port: int = int(self._server.getsockname()[1])
        self.address = f"{host}:{self.port}"

    def _listen(self, port: int) -> None:
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind((self._host, port))
        server.listen(1)
        server.setblocking(False)
        self._server = server

    def _accept(self) -> None:
        if self._server is None or self._client is not None:
            return
        try:
            client, _ = self._server.accept()
        except (BlockingIOError, InterruptedError):
            return
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        client.setblocking(False)
        self._client = client

    def _drop_client(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def read(self, timeout: float) -> bytes:
        """Accept a waiting host if there is none; return its bytes within `timeout` seconds."""
        self._accept()
        watched = [s for s in (self._client or self._server,) if s is not None]
        ready, _, _ = select.select(watched, [], [], max(timeout, 0))
        if not ready:
            return b""
        if self._client is None:
            self._accept()
            return b""
        try:
            data = self._client.recv(4096)
        except (BlockingIOError, InterruptedError):
            return b""
        except OSError:
            data = b""
        if not data:
            self._drop_client()
        return data

    def write(self, data: bytes) -> int:
        """Send to the connected host; with none connected the bytes are lost."""
        self._accept()
        if self._client is None:
            return 0
        sent = 0
        while sent < len(data):
            _, ready, _ = select.select([], [self._client], [], WRITE_WAIT)
            if not ready:
                break
            try:
                sent += self._client.send(data[sent:])
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                self._drop_client()
                break
        return sent

    def backlog(self) -> int:
        """Unknown on a socket: the kernel's buffers are not the host's."""
        return 0

    def connected(self) -> bool:
        """Whether a host is connected."""
        self._accept()
        return self._client is not None

    def reconnect(self, outage: float) -> None:
        """Close the host's connection and refuse new ones for `outage` seconds."""
        self._drop_client()
        if self._server is not None:
            self._server.close()
            self._server = None
        select.select([], [], [], outage)
        self._listen(self.port)

    def close(self) -> None:
        """Close the connection and the listener; idempotent."""
        self._drop_client()
        if self._server is not None:
            self._server.close()
            self._server = None


def line_for_config(spec: str) -> SimLine:
    """Create the simulator's line from `pty:PATH` or `tcp:HOST:PORT`.

    Raises `DriverConfigurationError` for another form, `DriverConnectionError` if it cannot bind.
    """
    kind, _, rest = spec.partition(":")
    if kind == "pty" and rest:
        return PtyLine(Path(rest))
    if kind == "tcp":
        host, _, port = rest.rpartition(":")
        if host and port.isascii() and port.isdigit() and int(port) <= 0xFFFF:
            return TcpLine(host, int(port))
    raise DriverConfigurationError(
        f"unknown simulator line {spec!r} (expected pty:PATH or tcp:HOST:PORT, port 0-65535)"
    )
