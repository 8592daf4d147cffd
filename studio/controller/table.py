"""`TableController`: the pure state machine of one table, driven by inputs, answering with events.

`handle(input)` first lets every timer the input's time has passed fire, then applies the input,
and returns the envelopes both cause, numbered on from the last one. It reads no clock, does no
I/O and is deterministic: a fresh controller fed the same inputs returns the same envelopes.

Commands follow pokerkit's shape: `check(command)` says why a command would be refused (role,
then state, then arguments) or None; a refused command changes nothing and is answered with a
restricted `command_rejected`; an applied one with a restricted `command_accepted` (the actor's id
on record) and the events it causes.
"""

from __future__ import annotations

from typing import Any

from studio.cards import Card
from studio.controller.commands import TableCommands
from studio.controller.state import Stray, next_deal, open_window, resume_blockers
from studio.games.model import Face
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
    from_micros,
    to_micros,
)
from studio.messages.view import (
    CardView,
    IncidentView,
    TableView,
    TimerKind,
    TimerView,
    WindowView,
)


class TableController(TableCommands):
    """The table's state machine for the game in `settings` (see the module docstring)."""

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
        self._out = []
        self._ts = inp.ts
        at = to_micros(inp.ts)
        if st.now is None:
            st.now = at
            for device in self._monitored:
                self._heard(device)
        if isinstance(inp, Restarted):
            self._restarted(at)
        else:
            self._advance(at)
        match inp:
            case CardDrawn():
                self._card_drawn(inp)
            case CardSeen():
                self._card_seen(inp)
            case DeviceStatus():
                self._device_status(inp)
            case Command():
                self._command(inp)
            case AlarmRaised():
                # The shell's own faults (journal, software, clock): a manager must see them
                # before anything goes on; a resume clears them (see docs/integrity.md).
                self._fault(inp.cause, detail=inp.detail)
            case IntegrityChecked():
                if inp.differences:
                    # Software or configuration not as certified: no round opens until a
                    # manager has looked (resume) - the regulators' R11.
                    self._fault("integrity_mismatch", detail="; ".join(inp.differences[:10]))
            case Tick() | Restarted():
                pass
        out, self._out = self._out, []
        return out

    def view(self) -> TableView:
        """The table now as a frozen `TableView` (restricted: it shows face-down cards)."""
        st = self._state
        rnd = st.active
        window = open_window(st.rules, rnd) if rnd is not None else None
        deal = next_deal(st.rules, rnd) if rnd is not None and not st.paused else None
        shown = rnd or st.round
        timers = []
        for name, value in sorted((st.frozen if st.paused else st.timers).items()):
            kind, _, arg = name.partition(":")
            timer_kind: TimerKind = kind  # type: ignore[assignment]
            timers.append(
                TimerView(
                    kind=timer_kind,
                    position=arg if kind == "confirm" else None,
                    device=arg if kind == "silent" else None,
                    deadline=None if st.paused else from_micros(value),
                    remaining_seconds=value / 1e6 if st.paused else None,
                )
            )
        return TableView(
            table=st.settings.table,
            game=st.rules.game,
            variant=st.rules.variant,
            procedure=st.rules.options.get("procedure"),
            seq=st.seq,
            now=from_micros(st.now) if st.now is not None else None,
            phase=rnd.phase if rnd is not None else "idle",
            game_number=shown.game_number if shown is not None else None,
            light=rnd.light if rnd is not None else None,
            cards=tuple(
                CardView(
                    position=p,
                    code=s.card.code if s.card else None,
                    face_up=s.face is Face.UP or s.revealed,
                    confirmed=s.confirmed,
                    pending=s.pending,
                )
                for p, s in (shown.seats if shown else {}).items()
            ),
            expecting=deal.position if deal is not None and rnd and rnd.rescan is None else None,
            rescan_next=rnd.rescan[0] if rnd is not None and rnd.rescan else None,
            window=None
            if window is None
            else WindowView(
                name=window.name, options=tuple(window.options), automatic=window.automatic
            ),
            turning=tuple(self._turning(rnd))
            if rnd is not None and rnd.phase == "revealing"
            else (),
            paused=st.paused,
            incidents=tuple(IncidentView(**i.to_json()) for i in st.incidents),
            resume_blockers=tuple(resume_blockers(st)) if st.paused else (),
            timers=tuple(timers),
            devices=dict(st.devices),
        )

    def snapshot(self) -> dict[str, Any]:
        """The table now, as JSON types (restricted view: it shows face-down cards).

        Keys: table, game, variant, procedure, seq (last event's), now, phase ("idle" without a
        round in progress), game_number, light, positions (position -> code or None when
        unreadable), expecting (the position the next card goes to, None when no card may come),
        rescan_next, window, turning (camera-only: the positions the table waits to see turned
        face up at a reveal, in order), paused, incidents, resume_blockers, timers (deadlines,
        or seconds left while paused), devices.
        """
        st = self._state
        rnd = st.active
        window = open_window(st.rules, rnd) if rnd is not None else None
        deal = next_deal(st.rules, rnd) if rnd is not None and not st.paused else None
        timers: dict[str, Any] = (
            {k: v / 1e6 for k, v in sorted(st.frozen.items())}
            if st.paused
            else {k: from_micros(v).isoformat() for k, v in sorted(st.timers.items())}
        )
        shown = rnd or st.round
        return {
            "table": st.settings.table,
            "game": st.rules.game,
            "variant": st.rules.variant,
            "procedure": st.rules.options.get("procedure"),
            "seq": st.seq,
            "now": from_micros(st.now).isoformat() if st.now is not None else None,
            "phase": rnd.phase if rnd is not None else "idle",
            "game_number": shown.game_number if shown is not None else None,
            "light": rnd.light if rnd is not None else None,
            "positions": {
                p: (s.card.code if s.card else None)
                for p, s in (shown.seats if shown else {}).items()
            },
            "expecting": deal.position if deal is not None and rnd and rnd.rescan is None else None,
            "rescan_next": rnd.rescan[0] if rnd is not None and rnd.rescan else None,
            "window": None
            if window is None
            else {
                "name": window.name,
                "options": list(window.options),
                "automatic": window.automatic,
            },
            "turning": list(self._turning(rnd))
            if rnd is not None and rnd.phase == "revealing"
            else [],
            "paused": st.paused,
            "incidents": [i.to_json() for i in st.incidents],
            "resume_blockers": resume_blockers(st) if st.paused else [],
            "timers": timers,
            "devices": dict(st.devices),
        }

    # -- inputs ---------------------------------------------------------------------------------

    def _restarted(self, at: int) -> None:
        # The time the process was down must not count against anyone: timers freeze at the
        # last moment the controller knew, before the restart's own time.
        st = self._state
        if st.active is not None:
            self._fault("controller_restarted", detail="the controller restarted mid-round")
        st.now = max(st.now or at, at)
        for device in self._monitored:
            self._heard(device)

    def _card_drawn(self, inp: CardDrawn) -> None:
        st = self._state
        if st.settings.card_source == "camera":
            self._shoe_on_camera_table(inp)
            return
        self._heard("shoe")
        card = Card.parse(inp.card) if inp.card is not None else None
        rnd = st.active
        if rnd is not None and rnd.rescan is not None:
            self._rescan_card(rnd, card)
            return
        deal = next_deal(st.rules, rnd) if rnd is not None and not st.paused else None
        if rnd is None or deal is None:
            if rnd is not None:
                rnd.drawn.append(Stray(card))
            detail = f"card drawn {self._why_no_card(rnd)}"
            cards = (card.code,) if card is not None else ()
            self._fault("card_out_of_turn", cards=cards, device="shoe", raw=inp.raw, detail=detail)
            return
        self._seat_card(rnd, deal, card, inp.raw, detail=inp.detail)
