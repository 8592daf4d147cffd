"""`SystemdNotifier`: tell systemd a `Type=notify` table is ready, alive and stopping.

systemd passes `NOTIFY_SOCKET` (a datagram socket: a path, or `@name` in the abstract
namespace) and, with `WatchdogSec=`, `WATCHDOG_USEC` (and `WATCHDOG_PID`). The table sends
`READY=1` once every device, stream and the journal are up, `WATCHDOG=1` from its event loop
twice per watchdog period (a hung loop stops the pings, and systemd restarts the table), and
`STOPPING=1` when it starts draining. Outside systemd (no `NOTIFY_SOCKET`) every call does
nothing.

Why a few lines here and not a library: the protocol is one datagram of `NAME=value` lines on
an AF_UNIX socket, documented as stable in sd_notify(3). The Python candidates are `sdnotify`,
unmaintained since 2017, and `systemd-python`/`cysystemd`, which build against libsystemd's C
headers that a table's host need not have. The code below is that whole protocol.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping

from studio.closing import Closing

log = logging.getLogger(__name__)


class SystemdNotifier(Closing):
    """Send sd_notify(3) messages to `environ["NOTIFY_SOCKET"]`, if set (context manager).

    A message that cannot be sent is logged, never raised: systemd going away must not stop a
    table dealing. `close()` is idempotent.
    """

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        address = env.get("NOTIFY_SOCKET", "")
        # An abstract socket is written `@name`; the kernel's name starts with a NUL instead.
        self._address = "\0" + address[1:] if address.startswith("@") else address
        self._socket: socket.socket | None = None
        if self._address:
            self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
        self.watchdog_seconds = _watchdog_seconds(env)

    @property
    def enabled(self) -> bool:
        """Whether systemd (or a test standing in for it) listens."""
        return self._socket is not None

    def notify(self, *fields: str) -> None:
        """Send `fields` (`"READY=1"`, `"STATUS=..."`) as one message; nothing outside systemd."""
        sock = self._socket
        if sock is None:
            return
        try:
            sock.sendto("\n".join(fields).encode(), self._address)
        except OSError as err:
            log.warning("systemd notification %s not sent: %s", fields[0], err)

    def close(self) -> None:
        """Close the socket; calling it again does nothing."""
        sock, self._socket = self._socket, None
        if sock is not None:
            sock.close()


def _watchdog_seconds(env: Mapping[str, str]) -> float | None:
    """The watchdog period asked of this process, in seconds (None: no watchdog)."""
    usec = env.get("WATCHDOG_USEC", "")
    pid = env.get("WATCHDOG_PID", "")
    # WATCHDOG_PID names the process the watchdog is for; a child that inherited it is not.
    if not usec.isdigit() or int(usec) == 0 or (pid and pid != str(os.getpid())):
        return None
    return int(usec) / 1_000_000
