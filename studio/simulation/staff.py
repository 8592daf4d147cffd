"""The simulated staff's policy: what the dealer, the camera and the shift manager do next.

One pure function, `next_action(view, staff)`, reads the table's `TableView` as a person reads
the table and says what the staff does next. Both simulated tables follow it: the headless one
(`studio.simulation.table`, a simulated clock, faults injected by rate) and the real-time one
of `studio run` (`studio.runtime.dealer`, a real shoe line and clock). They differ only in how
they carry an action out (a simulated shoe or a pty, a tick or the runtime's clock, a repaired
device reported or vouched for) and when (pacing), never in what the staff decides.

The order is the staff's priorities: a re-scan the manager asked for is fed first; a paused
table goes to the shift manager (a broken device is repaired, a round opened without a fresh
deck gets one, cards that block a resume are discarded or taken away, then the round resumes;
it is voided when nothing else clears it or the manager's answer is to void); the camera looks
at every card still awaiting confirmation; then the dealer announces a freshly shuffled deck
where the table checks for one, opens a round, lets the betting time and decision windows run
out, turns the cards a camera-only table waits to see, and draws the next card.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from studio.messages import Device
from studio.messages.view import TableView

ManagerAnswer = Literal["resume", "void", "none"]
"""The shift manager's answer to a pause: resume when possible, void, or wait for a person."""


@dataclass(frozen=True, slots=True)
class StaffConfig:
    """Who is at the table.

    `camera` reports sightings; `camera_only` (a table whose card source is the camera) has the
    dealer lay cards by hand; `manager` answers pauses; `new_deck_every_round` (the table's
    setting of that name) has the dealer announce each round's freshly shuffled deck.
    """

    camera: bool
    camera_only: bool = False
    manager: ManagerAnswer = "resume"
    new_deck_every_round: bool = False


@dataclass(frozen=True, slots=True)
class OpenRound:
    """The dealer opens the next round (`start_round`)."""


@dataclass(frozen=True, slots=True)
class AnnounceDeck:
    """The dealer announces the deck just shuffled (`new_deck`): each round needs a fresh one."""


@dataclass(frozen=True, slots=True)
class DrawCard:
    """The dealer draws the next card into `position` (camera-only: lays it there by hand)."""

    position: str


@dataclass(frozen=True, slots=True)
class RedrawCard:
    """A re-scan: the dealer feeds the card recorded at `position` through the shoe again.

    `code` None: the record is unreadable, and the card lying there is one not dealt yet.
    """

    position: str
    code: str | None


@dataclass(frozen=True, slots=True)
class LookAt:
    """The camera reports what lies at `positions` (cards awaiting its confirmation)."""

    positions: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TurnCards:
    """Camera-only, at a reveal: the dealer turns the face-down cards at `positions`, in order."""

    positions: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class WaitFor:
    """Nothing to do before `deadline` (betting time, a decision window): time runs out."""

    deadline: datetime


@dataclass(frozen=True, slots=True)
class RepairDevices:
    """A technician gets `devices` working again, and the shift manager vouches for them."""

    devices: tuple[Device, ...]


@dataclass(frozen=True, slots=True)
class DiscardCard:
    """The shift manager discards the last card (`discard_last_card`): it blocks a resume."""


@dataclass(frozen=True, slots=True)
class TakeAway:
    """Camera-only: the dealer takes away the cards lying where none was dealt."""


@dataclass(frozen=True, slots=True)
class Resume:
    """The shift manager resumes the round (`resume`): nothing blocks it."""


@dataclass(frozen=True, slots=True)
class Void:
    """The shift manager voids (`void`): the round (or, between rounds, the pause) ends.

    `blockers` are what kept the table from resuming (empty when voiding was the answer).
    """

    blockers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Wait:
    """Nothing for the staff to do: a person decides, or the table works on its own."""


StaffAction = (
    OpenRound
    | AnnounceDeck
    | DrawCard
    | RedrawCard
    | LookAt
    | TurnCards
    | WaitFor
    | RepairDevices
    | DiscardCard
    | TakeAway
    | Resume
    | Void
    | Wait
)
"""Everything the simulated staff may do at a table."""


def next_action(view: TableView, staff: StaffConfig) -> StaffAction:
    """What the staff does next at the table `view` shows (see the module docstring).

    Pure: the same view and staff always give the same action; the caller carries it out and
    asks again with the view that follows.
    """
    if view.rescan_next is not None:
        # Fed whoever asked for the re-scan (a person or the simulated manager).
        return RedrawCard(view.rescan_next, view.positions.get(view.rescan_next))
    if view.paused:
        return _manage(view, staff)
    if staff.camera:
        waiting = tuple(t.position for t in view.timers if t.kind == "confirm" and t.position)
        if waiting:
            return LookAt(waiting)
    if view.phase == "idle":
        if staff.new_deck_every_round and (view.deck is None or view.deck_dealt is not None):
            # The dealer shuffles after every round and says so before the next opens.
            return AnnounceDeck()
        return OpenRound()
    if view.phase in ("betting", "window"):
        deadlines = [t.deadline for t in view.timers if t.deadline is not None]
        # The earliest first: the betting light's yellow is journalled at its own time.
        return WaitFor(min(deadlines)) if deadlines else Wait()
    if view.turning and staff.camera_only:
        return TurnCards(view.turning)
    if view.expecting is not None:
        return DrawCard(view.expecting)
    return Wait()


def _manage(view: TableView, staff: StaffConfig) -> StaffAction:
    if staff.manager == "none":
        return Wait()
    broken = tuple(device for device, status in view.devices.items() if status != "ok")
    if broken:
        # The technician repairs whatever the manager then decides for the round.
        return RepairDevices(broken)
    if staff.manager == "void" and view.phase != "idle":
        return Void()
    # Each blocker names the commands that clear it (`studio.messages.view.ResumeBlocker`).
    actions = {action for blocker in view.blockers for action in blocker.actions}
    if "new_deck" in actions:
        # A round opened on a deck already dealt waits for the dealer's freshly shuffled one.
        return AnnounceDeck()
    if "discard_last_card" in actions:
        return DiscardCard()
    if staff.camera_only and any(b.kind == "card_outside_deal" for b in view.blockers):
        # The camera is the record: the card goes once the dealer takes it away.
        return TakeAway()
    if not view.resume_blockers:
        return Resume()
    return Void(view.resume_blockers)
