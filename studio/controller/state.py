"""The controller's state as one typed structure of plain records, and the queries that read it.

Nothing here emits events or moves time: the behaviour modules (`dealing`, `timers`, `incidents`,
`confirmation`, `commands`, and the card sources `shoe_source` / `camera_source`) are functions
that change a `TableState`. `CardSource` is the one seam where the table's card source (a shoe,
or the camera alone) changes behaviour; it is chosen once, when the state is made.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, NamedTuple, Protocol

from studio.cards import Card
from studio.games.model import DealCard, DecisionWindow, Face, GameRules, Reveal
from studio.messages import CardDrawn, CardSeen, Device, Envelope, TableSettings
from studio.messages.view import ResumeBlocker, TimerKind

Micros = int
"""A time or a duration in microseconds (Unix epoch for times): exact and deterministic."""

SECOND: Micros = 1_000_000

Phase = Literal["betting", "dealing", "window", "confirming", "revealing", "done"]
"""Where a round is (see `Round`)."""

Light = Literal["green", "yellow", "red"]
"""The betting light."""

Health = Literal["ok", "fault", "silent"]
"""A monitored device's health."""


class Sighting(NamedTuple):
    """What the camera last saw in a zone.

    `face` is "up", "down" or "none"; `code` the card it read (None: none, or unreadable);
    `raw` its report, for an incident.
    """

    face: str
    code: str | None
    raw: str


NOTHING = Sighting("none", None, "")
"""A zone the camera has reported nothing for."""


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
    `deck` is the id of the deck the round is dealt from; `deck_reused` says why that deck is
    not a fresh one, while the table requires one per round (None: it is fresh, or not required).
    """

    game_number: str
    started: Micros
    phase: Phase = "betting"
    light: Light = "green"
    step: int = 0
    seats: dict[str, Seat] = field(default_factory=dict)
    drawn: list[str | Stray] = field(default_factory=list)
    burned: set[Card] = field(default_factory=set)
    last_window_step: int = -1
    sightings: dict[str, Sighting] = field(default_factory=dict)
    rescan: list[str] | None = None
    deck: str | None = None
    deck_reused: str | None = None

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
        # Plain loops, no `strays` list, no hash of an empty `burned`: this runs for every card
        # before its commit, where each Python call (a generator's step too) costs several
        # times its warm figure.
        for seat in self.seats.values():
            if seat.card == card:
                return seat.position
        for drawn in self.drawn:
            if isinstance(drawn, Stray) and drawn.card == card:
                return "out of turn"
        return "discarded" if self.burned and card in self.burned else None


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


class TimerName(NamedTuple):
    """A timer: its kind and, for `confirm` its position, for `silent` its device.

    Timers due at the same time fire in the order of their names (kind, then subject).
    """

    kind: TimerKind
    subject: str = ""

    def __str__(self) -> str:
        return f"{self.kind}:{self.subject}" if self.subject else self.kind


class CardSource(Protocol):
    """Where a table's cards come from: the shoe (optionally confirmed by a camera), or the camera.

    Each method is the source's whole answer for one moment of the round; the dealing and
    command functions call them and never test which source the table has.
    """

    @property
    def devices(self) -> tuple[Device, ...]:
        """The devices the table watches for faults and silence, in reporting order."""

    def card_drawn(self, st: TableState, inp: CardDrawn) -> None:
        """A shoe reported a drawn card."""

    def card_seen(self, st: TableState, inp: CardSeen) -> None:
        """The camera reported what lies in a zone."""

    def turn_cards(self, st: TableState, rnd: Round, step: Reveal) -> bool:
        """Turn a reveal step's face-down cards; False while the reveal must wait."""

    def deal_timed_out(self, st: TableState) -> None:
        """The deal timer fired: no card (or no readable card) came in time."""

    def rescan(self, st: TableState, rnd: Round) -> None:
        """Start (or, for the camera, carry out) a re-scan of the round's cards."""

    def corrected(self, st: TableState, rnd: Round, seat: Seat) -> None:
        """The manager corrected `seat`'s card: decide whether it must be confirmed again."""

    def blockers(self, st: TableState, rnd: Round) -> list[ResumeBlocker]:
        """What this source adds to the reasons a resume would be refused."""


@dataclass(slots=True)
class Numbering:
    """Ids made from a time to the second, unique: a suffix counts ids that share a second."""

    last: str = ""
    count: int = 0

    def next(self, base: str) -> str:
        """`base`, or `base-N` when `base` was already given (N = 2, 3, ...)."""
        if base == self.last:
            self.count += 1
            return f"{base}-{self.count}"
        self.last, self.count = base, 1
        return base


@dataclass(slots=True)
class TableState:
    """Everything the controller knows between two inputs, and the events of the current one.

    `timers` maps a timer to its deadline; while `paused`, `frozen` maps it to the time it
    had left instead (docs/games.md: a paused round resumes where it stopped). `devices` is each
    monitored device's health: "ok", "fault" or "silent". `deck` is the id of the deck the
    dealer last announced (None: none yet) and `deck_dealt` the game number of the round that
    opened on it (None: it is fresh). `out` collects the envelopes the
    input being handled causes, stamped `ts`.
    """

    settings: TableSettings
    rules: GameRules
    source: CardSource
    now: Micros | None = None
    seq: int = 0
    round: Round | None = None
    paused: bool = False
    incidents: list[Incident] = field(default_factory=list)
    incident_count: int = 0
    timers: dict[TimerName, Micros] = field(default_factory=dict)
    frozen: dict[TimerName, Micros] = field(default_factory=dict)
    devices: dict[str, Health] = field(default_factory=dict)
    game_numbers: Numbering = field(default_factory=Numbering)
    deck_ids: Numbering = field(default_factory=Numbering)
    deck: str | None = None
    deck_dealt: str | None = None
    out: list[Envelope] = field(default_factory=list)
    ts: datetime = datetime.min

    @property
    def active(self) -> Round | None:
        """The round in progress, or None."""
        rnd = self.round
        # `Round.in_progress` inline: read several times per input, on every card's way.
        return rnd if rnd is not None and rnd.phase != "done" else None

    @property
    def clock(self) -> Micros:
        """The table's time (0 before its first input)."""
        return self.now or 0

    @property
    def confirm_time(self) -> Micros:
        """How long the camera has to confirm a card."""
        return micros(self.settings.camera_confirm_seconds)


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


def rescan_blocker(left: list[str]) -> ResumeBlocker:
    """The blocker that says a re-scan is running, and how it ends."""
    count = len(left)
    return ResumeBlocker.of(
        "rescan_running",
        f"a re-scan is in progress ({count} card(s) still to read): draw them or cancel_rescan",
    )


def resume_blockers(state: TableState) -> list[ResumeBlocker]:
    """Why a resume would be refused now, one typed blocker each (empty: it may resume).

    Each names the commands that clear it, and its words name them too; `void` clears them all
    (see `studio.controller`).
    """
    reasons = [
        ResumeBlocker.of(
            "device_unhealthy", f"the {d} is {s}: acknowledge_device once it works", device=d
        )
        for d, s in state.devices.items()
        if s != "ok"
    ]
    rnd = state.active
    if rnd is None:
        return reasons
    if rnd.deck_reused is not None:
        reasons.append(
            ResumeBlocker.of("deck_reused", f"{rnd.deck_reused}: shuffle, then new_deck")
        )
    if rnd.rescan is not None:
        reasons.append(rescan_blocker(rnd.rescan))
    held: dict[Card, str] = {}
    for seat in rnd.seats.values():
        if seat.card is None:
            if not seat.pending:
                reasons.append(
                    ResumeBlocker.of(
                        "unreadable_card",
                        f"{seat.position} has no readable card: correct or discard it",
                        position=seat.position,
                    )
                )
        elif seat.card in held:
            reasons.append(
                ResumeBlocker.of(
                    "duplicate_card",
                    f"{seat.card.code} is recorded at {held[seat.card]} and {seat.position}: "
                    "correct or discard one",
                    position=seat.position,
                )
            )
        else:
            held[seat.card] = seat.position
    if rnd.strays:
        reasons.append(
            ResumeBlocker.of(
                "stray_cards",
                f"{len(rnd.strays)} card(s) drawn out of turn are still on record: discard",
            )
        )
    reasons.extend(state.source.blockers(state, rnd))
    return reasons
