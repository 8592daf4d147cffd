"""A whole table played headless: simulated dealer and shift manager around the real controller.

`SimulatedTable` drives a `RecordedTable` (the real controller behind the real journal): it reads
the controller's `view()` (a `TableView`) to see what the table waits for, and answers like
staff would.
The dealer opens rounds, draws from the shoe into the position the controller expects, lets the
simulated clock run to each deadline (betting, decision windows) with a tick, and the camera
confirms every card. Faults are injected by rate (`studio.simulation.faults`); the shift manager
answers every pause with `resume` (after the correction the incident needs) or `void`.

Every injected fault is counted under the incident kind it must cause, so a caller can check
that each fault produced its incident and nothing else produced one.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from studio.cards import DECK
from studio.errors import SimulationError
from studio.games.model import DealCard
from studio.journal import RecordedTable
from studio.messages import (
    Command,
    CommandName,
    Device,
    DeviceStatus,
    Envelope,
    Input,
    Role,
    Tick,
)
from studio.messages.view import TableView, TimerKind
from studio.simulation.devices import SimulatedCamera, SimulatedClock, SimulatedShoe
from studio.simulation.faults import INCIDENT_OF, NO_FAULTS, FaultRates
from studio.simulation.staff import (
    AnnounceDeck,
    DiscardCard,
    DrawCard,
    LookAt,
    OpenRound,
    RedrawCard,
    RepairDevices,
    Resume,
    StaffAction,
    StaffConfig,
    TakeAway,
    TurnCards,
    Void,
    Wait,
    WaitFor,
    next_action,
)

ManagerPolicy = Literal["resume", "void"]
"""The headless shift manager always answers (a person never comes to a simulated table)."""

DRAW_SECONDS = 1.5
"""Between two cards drawn by the dealer: well inside the deal timeout."""
CAMERA_LAG_SECONDS = 0.2
"""From a card landing to the camera's sighting: well inside the confirmation time."""
MANAGER_SECONDS = 20.0
"""From a pause to the shift manager's answer (timers are frozen meanwhile)."""
ROUND_GAP_SECONDS = 5.0
"""From the end of one round to the dealer opening the next."""
DEALER = "dealer-sim"
MANAGER = "manager-sim"
_STUCK_AFTER = 8


@dataclass(slots=True)
class SimulationSummary:
    """What a simulation run did.

    `rounds_completed` and `rounds_voided` count rounds that ended during the run (a round
    recovered from a crash included); `incidents` counts every incident by kind; `events`
    counts the events published during the run; `injected` counts injected faults by the
    incident kind they must cause (a restart that paused a round counts as
    `controller_restarted`).
    """

    rounds_completed: int = 0
    rounds_voided: int = 0
    incidents: Counter[str] = field(default_factory=Counter)
    events: int = 0
    injected: Counter[str] = field(default_factory=Counter)

    def to_json(self) -> dict[str, Any]:
        """The `studio simulate --json` object: rounds, incidents by kind, events."""
        return {
            "rounds_completed": self.rounds_completed,
            "rounds_voided": self.rounds_voided,
            "incidents": dict(sorted(self.incidents.items())),
            "events": self.events,
        }

    def text(self) -> str:
        """One line for a person."""
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.incidents.items())) or "none"
        return (
            f"{self.rounds_completed} rounds completed, {self.rounds_voided} voided, "
            f"{self.events} events; incidents: {kinds}"
        )


class SimulatedTable:
    """The simulated staff and devices around one `RecordedTable` (see the module docstring).

    `controller` must be the table's controller (for its `view()`); `seed` makes the run
    reproducible; `manager` is the shift manager's answer to every pause. `camera_only` (a
    camera-only table, `card_source = "camera"`): the dealer lays the shoe's cards by hand and
    only the camera reports them, face-down cards when turned at their reveal.
    `new_deck_every_round` (the table's setting): the dealer announces each round's deck.
    """

    def __init__(
        self,
        table: RecordedTable,
        view: Callable[[], TableView],
        *,
        clock: SimulatedClock,
        seed: int | str,
        faults: FaultRates = NO_FAULTS,
        manager: ManagerPolicy = "resume",
        camera: bool,
        faces: dict[str, str],
        camera_only: bool = False,
        new_deck_every_round: bool = False,
    ) -> None:
        self._table = table
        self._view = view
        self._clock = clock
        self._rng = random.Random(seed)
        self._shoe = SimulatedShoe(self._rng)
        self._camera = SimulatedCamera() if camera else None
        self._faults = faults
        self._manager = manager
        self._faces = faces
        self._camera_only = camera_only and camera
        self._laid: dict[str, str] = {}
        self._rolled: set[tuple[str | None, int]] = set()
        self._answering: tuple[str | None, int] | None = None
        self._staff = StaffConfig(
            camera=camera,
            camera_only=self._camera_only,
            manager=manager,
            new_deck_every_round=new_deck_every_round,
        )
        self.summary = SimulationSummary()

    # -- publishing ---------------------------------------------------------------------------

    def submit(self, inp: Input) -> list[Envelope]:
        """Apply one input and journal it with its events; count what they say; return them.

        The same step as `studio run`'s (`RecordedTable.step`): the input and its events commit
        in one fsynced transaction, so a crash keeps both or neither. Raises `SimulationError`
        when the controller refuses a command the staff gave, and `JournalError` when the write
        fails (the run ends there: the controller is ahead of the journal).
        """
        events = [stored.envelope for stored in self._table.step(inp)]
        self.observe(events)
        return events

    def observe(self, events: list[Envelope]) -> None:
        """Count `events` into the summary; raises `SimulationError` for a refused command."""
        summary = self.summary
        summary.events += len(events)
        for event in events:
            kind = event.type
            if kind == "round_paused":
                summary.incidents[event.body["kind"]] += 1
            elif kind == "round_result":
                summary.rounds_completed += 1
            elif kind == "round_voided":
                summary.rounds_voided += 1
            elif kind == "command_rejected":
                body = event.body
                raise SimulationError(
                    f"the controller refused {body['role']} {body['actor']}'s "
                    f"{body['command']}: {body['reason']}"
                )

    def _command(self, name: CommandName, *, manager: bool) -> list[Envelope]:
        role: Role = "shift_manager" if manager else "dealer"
        actor = MANAGER if manager else DEALER
        return self.submit(Command(ts=self._clock.now, actor=actor, role=role, command=name))

    # -- the run --------------------------------------------------------------------------------

    def resume_deck(self, used: set[str]) -> None:
        """Load the shoe for a round recovered in progress, without the cards it already used."""
        self._shoe.new_deck(used)

    def run(
        self, rounds: int, progress: Callable[[int, int], None] | None = None
    ) -> SimulationSummary:
        """Finish any round in progress, then play `rounds` more; return the summary.

        `progress(done, rounds)` is called as each round is about to open and once all are played.

        The staff follow `studio.simulation.staff.next_action`; this carries each action out
        with the simulated devices and clock. Raises `SimulationError` when the table stops
        moving or refuses the staff.
        """
        started = 0
        idle = 0
        while True:
            snap = self._view()
            before = self.summary.events
            action = next_action(snap, self._staff)
            if isinstance(action, OpenRound) and progress is not None:
                progress(started, rounds)
            if isinstance(action, OpenRound) and started >= rounds:
                return self.summary
            started += isinstance(action, OpenRound)
            self._carry_out(action, snap)
            idle = idle + 1 if self.summary.events == before else 0
            if idle >= _STUCK_AFTER:
                raise SimulationError(f"the simulated table stopped moving: {snap}")

    def _carry_out(self, action: StaffAction, snap: TableView) -> None:
        if snap.paused and not isinstance(action, RedrawCard):
            self._answer_pause(snap)
        match action:
            case RedrawCard(code=code):
                # An unreadable record is filled by the re-scan: a card not dealt yet.
                card = code or self._shoe.draw()
                self.submit(self._shoe.reading(card, self._clock.advance(DRAW_SECONDS)))
            case RepairDevices(devices=devices):
                for device in devices:
                    now = self._clock.now
                    self.submit(DeviceStatus(ts=now, device=device, status="ok", detail="repaired"))
            case AnnounceDeck():
                self._command("new_deck", manager=False)
            case DiscardCard():
                self._command("discard_last_card", manager=True)
            case TakeAway():
                self._take_away()
            case Resume():
                events = self._command("resume", manager=True)
                if not any(e.type == "round_resumed" for e in events):
                    raise SimulationError(f"the table did not resume: {snap}")
            case Void(blockers=blockers):
                if blockers and self._manager == "resume":
                    raise SimulationError(f"the table cannot resume ({'; '.join(blockers)})")
                self._command("void", manager=True)
            case LookAt(positions=positions):
                self._look(snap, positions)
            case OpenRound():
                self._start()
            case WaitFor(deadline=deadline):
                if snap.phase == "window":
                    self._window(snap)
                else:
                    self._tick(deadline)
            case TurnCards():
                self._turn(snap)
            case DrawCard():
                self._deal(snap)
            case Wait():
                raise SimulationError(f"the simulated dealer does not know what to do: {snap}")

    def _answer_pause(self, snap: TableView) -> None:
        """The shift manager takes a while to come to a pause (timers are frozen meanwhile)."""
        key = (snap.game_number, len(snap.incidents))
        if key != self._answering:
            self._answering = key
            self._clock.advance(MANAGER_SECONDS)

    def _tick(self, deadline: datetime) -> None:
        self._clock.advance_to(deadline)
        self.submit(Tick(ts=self._clock.now))

    def _start(self) -> None:
        self._clock.advance(ROUND_GAP_SECONDS)
        self._shoe.new_deck()
        self._laid = {}
        self._command("start_round", manager=False)

    def _roll(self, rate: float) -> bool:
        return rate > 0 and self._rng.random() < rate

    # -- the dealer -----------------------------------------------------------------------------

    def _deal(self, snap: TableView) -> None:
        position = snap.expecting
        assert position is not None
        faults, now = self._faults, self._clock.advance(DRAW_SECONDS)
        if self._roll(faults.device):
            devices: list[Device] = ["shoe", "camera"] if self._camera is not None else ["shoe"]
            if self._camera_only:
                devices = ["camera"]
            device = self._rng.choice(devices)
            self.summary.injected[INCIDENT_OF["device"]] += 1
            self.submit(
                DeviceStatus(
                    ts=now, device=device, status="fault", detail="simulated fault", raw="sim:E"
                )
            )
            return
        held = [code for code in snap.positions.values() if code is not None]
        fault = self._card_fault(bool(held))
        if self._camera_only:
            self._lay(position, held, fault, now)
            return
        if fault == "duplicate":
            self.summary.injected[INCIDENT_OF["duplicate"]] += 1
            self.submit(self._shoe.reading(self._rng.choice(held), now))
            return
        if fault == "unreadable":
            self._shoe.draw()
            self.summary.injected[INCIDENT_OF["unreadable"]] += 1
            self.submit(self._shoe.reading(None, now))
            return
        code = self._shoe.draw()
        self.submit(self._shoe.reading(code, now))
        if self._camera is None:
            return
        if faults.out_of_turn > 0 and self._after_last_card():
            return
        seen_at = self._clock.advance(CAMERA_LAG_SECONDS)
        if fault == "mismatch":
            others = sorted(set(_ALL_CODES) - {code})
            self.summary.injected[INCIDENT_OF["mismatch"]] += 1
            self.submit(self._camera.sighting(position, "up", self._rng.choice(others), seen_at))
            return
        self.submit(self._camera.sighting(position, self._faces[position], code, seen_at))

    def _card_fault(self, anything_held: bool) -> str | None:
        """Which fault, if any, this draw carries: one roll, at most one fault per card."""
        faults, draw = self._faults, self._rng.random()
        if draw < faults.duplicate:
            # A duplicate needs a card already on the table; the first card cannot be one.
            return "duplicate" if anything_held else None
        draw -= faults.duplicate
        if draw < faults.unreadable:
            return "unreadable"
        draw -= faults.unreadable
        if draw < faults.mismatch and self._camera is not None:
            return "mismatch"
        return None

    def _after_last_card(self) -> bool:
        """Maybe draw one card too many right after a stage's last card; True if it did.

        With a camera the table waits for its confirmation after a stage's last card, so this
        is the moment "after the last card" exists (without one the table moves straight on).
        """
        snap = self._view()
        if snap.paused or snap.phase != "confirming" or not self._roll(self._faults.out_of_turn):
            return False
        now = self._clock.advance(CAMERA_LAG_SECONDS / 2)
        self.summary.injected[INCIDENT_OF["out-of-turn"]] += 1
        self.submit(self._shoe.reading(self._shoe.draw(), now))
        return True

    def _lay(self, position: str, held: list[str], fault: str | None, now: datetime) -> None:
        """Camera-only: lay the next card at `position`; the camera alone reports it.

        Faults a camera can see while dealing: a duplicate or a card it cannot read (both only
        where the card lies face up: a face-down card is read at its reveal), and a card seen
        as another one just after it was seated.
        """
        assert self._camera is not None
        face = self._faces[position]
        if fault == "duplicate" and face == "up":
            self.summary.injected[INCIDENT_OF["duplicate"]] += 1
            code = self._rng.choice(held)
            self._laid[position] = code
            self.submit(self._camera.sighting(position, face, code, now))
            return
        code = self._shoe.draw()
        self._laid[position] = code
        if fault == "unreadable" and face == "up":
            self.summary.injected[INCIDENT_OF["unreadable"]] += 1
            self.submit(self._camera.sighting(position, "up", None, now))
            self._tick(_deadline(self._view(), "deal"))
            return
        self.submit(self._camera.sighting(position, face, code, now))
        after = self._view()
        # A round whose last card this was has ended: there is no seat left to contradict.
        if fault == "mismatch" and face == "up" and not after.paused and after.phase != "idle":
            others = sorted(set(_ALL_CODES) - {code})
            seen_at = self._clock.advance(CAMERA_LAG_SECONDS)
            self.summary.injected[INCIDENT_OF["mismatch"]] += 1
            self.submit(self._camera.sighting(position, "up", self._rng.choice(others), seen_at))

    def _turn(self, snap: TableView) -> None:
        """Camera-only: the dealer turns the face-down cards the table waits to see."""
        assert self._camera is not None
        for position in snap.turning:
            now = self._clock.advance(DRAW_SECONDS)
            if position not in self._laid:
                # A round recovered after a crash: what lies face down is the deck's business.
                self._laid[position] = self._shoe.draw()
            self.submit(self._camera.sighting(position, "up", self._laid[position], now))
            if self._view().paused:
                return

    def _window(self, snap: TableView) -> None:
        key = (snap.game_number, len(snap.cards))
        if key not in self._rolled:
            self._rolled.add(key)
            free = [p for p in self._faces if p not in snap.positions]
            # Camera-only, a card out of turn needs a free position to be laid at.
            if self._roll(self._faults.out_of_turn) and (free or not self._camera_only):
                deadline = _deadline(snap, "window")
                self._clock.now += (deadline - self._clock.now) / 2
                self.summary.injected[INCIDENT_OF["out-of-turn"]] += 1
                if self._camera_only:
                    self._lay_out_of_turn(free[0])
                    return
                self.submit(self._shoe.reading(self._shoe.draw(), self._clock.now))
                return
        self._tick(_deadline(snap, "window"))

    def _lay_out_of_turn(self, position: str) -> None:
        """Camera-only: lay a card at `position` (free) while a window is open."""
        assert self._camera is not None
        code = self._shoe.draw()
        self._laid[position] = code
        face = self._faces[position]
        self.submit(self._camera.sighting(position, face, code, self._clock.now))

    def _look(self, snap: TableView, pending: tuple[str, ...]) -> None:
        """The camera looks again at every card it has not confirmed (after a mismatch)."""
        assert self._camera is not None
        for position in pending:
            now = self._clock.advance(CAMERA_LAG_SECONDS)
            code = snap.positions[position]
            self.submit(self._camera.sighting(position, self._faces[position], code, now))

    # -- the shift manager ----------------------------------------------------------------------

    def _take_away(self) -> None:
        """Camera-only: the dealer takes away every card lying where none is on record."""
        assert self._camera is not None
        seated = self._view().positions
        for position in [p for p in self._laid if p not in seated]:
            del self._laid[position]
            now = self._clock.advance(CAMERA_LAG_SECONDS)
            self.submit(self._camera.sighting(position, "none", None, now))


def _deadline(view: TableView, kind: TimerKind) -> datetime:
    """When the running timer of `kind` fires (the staff only wait on running timers)."""
    timer = view.timer(kind)
    if timer is None or timer.deadline is None:
        raise SimulationError(f"the table runs no {kind} timer: {view}")
    return timer.deadline


def card_faces(deals: tuple[DealCard, ...]) -> dict[str, str]:
    """Each position's face ("up" or "down") from a game's deal steps."""
    return {deal.position: deal.face.value for deal in deals}


_ALL_CODES = tuple(card.code for card in DECK)
