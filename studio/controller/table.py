"""`TableController`: the pure state machine of one table, driven by inputs, answering with events.

`handle(input)` first lets every timer the input's time has passed fire, then applies the input,
and returns the envelopes both cause, numbered on from the last one. It reads no clock, does no
I/O and is deterministic: a fresh controller fed the same inputs returns the same envelopes.

Commands follow pokerkit's shape: `check(command)` says why a command would be refused (role,
then state, then arguments) or None; a refused command changes nothing and is answered with a
restricted `command_rejected`; an applied one with a restricted `command_accepted` (the actor's id
on record) and the events it causes.

The class only holds the state and routes: the behaviour is in one module of functions per
concern (`dealing`, `timers`, `incidents`, `confirmation`, `commands`) and in the table's card
source, chosen once here (`SOURCES`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, get_args

from studio.controller import commands
from studio.controller.camera_source import CameraSource
from studio.controller.confirmation import camera_timed_out
from studio.controller.dealing import auto_start, close_betting, close_window, turn_yellow
from studio.controller.incidents import (
    device_status,
    device_went_silent,
    fault,
    heard,
    restarted,
)
from studio.controller.prepared import PreparedCard, prepare, take
from studio.controller.shoe_source import ShoeSource
from studio.controller.state import CardSource, TableState, TimerName
from studio.controller.timers import Fire, advance
from studio.controller.view import snapshot, table_view
from studio.messages import (
    AlarmRaised,
    CardDrawn,
    CardSeen,
    Command,
    DeviceStatus,
    Envelope,
    Input,
    IntegrityChecked,
    Restarted,
    TableSettings,
    Tick,
)
from studio.messages.envelope import EPOCH, MICROSECOND
from studio.messages.view import TableView, TimerKind

SOURCES: Mapping[str, Callable[[TableSettings], CardSource]] = {
    "shoe": lambda settings: ShoeSource(camera=settings.camera),
    "camera": lambda _: CameraSource(),
}
"""Each `card_source` setting's strategy (`TableSettings.card_source` lists the same names)."""

if set(SOURCES) != set(get_args(TableSettings.model_fields["card_source"].annotation)):
    raise RuntimeError("SOURCES and TableSettings.card_source must name the same card sources")

FIRES: Mapping[TimerKind, Fire] = {
    "yellow": lambda st, _: turn_yellow(st),
    "close": lambda st, _: close_betting(st),
    "deal": lambda st, _: st.source.deal_timed_out(st),
    "window": lambda st, _: close_window(st),
    "autostart": lambda st, _: auto_start(st),
    "confirm": camera_timed_out,
    "silent": device_went_silent,
}
"""What each kind of timer does when it fires."""


def _fire(st: TableState, timer: TimerName) -> None:
    FIRES[timer.kind](st, timer)


class TableController:
    """The table's state machine for the game in `settings` (see the module docstring)."""

    def __init__(self, settings: TableSettings) -> None:
        source = SOURCES[settings.card_source](settings)
        self._state = TableState(settings=settings, rules=settings.rules(), source=source)
        self._state.devices = dict.fromkeys(source.devices, "ok")
        self._ready: PreparedCard | None = None

    @property
    def settings(self) -> TableSettings:
        """The table's settings."""
        return self._state.settings

    def handle(self, inp: Input) -> list[Envelope]:
        """Apply one input at its time and return the events it caused, in order.

        Time never runs backwards: an input stamped before the previous one counts as happening
        at the previous one's time for the timers (its events still carry its own stamp).
        """
        st = self._state
        # A prepared card is good for this input only: whatever it is, the next one is not.
        ready, self._ready = self._ready, None
        if ready is not None and type(inp) is CardDrawn:
            prepared = take(ready, st, inp)
            if prepared is not None:
                return prepared
        st.out = []
        st.ts = inp.ts
        at = (inp.ts - EPOCH) // MICROSECOND  # `to_micros`, inline: every input
        if st.now is None:
            st.now = at
            for device in st.source.devices:
                heard(st, device)
        if isinstance(inp, Restarted):
            restarted(st, at)
        else:
            advance(st, at, _fire)
        match inp:
            case CardDrawn():
                st.source.card_drawn(st, inp)
            case CardSeen():
                st.source.card_seen(st, inp)
            case DeviceStatus():
                device_status(st, inp)
            case Command():
                commands.handle_command(st, inp)
            case AlarmRaised():
                # The shell's own faults (journal, clock): a manager must see them before
                # anything goes on; a resume clears them (see docs/integrity.md).
                fault(st, inp.cause, detail=inp.detail)
            case IntegrityChecked():
                if inp.differences:
                    # Software or configuration not as certified: no round opens until a
                    # manager has looked (resume) - the regulators' R11.
                    fault(st, "integrity_mismatch", detail="; ".join(inp.differences[:10]))
            case Tick() | Restarted():
                pass
        out, st.out = st.out, []
        return out

    def prepare(self) -> bool:
        """Prepare what the next input, if it is the shoe's next card, will do; True if made.

        Called between inputs (the runtime does, once an input's events are on their way): that
        card then only fills in its seat and `card_dealt` pair (`studio.controller.prepared`).
        The next input, whatever it is, drops the preparation; `handle`'s events and state are
        the same either way.
        """
        self._ready = prepare(self._state)
        return self._ready is not None

    def check(self, command: Command) -> str | None:
        """Why `command` would be refused now (one line), or None when it would apply."""
        return commands.check(self._state, command)

    def adopt(self, rebuilt: TableController) -> None:
        """Take the state of `rebuilt`, a controller of the same settings, as this one's own.

        The running table applies an input before its journal write; if the write fails, the
        input is not on record, so the state it led to is dropped for one rebuilt from the
        journal (`studio.journal.recorder.rebuild`). `rebuilt` must not be used afterwards.
        """
        self._state = rebuilt._state
        self._ready = None

    def view(self) -> TableView:
        """The table now as a frozen `TableView` (restricted: it shows face-down cards)."""
        return table_view(self._state)

    def snapshot(self) -> dict[str, Any]:
        """The table now, as JSON types (restricted view: it shows face-down cards).

        Keys: table, game, variant, procedure, seq (last event's), now, phase ("idle" without a
        round in progress), game_number, light, positions (position -> code or None when
        unreadable), expecting (the position the next card goes to, None when no card may come),
        rescan_next, window, turning (camera-only: the positions the table waits to see turned
        face up at a reveal, in order), paused, incidents, resume_blockers, timers (deadlines,
        or seconds left while paused), devices.
        """
        return snapshot(self._state)
