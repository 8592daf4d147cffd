"""Time and timers: time only moves forward, and only with the inputs.

Before an input applies, every timer whose deadline it has passed fires in deadline order (a
timer fires at its own deadline, so what it starts is timed from then, not from when the input
came). While the table is paused the timers are frozen as the time they had left.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter

from studio.controller.state import Micros, TableState, TimerName

_DUE = itemgetter(1, 0)
"""A timer's `(deadline, name)`, what orders them: a C function, where a lambda is a Python call
per timer on every input's way."""

Fire = Callable[[TableState, TimerName], None]
"""What a timer does when it fires (see `studio.controller.table.FIRES`)."""


def set_timer(st: TableState, name: TimerName, duration: Micros) -> None:
    """Arm `name` to fire `duration` from now (frozen with that much left while paused)."""
    if st.paused:
        st.frozen[name] = duration
    else:
        st.timers[name] = st.clock + duration


def cancel(st: TableState, name: TimerName) -> None:
    """Disarm `name` (running or frozen); nothing happens if it is not armed."""
    st.timers.pop(name, None)
    st.frozen.pop(name, None)


def advance(st: TableState, until: Micros, fire: Fire) -> None:
    """Move the table's time to `until`, firing each timer due by then at its own deadline."""
    while not st.paused and st.timers:
        name, deadline = min(st.timers.items(), key=_DUE)
        if deadline > until:
            break
        del st.timers[name]
        st.now = max(st.now or 0, deadline)  # `st.clock`, inline
        fire(st, name)
    st.now = max(st.now or 0, until)


def freeze(st: TableState) -> None:
    """Stop every timer, keeping the time it had left."""
    st.frozen = {name: max(0, t - st.clock) for name, t in st.timers.items()}
    st.timers = {}


def thaw(st: TableState) -> None:
    """Restart every frozen timer with the time it had left."""
    st.timers = {name: st.clock + left for name, left in st.frozen.items()}
    st.frozen = {}


def end_round_timers(st: TableState) -> None:
    """Drop every timer of the round: only the device watchdogs outlive it."""
    for name in [n for n in st.timers if n.kind != "silent"]:
        del st.timers[name]
