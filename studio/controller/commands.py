"""The commands people give a table: one registry of names, roles, arguments, checks and applies.

`COMMANDS` is the one place a command is declared: who may give it (the bus's role check reads
it too), which arguments it takes, its check (why not, one line) and its apply (what happens).
Checks run in a fixed order (role, then state, then arguments) and return one line naming the
first failure, so a refused command is explained and changes nothing (pokerkit's shape).
Only a shift manager resolves a pause (docs/games.md: Malfunction); a dealer opens rounds, changes
decks and calls the shift manager.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import get_args

from studio.cards import Card
from studio.controller.confirmation import confirm_timer, recheck
from studio.controller.dealing import change_deck, open_round, proceed, void
from studio.controller.events import announce_kept, emit, emit_card, publish_correction
from studio.controller.incidents import fault, heard, set_health
from studio.controller.state import Stray, TableState, rescan_blocker, resume_blockers
from studio.controller.timers import cancel, thaw
from studio.errors import CardError
from studio.messages import (
    CardDiscarded,
    Command,
    CommandAccepted,
    CommandName,
    CommandRejected,
    RescanFinished,
    Role,
    RoundResumed,
)

Check = Callable[[TableState, Command], str | None]
Apply = Callable[[TableState, Command], None]


@dataclass(frozen=True, slots=True)
class CommandSpec:
    """One command: who may give it, its arguments, its checks and its apply.

    `check` looks at the table's state; `check_arguments` (run after it, for a command with
    `arguments`) at what the command names. `record_after` puts the `command_accepted` after
    the apply's events (`start_round`: the record of who opened the round then carries its game
    number).
    """

    roles: frozenset[Role]
    check: Check
    apply: Apply
    arguments: tuple[str, ...] = ()
    check_arguments: Check | None = None
    record_after: bool = False


VOID_REASON = "voided by the shift manager"
"""The public `round_voided` reason: never the manager's free-text note (see `_apply_void`)."""

_PAUSED = "the table is paused: a shift manager must resume it first"


def resume(st: TableState) -> None:
    """End the pause: thaw the timers, settle the camera, announce kept cards, deal on."""
    numbers = [i.number for i in st.incidents]
    st.paused = False
    st.incidents = []
    thaw(st)
    recheck(st)
    emit(st, RoundResumed(incidents=numbers))
    announce_kept(st)
    proceed(st)


# -- checks of state ------------------------------------------------------------------------


def _check_start(st: TableState, _: Command) -> str | None:
    if st.paused:
        return _PAUSED
    if st.active is not None:
        return f"round {st.active.game_number} is still in progress"
    broken = [f"the {d} is {s}" for d, s in st.devices.items() if s != "ok"]
    return "; ".join(broken) if broken else None


def _check_call(st: TableState, _: Command) -> str | None:
    if st.paused:
        return "the table is already paused and the shift manager called"
    return None


def _check_new_deck(st: TableState, _: Command) -> str | None:
    rnd = st.active
    if rnd is not None and rnd.deck_reused is not None and not rnd.seats:
        return None  # the round waits for a fresh deck and nothing is dealt from the old one
    if st.paused:
        return _PAUSED
    if rnd is not None:
        return "the deck changes only between rounds"
    return None


def _check_resume(st: TableState, _: Command) -> str | None:
    if not st.paused:
        return "the table is not paused"
    blockers = resume_blockers(st)
    return "; ".join(b.words for b in blockers) if blockers else None


def _check_paused_round(st: TableState, command: Command) -> str | None:
    if not st.paused:
        return f"{command.command} needs a paused round: call the shift manager first"
    rnd = st.active
    if rnd is None:
        return "no round in progress"
    if rnd.rescan is not None:
        return rescan_blocker(rnd.rescan).words
    return None


def _check_discard(st: TableState, command: Command) -> str | None:
    reason = _check_paused_round(st, command)
    rnd = st.active
    if reason is not None or rnd is None:
        return reason
    if not rnd.drawn:
        return "no card has been drawn this round"
    last = rnd.drawn[-1]
    if isinstance(last, str) and rnd.seats[last].step < rnd.last_window_step:
        return f"the card at {last} was dealt before a decision window opened: it must stay"
    return None


def _check_correction(st: TableState, command: Command) -> str | None:
    """The arguments of `correct_card`, checked after its state (see `check`)."""
    rnd = st.active
    assert rnd is not None
    positions = st.rules.positions
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


def _check_rescan(st: TableState, command: Command) -> str | None:
    reason = _check_paused_round(st, command)
    if reason is None and st.active is not None and not st.active.seats:
        return "no card has been dealt this round"
    return reason


def _check_cancel_rescan(st: TableState, _: Command) -> str | None:
    rnd = st.active
    if rnd is None or rnd.rescan is None:
        return "no re-scan is in progress"
    return None


def _check_acknowledge(st: TableState, _: Command) -> str | None:
    if all(status == "ok" for status in st.devices.values()):
        return "every device is ok: nothing to acknowledge"
    return None


def _check_acknowledge_alarm(st: TableState, _: Command) -> str | None:
    if not st.paused:
        return "the table is not paused: no alarm to acknowledge"
    return None


def _check_void(st: TableState, _: Command) -> str | None:
    if not st.paused:
        return "a round is voided only while paused: call the shift manager first"
    return None


# -- applies ------------------------------------------------------------------------------


def _apply_call(st: TableState, command: Command) -> None:
    detail = f"{command.role} {command.actor} called the shift manager"
    fault(st, "manager_called", detail=f"{detail}: {command.note}" if command.note else detail)


def _apply_correct(st: TableState, command: Command) -> None:
    rnd = st.active
    assert rnd is not None and command.position is not None and command.card is not None
    seat = rnd.seats[command.position]
    previous, seat.card = seat.card, Card.parse(command.card)
    seat.pending = False
    st.source.corrected(st, rnd, seat)
    publish_correction(st, seat, previous)


def _apply_discard(st: TableState, _: Command) -> None:
    rnd = st.active
    assert rnd is not None
    last = rnd.drawn.pop()
    if isinstance(last, Stray):
        if last.card is not None:
            rnd.burned.add(last.card)
        emit_card(st, lambda code, _: CardDiscarded(position=None, card=code), last.card, False)
        return
    seat = rnd.seats.pop(last)
    rnd.step = seat.step
    cancel(st, confirm_timer(seat.position))
    if seat.card is not None and rnd.holder(seat.card) is None:
        rnd.burned.add(seat.card)
    emit_card(st, lambda code, _: CardDiscarded(position=last, card=code), seat.card, seat.public)


def _apply_rescan(st: TableState, _: Command) -> None:
    rnd = st.active
    assert rnd is not None
    st.source.rescan(st, rnd)


def _apply_cancel_rescan(st: TableState, _: Command) -> None:
    rnd = st.active
    assert rnd is not None and rnd.rescan is not None
    left, rnd.rescan = len(rnd.rescan), None
    detail = f"cancelled by the shift manager with {left} card(s) still to read"
    emit(st, RescanFinished(matched=False, detail=detail), "restricted")


def _apply_acknowledge(st: TableState, _: Command) -> None:
    # The manager vouches for a device that latched a fault (a restarted or replaced shoe
    # never reports one cleared) or went silent. It is watched afresh from now: one still
    # broken reports again, one still silent goes silent again after the usual time.
    for device, status in list(st.devices.items()):
        if status != "ok":
            set_health(st, device, "ok", "acknowledged by the shift manager")
            heard(st, device)


def _apply_void(st: TableState, _: Command) -> None:
    rnd = st.active
    if rnd is None:
        # Paused between rounds there is no round to void: the pause ends whatever blocks
        # a resume; a device still broken keeps new rounds from opening until acknowledged.
        resume(st)
        return
    # The manager's note may name a face-down card: it stays in the restricted
    # command_accepted; the public round_voided only says who voided it, generically.
    void(st, rnd, VOID_REASON)


MANAGER: frozenset[Role] = frozenset({"shift_manager"})
FLOOR: frozenset[Role] = frozenset({"dealer", "shift_manager"})

COMMANDS: Mapping[CommandName, CommandSpec] = {
    "start_round": CommandSpec(
        FLOOR, _check_start, lambda st, _: open_round(st), record_after=True
    ),
    "call_manager": CommandSpec(FLOOR, _check_call, _apply_call),
    "new_deck": CommandSpec(FLOOR, _check_new_deck, lambda st, _: change_deck(st)),
    # Resolving a pause is the shift manager's alone (docs/games.md: faults latch until they act).
    "resume": CommandSpec(MANAGER, _check_resume, lambda st, _: resume(st)),
    "correct_card": CommandSpec(
        MANAGER,
        _check_paused_round,
        _apply_correct,
        arguments=("position", "card"),
        check_arguments=_check_correction,
    ),
    "discard_last_card": CommandSpec(MANAGER, _check_discard, _apply_discard),
    "rescan": CommandSpec(MANAGER, _check_rescan, _apply_rescan),
    "cancel_rescan": CommandSpec(MANAGER, _check_cancel_rescan, _apply_cancel_rescan),
    "acknowledge_device": CommandSpec(MANAGER, _check_acknowledge, _apply_acknowledge),
    # The manager has the pause in hand: the alarm's escalation stops (the console's webhook).
    # It changes nothing at the table; the command is put on record, by whom and when, so the
    # table's journal shows who took the alarm (`alice via console`), not just the console.
    "acknowledge_alarm": CommandSpec(MANAGER, _check_acknowledge_alarm, lambda st, _: None),
    "void": CommandSpec(MANAGER, _check_void, _apply_void),
    # Carried out by the runtime (it hashes the files, studio.runtime.safeguards): the command
    # is only put on record here, by whom and when.
    "check_integrity": CommandSpec(MANAGER, lambda st, _: None, lambda st, _: None),
}
"""Every command the controller knows (the `CommandName` type lists the same names)."""

if set(COMMANDS) != set(get_args(CommandName)):  # pragma: no cover - a programming error
    raise RuntimeError("COMMANDS and CommandName must name the same commands")

ROLES: Mapping[str, frozenset[Role]] = {name: spec.roles for name, spec in COMMANDS.items()}
"""Who may give each command (read from `COMMANDS`)."""

_ARGUMENT_NAMES = ("position", "card")


def check(st: TableState, command: Command) -> str | None:
    """Why `command` would be refused now (one line), or None when it would apply."""
    spec = COMMANDS[command.command]
    if command.role not in spec.roles:
        roles = " or ".join(sorted(spec.roles))
        return f"{command.command} needs the role {roles}, not {command.role}"
    reason = spec.check(st, command)
    if reason is not None:
        return reason
    extra = [n for n in _ARGUMENT_NAMES if getattr(command, n) is not None]
    extra = [n for n in extra if n not in spec.arguments]
    if extra:
        return f"{command.command} takes no {' or '.join(extra)}"
    if spec.check_arguments is not None:
        return spec.check_arguments(st, command)
    return None


def handle_command(st: TableState, command: Command) -> None:
    """Refuse `command` (restricted `command_rejected`) or record and apply it."""
    reason = check(st, command)
    if reason is not None:
        emit(
            st,
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
    spec = COMMANDS[command.command]
    if spec.record_after:
        spec.apply(st, command)
        emit(st, accepted, "restricted")
        return
    emit(st, accepted, "restricted")
    spec.apply(st, command)
