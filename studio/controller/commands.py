"""The commands people give a table: each one's check (why not) and its apply (what happens).

Checks run in a fixed order (role, then state, then arguments) and return one line naming the
first failure, so a refused command is explained and changes nothing (pokerkit's shape).
Only a shift manager resolves a pause (docs/games.md: Malfunction); a dealer opens rounds, changes
decks and calls the shift manager.
"""

from __future__ import annotations

from collections.abc import Callable

from studio.cards import Card
from studio.controller.camera import TableCamera
from studio.controller.state import Round, Stray, rescan_blocker, resume_blockers
from studio.errors import CardError
from studio.messages import (
    CardDiscarded,
    CardRescanned,
    Command,
    CommandAccepted,
    CommandRejected,
    DeckChanged,
    RescanFinished,
    RescanStarted,
    TableSettings,
)

MANAGER = frozenset({"shift_manager"})
FLOOR = frozenset({"dealer", "shift_manager"})
ROLES: dict[str, frozenset[str]] = {
    "start_round": FLOOR,
    "call_manager": FLOOR,
    "new_deck": FLOOR,
    "resume": MANAGER,
    "correct_card": MANAGER,
    "discard_last_card": MANAGER,
    "rescan": MANAGER,
    "cancel_rescan": MANAGER,
    "acknowledge_device": MANAGER,
    "void": MANAGER,
    "check_integrity": MANAGER,
}
"""Who may give each command."""

VOID_REASON = "voided by the shift manager"
"""The public `round_voided` reason: never the manager's free-text note (see `_apply_void`)."""

_ARGUMENTS: dict[str, tuple[str, ...]] = {"correct_card": ("position", "card")}


class TableCommands(TableCamera):
    """Command checks and applies on top of the table's mechanics."""

    def __init__(self, settings: TableSettings) -> None:
        super().__init__(settings)
        self._checks: dict[str, Callable[[Command], str | None]] = {
            "start_round": self._check_start,
            "call_manager": self._check_call,
            "new_deck": self._check_new_deck,
            "resume": self._check_resume,
            "correct_card": self._check_correct,
            "discard_last_card": self._check_paused_round,
            "rescan": self._check_rescan,
            "cancel_rescan": self._check_cancel_rescan,
            "acknowledge_device": self._check_acknowledge,
            "void": self._check_void,
            # Carried out by the runtime (it hashes the files); here it is only put on record.
            "check_integrity": lambda _: None,
        }
        self._applies: dict[str, Callable[[Command], None]] = {
            "start_round": lambda _: self._open_round(),
            "call_manager": self._apply_call,
            "new_deck": lambda _: self._emit(DeckChanged()),
            "resume": lambda _: self._resume(),
            "correct_card": self._apply_correct,
            "discard_last_card": self._apply_discard,
            "rescan": self._apply_rescan,
            "cancel_rescan": self._apply_cancel_rescan,
            "acknowledge_device": self._apply_acknowledge,
            "void": self._apply_void,
            "check_integrity": lambda _: None,
        }

    def check(self, command: Command) -> str | None:
        """Why `command` would be refused now (one line), or None when it would apply."""
        allowed = ROLES[command.command]
        if command.role not in allowed:
            roles = " or ".join(sorted(allowed))
            return f"{command.command} needs the role {roles}, not {command.role}"
        reason = self._checks[command.command](command)
        if reason is not None:
            return reason
        expected = _ARGUMENTS.get(command.command, ())
        extra = [n for n in ("position", "card") if getattr(command, n) is not None]
        extra = [n for n in extra if n not in expected]
        if extra:
            return f"{command.command} takes no {' or '.join(extra)}"
        if command.command == "correct_card":
            return self._check_correction(command)
        return None

    def _command(self, command: Command) -> None:
        reason = self.check(command)
        if reason is not None:
            self._emit(
                CommandRejected(
                    command=command.command, actor=command.actor, role=command.role, reason=reason
                ),
                "restricted",
            )
            return
        accepted = CommandAccepted(
            command=command.command,
            actor=command.actor,
            role=command.role,
            position=command.position,
            card=Card.parse(command.card).code if command.card else None,
            note=command.note,
        )
        if command.command == "start_round":
            # Opening first puts the record of who opened the round under its game number.
            self._applies[command.command](command)
            self._emit(accepted, "restricted")
            return
        self._emit(accepted, "restricted")
        self._applies[command.command](command)

    # -- checks of state --------------------------------------------------------------------

    def _check_start(self, _: Command) -> str | None:
        st = self._state
        if st.paused:
            return "the table is paused: a shift manager must resume it first"
        if st.active is not None:
            return f"round {st.active.game_number} is still in progress"
        broken = [f"the {d} is {s}" for d, s in st.devices.items() if s != "ok"]
        return "; ".join(broken) if broken else None

    def _check_call(self, _: Command) -> str | None:
        if self._state.paused:
            return "the table is already paused and the shift manager called"
        return None

    def _check_new_deck(self, _: Command) -> str | None:
        if self._state.paused:
            return "the table is paused: a shift manager must resume it first"
        if self._state.active is not None:
            return "the deck changes only between rounds"
        return None

    def _check_resume(self, _: Command) -> str | None:
        if not self._state.paused:
            return "the table is not paused"
        blockers = resume_blockers(self._state)
        return "; ".join(blockers) if blockers else None

    def _check_paused_round(self, command: Command) -> str | None:
        st = self._state
        if not st.paused:
            return f"{command.command} needs a paused round: call the shift manager first"
        rnd = st.active
        if rnd is None:
            return "no round in progress"
        if rnd.rescan is not None:
            return rescan_blocker(rnd.rescan)
        if command.command != "discard_last_card":
            return None
        if not rnd.drawn:
            return "no card has been drawn this round"
        last = rnd.drawn[-1]
        if isinstance(last, str) and rnd.seats[last].step < rnd.last_window_step:
            return f"the card at {last} was dealt before a decision window opened: it must stay"
        return None

    def _check_correct(self, command: Command) -> str | None:
        return self._check_paused_round(command)

    def _check_correction(self, command: Command) -> str | None:
        rnd = self._state.active
        assert rnd is not None
        positions = self._state.rules.positions
        if command.position is None or command.card is None:
            return "correct_card needs a position and a card"
        if command.position not in positions:
            return f"unknown position {command.position!r} (expected one of {', '.join(positions)})"
        seat = rnd.seats.get(command.position)
        if seat is None:
            return f"nothing has been dealt to {command.position}"
        try:
            card = Card.parse(command.card)
        except CardError as err:
            return str(err)
        if seat.card == card:
            return f"{command.position} already holds {card.code}"
        holder = rnd.holder(card)
        if holder is not None:
            where = holder if holder in ("out of turn", "discarded") else f"at {holder}"
            return f"{card.code} is already {where} this round"
        return None

    def _check_rescan(self, command: Command) -> str | None:
        reason = self._check_paused_round(command)
        if reason is None and self._state.active is not None and not self._state.active.seats:
            return "no card has been dealt this round"
        return reason

    def _check_cancel_rescan(self, _: Command) -> str | None:
        rnd = self._state.active
        if rnd is None or rnd.rescan is None:
            return "no re-scan is in progress"
        return None

    def _check_acknowledge(self, _: Command) -> str | None:
        if all(status == "ok" for status in self._state.devices.values()):
            return "every device is ok: nothing to acknowledge"
        return None

    def _check_void(self, _: Command) -> str | None:
        if not self._state.paused:
            return "a round is voided only while paused: call the shift manager first"
        return None

    # -- applies ------------------------------------------------------------------------------

    def _apply_call(self, command: Command) -> None:
        detail = f"{command.role} {command.actor} called the shift manager"
        self._fault(
            "manager_called", detail=f"{detail}: {command.note}" if command.note else detail
        )

    def _apply_correct(self, command: Command) -> None:
        rnd = self._state.active
        assert rnd is not None and command.position is not None and command.card is not None
        seat = rnd.seats[command.position]
        previous, seat.card = seat.card, Card.parse(command.card)
        seat.pending = False
        if self._state.settings.camera:
            # The camera must see the corrected card before anything rests on it.
            seat.confirmed = False
            self._cancel(f"confirm:{seat.position}")
            unreadable = rnd.sightings.get(seat.position, ("none", None))[:2] == ("up", None)
            if self._camera_only and (unreadable or seat.position in self._turning(rnd)):
                # Camera-only: a face-up card there the camera cannot read can neither confirm
                # the manager's reading nor contradict it, so the reading stands; a card being
                # turned is checked against it by the reveal itself.
                seat.confirmed = True
        self._publish_correction(seat, previous)

    def _apply_discard(self, _: Command) -> None:
        rnd = self._state.active
        assert rnd is not None
        last = rnd.drawn.pop()
        if isinstance(last, Stray):
            if last.card is not None:
                rnd.burned.add(last.card)
            self._emit_card(
                lambda code, _: CardDiscarded(position=None, card=code), last.card, False
            )
            return
        seat = rnd.seats.pop(last)
        rnd.step = seat.step
        self._cancel(f"confirm:{seat.position}")
        if seat.card is not None and rnd.holder(seat.card) is None:
            rnd.burned.add(seat.card)
        self._emit_card(
            lambda code, _: CardDiscarded(position=last, card=code), seat.card, seat.public
        )

    def _apply_rescan(self, _: Command) -> None:
        rnd = self._state.active
        assert rnd is not None
        if self._camera_only:
            self._camera_rescan(rnd)
            return
        rnd.rescan = list(rnd.seats)
        self._emit(RescanStarted(positions=list(rnd.rescan)), "restricted")

    def _apply_cancel_rescan(self, _: Command) -> None:
        rnd = self._state.active
        assert rnd is not None and rnd.rescan is not None
        left, rnd.rescan = len(rnd.rescan), None
        detail = f"cancelled by the shift manager with {left} card(s) still to read"
        self._emit(RescanFinished(matched=False, detail=detail), "restricted")

    def _apply_acknowledge(self, _: Command) -> None:
        # The manager vouches for a device that latched a fault (a restarted or replaced shoe
        # never reports one cleared) or went silent. It is watched afresh from now: one still
        # broken reports again, one still silent goes silent again after the usual time.
        for device, status in list(self._state.devices.items()):
            if status != "ok":
                self._set_health(device, "ok", "acknowledged by the shift manager")
                self._heard(device)

    def _apply_void(self, command: Command) -> None:
        rnd = self._state.active
        if rnd is None:
            # Paused between rounds there is no round to void: the pause ends whatever blocks
            # a resume; a device still broken keeps new rounds from opening until acknowledged.
            self._resume()
            return
        # The manager's note may name a face-down card: it stays in the restricted
        # command_accepted; the public round_voided only says who voided it, generically.
        self._void(rnd, VOID_REASON)

    def _rescan_card(self, rnd: Round, card: Card | None) -> None:
        """Check one re-read card against its position's record; a mismatch ends the re-scan."""
        assert rnd.rescan is not None
        seat = rnd.seats[rnd.rescan[0]]
        recorded = seat.card
        fills = recorded is None and card is not None and rnd.holder(card) is None
        matched = card is not None and (card == recorded or fills)
        self._emit(
            CardRescanned(
                position=seat.position,
                recorded=recorded.code if recorded else None,
                read=card.code if card else None,
                matched=matched,
            ),
            "restricted",
        )
        if not matched:
            rnd.rescan = None
            read = card.code if card else "an unreadable card"
            detail = f"{seat.position}: read {read}, recorded {recorded or 'nothing'}"
            self._emit(RescanFinished(matched=False, detail=detail), "restricted")
            return
        if fills:
            seat.card = card
            self._publish_correction(seat, None)
        rnd.rescan.pop(0)
        if not rnd.rescan:
            rnd.rescan = None
            detail = "every card matched its record"
            self._emit(RescanFinished(matched=True, detail=detail), "restricted")
