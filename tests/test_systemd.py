"""`studio run` under systemd's Type=notify: READY, the watchdog and STOPPING over a real socket.

The test stands in for systemd: it binds a datagram socket, starts `studio run` with
`NOTIFY_SOCKET` and `WATCHDOG_USEC` pointing at it, and reads what arrives.
"""

from __future__ import annotations

import os
import signal
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_e2e_support import table_rig

from studio.runtime.systemd import SystemdNotifier


@pytest.fixture(name="listener")
def listener_fixture(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    path = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(0.5)
    try:
        yield sock, str(path)
    finally:
        sock.close()


def _messages(sock: socket.socket, until: str, timeout: float) -> list[str]:
    got: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            got.append(sock.recv(4096).decode())
        except TimeoutError:
            continue
        if until in got[-1]:
            return got
    pytest.fail(f"no {until} within {timeout} s: {got}")


def test_studio_run_says_ready_pings_the_watchdog_and_says_stopping(
    tmp_path: Path, listener: tuple[socket.socket, str]
) -> None:
    sock, path = listener
    with table_rig(tmp_path, extra='[camera]\nbackend = "none"\n') as rig:
        rig.env = {**rig.env, "NOTIFY_SOCKET": path, "WATCHDOG_USEC": "400000"}
        table = rig.start()
        first = _messages(sock, "READY=1", 10)
        ready = next(m for m in first if "READY=1" in m)
        assert "STATUS=table T01" in ready
        # Pings every 0.2 s from the loop: several within a second or two.
        pings = [m for m in _messages(sock, "WATCHDOG=1", 5) if m == "WATCHDOG=1"]
        pings += [m for m in _messages(sock, "WATCHDOG=1", 5) if m == "WATCHDOG=1"]
        assert len(pings) >= 2
        table.send_signal(signal.SIGSTOP)  # a hung table: the pings stop
        try:
            time.sleep(0.3)
            while True:  # drain what was sent before the stop
                try:
                    sock.recv(4096)
                except TimeoutError:
                    break
            with pytest.raises(TimeoutError):
                sock.recv(4096)
        finally:
            table.send_signal(signal.SIGCONT)
        table.send_signal(signal.SIGTERM)
        assert "STOPPING=1" in _messages(sock, "STOPPING=1", 15)[-1]
        assert table.wait(timeout=15) == 0


def test_an_abstract_socket_and_no_socket_at_all(tmp_path: Path) -> None:
    name = f"studio-test-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.settimeout(2)
        with SystemdNotifier({"NOTIFY_SOCKET": f"@{name}"}) as notifier:
            assert notifier.enabled and notifier.watchdog_seconds is None
            notifier.notify("READY=1", "STATUS=up")
            assert sock.recv(100) == b"READY=1\nSTATUS=up"
    with SystemdNotifier({}) as quiet:
        assert not quiet.enabled
        quiet.notify("READY=1")  # nothing to send to: nothing happens
    # A watchdog meant for another process (a parent's) is not this one's.
    other = {"NOTIFY_SOCKET": "/nowhere", "WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "1"}
    mine = {**other, "WATCHDOG_PID": str(os.getpid())}
    with SystemdNotifier(other) as a, SystemdNotifier(mine) as b:
        assert (a.watchdog_seconds, b.watchdog_seconds) == (None, 1.0)
        b.notify("WATCHDOG=1")  # a socket that is gone is logged, never raised
