"""The controller's mutable state as plain records, and the queries that read it.

Nothing here emits events or moves time: `studio.controller.core` changes these records and
`studio.controller.table` checks commands against them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from studio.cards import Card
from studio.games.model import DealCard, DecisionWindow, Face, GameRules
from studio.messages import TableSettings

Micros = int
"""A time or a duration in microseconds (Unix epoch for times): exact and deterministic."""

SECOND: Micros = 1_000_000


def micros(seconds: float) -> Micros:
    """`seconds` as whole microseconds."""
    return round(seconds * SECOND)


@dataclass(slots=True)
class Seat:
    """A card lying at a position: its record (None: unreadable), face, when it was dealt.

    `number` counts the round's cards from 1; `step` is its index in the dealing script;
    `confirmed` says the camera saw it (always True on a table without a camera);
    `announced` says its `card_dealt` (or a `card_corrected`) went out: a duplicate or unreadable
    card is recorded without one, and a resume announces it if no correction did. `pending`
    marks a face-down card on a camera-only table: `card` is None because nobody knows its value
    yet (not because it was unreadable); the camera reads it when it is turned.
    """

    position: str
    face: Face
    card: Card | None
    number: int
    step: int
    confirmed: bool
    revealed: bool = False
    announced: bool = False
    pending: bool = False

    @property
    def public(self) -> bool:
        """Whether the card's value may go to the public stream (face up, or turned)."""
        return self.face is Face.UP or self.revealed


@dataclass(frozen=True, slots=True)
class Incident:
    """A fault that paused the table, with its detail for the shift manager."""

    number: int
    kind: str
    position: str | None
    cards: tuple[str, ...]
    device: str | None
    raw: str
    detail: str

    def to_json(self) -> dict[str, Any]:
        """The incident as JSON types (the restricted view)."""
        return {
            "incident": self.number,
            "kind": self.kind,
            "position": self.position,
            "cards": list(self.cards),
            "device": self.device,
            "raw": self.raw,
            "detail": self.detail,
        }


@dataclass(slots=True)
class Stray:
    """A card drawn when the script expected none (None: it was also unreadable)."""

    card: Card | None


@dataclass(slots=True)
class Round:
    """One round in progress (or just finished): its number, script position and cards.

    `step` is the index in the script of the next step; `phase` is "betting", "dealing",
    "window", "confirming" (waiting for the camera before a window, reveal or result),
    "revealing" (camera-only: waiting to see the face-down cards turned) or "done".
    `drawn` lists what lies on the table in drawing order (a Seat's position or a Stray), so
    the last card can be taken back. `burned` holds discarded cards: drawing one again is a
    duplicate. `rescan` lists the positions still to be re-read in a re-scan (None: none).
    """

    game_number: str
    started: Micros
    phase: str = "betting"
    light: str = "green"
    step: int = 0
    seats: dict[str, Seat] = field(default_factory=dict)
    drawn: list[str | Stray] = field(default_factory=list)
    burned: set[Card] = field(default_factory=set)
    last_window_step: int = -1
    sightings: dict[str, tuple[str, str | None, str]] = field(default_factory=dict)
    rescan: list[str] | None = None

    @property
    def in_progress(self) -> bool:
        """Whether the round has neither a result nor a void yet."""
        return self.phase != "done"

    @property
    def strays(self) -> list[Stray]:
        """The out-of-turn cards still on record."""
        return [d for d in self.drawn if isinstance(d, Stray)]

    def holder(self, card: Card) -> str | None:
        """Where `card` already is this round: a position, "out of turn", "discarded" or None."""
        for seat in self.seats.values():
            if seat.card == card:
                return seat.position
        if any(s.card == card for s in self.strays):
            return "out of turn"
        return "discarded" if card in self.burned else None


def next_deal(rules: GameRules, rnd: Round) -> DealCard | None:
    """The deal step the next card goes to, when the script is at one; else None."""
    if rnd.phase != "dealing" or rnd.step >= len(rules.script):
        return None
    step = rules.script[rnd.step]
    return step if isinstance(step, DealCard) else None


def open_window(rules: GameRules, rnd: Round) -> DecisionWindow | None:
    """The decision window open now, if any."""
    if rnd.phase != "window":
        return None
    step = rules.script[rnd.step]
    return step if isinstance(step, DecisionWindow) else None


@dataclass(slots=True)
class TableState:
    """Everything the controller knows between two inputs.

    `timers` maps a timer name to its deadline; while `paused`, `frozen` maps it to the time it
    had left instead (docs/games.md: a paused round resumes where it stopped). `devices` is each
    monitored device's health: "ok", "fault" or "silent".
    """

    settings: TableSettings
    rules: GameRules
    now: Micros | None = None
    seq: int = 0
    round: Round | None = None
    paused: bool = False
    incidents: list[Incident] = field(default_factory=list)
    incident_count: int = 0
    timers: dict[str, Micros] = field(default_factory=dict)
    frozen: dict[str, Micros] = field(default_factory=dict)
    devices: dict[str, str] = field(default_factory=dict)
    last_second: str = ""
    same_second: int = 0

    @property
    def active(self) -> Round | None:
        """The round in progress, or None."""
        return self.round if self.round is not None and self.round.in_progress else None


def sighting_verdict(seat: Seat, face: str, code: str | None) -> bool | None:
    """Whether a sighting confirms (True) or contradicts (False) a seat; None: it says nothing.

    A turned card may still be seen face down for a moment: the reveal is announced first. A
    face-up card the camera cannot read says nothing (a wrong read is worse than none). A
    pending card (face down, value unknown) is contradicted by any face-up sighting: its value
    may only be read at its reveal (the camera-only reveal, `studio.controller.camera`).
    """
    if face == "none" or (seat.card is None and not seat.pending):
        return None
    if face == "down":
        return seat.face is Face.DOWN
    if code is None:
        return None
    if seat.card is None:
        return False
    return (seat.face is Face.UP or seat.revealed) and code == seat.card.code


def described(face: str, code: str | None) -> str:
    """What a sighting showed, for an incident's detail."""
    if code is not None:
        return code
    return {"down": "a card face down", "up": "a card it cannot read"}.get(face, "nothing")


def incident_cards(recorded: Card | None, seen: str | None) -> tuple[str, ...]:
    """An incident's cards: the recorded one (when known), then the one seen (when read)."""
    return tuple(c for c in (recorded.code if recorded else None, seen) if c is not None)


def rescan_blocker(left: list[str]) -> str:
    """The line that says a re-scan is running, and how it ends."""
    count = len(left)
    return f"a re-scan is in progress ({count} card(s) still to read): draw them or cancel_rescan"


def resume_blockers(state: TableState) -> list[str]:
    """Why a resume would be refused now, one line each (empty: it may resume).

    Each line names the action that clears it; `void` clears them all (see `studio.controller`).
    """
    reasons = [
        f"the {d} is {s}: acknowledge_device once it works"
        for d, s in state.devices.items()
        if s != "ok"
    ]
    rnd = state.active
    if rnd is None:
        return reasons
    if rnd.rescan is not None:
        reasons.append(rescan_blocker(rnd.rescan))
    held: dict[Card, str] = {}
    for seat in rnd.seats.values():
        if seat.card is None:
            if not seat.pending:
                reasons.append(f"{seat.position} has no readable card: correct or discard it")
        elif seat.card in held:
            reasons.append(
                f"{seat.card.code} is recorded at {held[seat.card]} and {seat.position}: "
                "correct or discard one"
            )
        else:
            held[seat.card] = seat.position
    if rnd.strays:
        reasons.append(f"{len(rnd.strays)} card(s) drawn out of turn are still on record: discard")
    if state.settings.card_source == "camera":
        # On a camera-only table the camera is the record: a card lying where none was dealt
        # must be taken away (the camera sees the zone empty) before the round goes on.
        reasons.extend(
            f"a card lies at {zone} where none was dealt: take it away"
            for zone, (face, _, _) in rnd.sightings.items()
            if face != "none" and zone not in rnd.seats
        )
    return reasons
