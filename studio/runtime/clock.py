"""The runtime's clock, and the watch on it: a wall-clock step or an unsynchronised kernel clock.

Every input carries its UTC time (`ts`) and the runtime's monotonic time (`mono`) when it was
journalled. The wall clock may be stepped (an operator, a bad NTP server, a VM resumed); the
monotonic one never is. `ClockWatch` (pure: both times are arguments) compares how far the two
have moved since the last look: a difference beyond the bound is a step, which the runtime
journals as an `alarm_raised` (cause `clock_step`) that pauses the table for a manager, since
every timer, deadline and record time of the table rests on the wall clock.

`kernel_synchronised()` asks the kernel whether it holds the clock synchronised, through
`adjtimex(2)` with `modes = 0` (a read-only query needing no privilege): it answers `TIME_ERROR`
while the kernel's `STA_UNSYNC` status is set, i.e. no time daemon (chrony, ntpd,
systemd-timesyncd) is disciplining the clock. Python's `time` module has no such query
(`clock_gettime` reads clocks, it says nothing of their discipline), hence ctypes; the struct
is only written to by the kernel, so a zeroed buffer larger than any `struct timex` suffices.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Protocol

TIME_ERROR = 5
"""adjtimex's answer while the kernel holds the clock unsynchronised."""
_TIMEX_BYTES = 512
"""More than `sizeof(struct timex)` on any Linux ABI (208 on x86-64)."""


class Clock(Protocol):
    """Where the runtime reads time: aware UTC wall time and a monotonic count of seconds."""

    def now(self) -> datetime:
        """The wall clock, in UTC."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that never steps."""
        ...


class SystemClock:
    """The machine's clocks."""

    def now(self) -> datetime:
        """`datetime.now(UTC)`."""
        return datetime.now(UTC)

    def monotonic(self) -> float:
        """`time.monotonic()`."""
        return time.monotonic()


@dataclass(frozen=True, slots=True)
class ClockStep:
    """A wall-clock step: by how many seconds (+ ahead), and the time it should have read."""

    seconds: float
    expected: datetime


@dataclass(slots=True)
class ClockWatch:
    """Notices a wall-clock step beyond `bound` seconds against the monotonic clock.

    `steps` counts the steps seen (a figure for the metrics).
    """

    bound: float
    _wall: datetime | None = None
    _mono: float = 0.0
    steps: int = 0

    def observe(self, wall: datetime, mono: float) -> ClockStep | None:
        """Look at both clocks now; the step if one happened since the last look, else None.

        The first look only sets the reference; after a step the new reading is the reference.
        """
        last, last_mono = self._wall, self._mono
        self._wall, self._mono = wall, mono
        if last is None:
            return None
        step = (wall - last).total_seconds() - (mono - last_mono)
        if abs(step) <= self.bound:
            return None
        self.steps += 1
        return ClockStep(step, last + timedelta(seconds=mono - last_mono))


def kernel_synchronised() -> bool | None:
    """Whether the kernel holds the clock synchronised (None: it cannot be asked here)."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        state = int(libc.adjtimex(ctypes.create_string_buffer(_TIMEX_BYTES)))
    except (OSError, AttributeError):
        return None
    if state < 0:
        return None
    return state != TIME_ERROR
