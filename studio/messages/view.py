"""`TableView`: a frozen, typed picture of what one table is doing now.

It is the restricted view (face-down cards shown); `TableView.public()` is what anyone may see.
`TableController.view()` builds it from its state; nothing reads it
by string. Timers are typed: a kind, the position or device it concerns, and either a deadline
(running) or the time it had left when the table paused (frozen), never `"confirm:<pos>"`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator

from studio.terms import CommandName, Device

TimerKind = Literal["yellow", "close", "deal", "window", "autostart", "confirm", "silent"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TimerView(_Frozen):
    """One timer: what it is for, whom it concerns, and when it fires.

    `position` is set for a `confirm` timer, `device` for a `silent` one. A running timer has
    `deadline` and no `remaining_seconds`; a timer frozen by a pause has `remaining_seconds`
    and no `deadline`.
    """

    kind: TimerKind
    position: str | None = None
    device: str | None = None
    deadline: datetime | None = None
    remaining_seconds: float | None = None


class CardView(_Frozen):
    """The card at one position: its code (None: unreadable or not yet known) and state.

    `confirmed`: the camera saw it (always True without a camera); `pending`: face down on a
    camera-only table, value unknown until turned; `face_up` includes a turned card.
    """

    position: str
    code: str | None
    face_up: bool
    confirmed: bool
    pending: bool


class WindowView(_Frozen):
    """The open decision window: its name, the options offered, the automatic action."""

    name: str
    options: tuple[str, ...]
    automatic: str


class IncidentView(_Frozen):
    """An incident that paused the table, as the shift manager sees it.

    `journalled` is False for the one incident the journal cannot hold while it lasts: a
    journal that cannot be written (`kind` "journal_unwritable", `incident` 0, `device`
    "journal"). The runtime's served view shows it so that the table reads as paused; once the
    journal takes writes the fault is journalled and comes back as an ordinary incident.
    """

    incident: int
    kind: str
    position: str | None
    cards: tuple[str, ...]
    device: str | None
    raw: str
    detail: str
    journalled: bool = True


BlockerKind = Literal[
    "device_unhealthy",
    "deck_reused",
    "rescan_running",
    "unreadable_card",
    "duplicate_card",
    "stray_cards",
    "card_outside_deal",
    "journal_unwritable",
]
"""What keeps a paused table from resuming (`ResumeBlocker.kind`)."""

CLEARED_BY: Mapping[BlockerKind, tuple[CommandName, ...]] = MappingProxyType(
    {
        "device_unhealthy": ("acknowledge_device",),
        "deck_reused": ("new_deck",),
        # The dealer may also draw the cards left to read.
        "rescan_running": ("cancel_rescan",),
        # An unreadable record can also be read again: the dealer draws the cards back through.
        "unreadable_card": ("correct_card", "discard_last_card", "rescan"),
        "duplicate_card": ("correct_card", "discard_last_card"),
        "stray_cards": ("discard_last_card",),
        # Acts at the table, no command: the dealer takes the card away (the camera sees the
        # zone empty); space is freed on the journal's disk (the table then journals the fault).
        "card_outside_deal": (),
        "journal_unwritable": (),
    }
)
"""Each blocker kind -> the commands that clear it, in the order a shift manager tries them: the
one registry `ResumeBlocker.of` fills `actions` from."""


class ResumeBlocker(_Frozen):
    """One reason a resume would be refused now, and the commands that clear it.

    `words` is the reason as one line naming its remedy (the same line `TableView.resume_blockers`
    lists and a refused resume gives). `actions` are the commands that clear it, in the order a
    shift manager tries them (`CLEARED_BY` of its kind: `of` fills them in); `void` clears every
    blocker of a round and is not repeated here.
    An empty `actions` means an act at the table clears it, which `words` names (a card lying
    where none was dealt is taken away), and the blocker goes once the table sees it done.
    `position` or `device` is what it concerns, when it concerns one.
    """

    kind: BlockerKind
    words: str
    actions: tuple[CommandName, ...]
    position: str | None = None
    device: str | None = None

    @classmethod
    def of(
        cls,
        kind: BlockerKind,
        words: str,
        *,
        position: str | None = None,
        device: str | None = None,
    ) -> ResumeBlocker:
        """A blocker of `kind`, its `actions` those `CLEARED_BY` names for the kind."""
        return cls(
            kind=kind, words=words, actions=CLEARED_BY[kind], position=position, device=device
        )


HIDDEN_BLOCKER = "a card is recorded twice: the shift manager corrects or discards one"
"""What the public view says for a resume blocker that names a face-down card's code."""


class TableView(_Frozen):
    """The table now (see the module docstring).

    `phase` is "idle" without a round in progress; `expecting` is the position the next card
    goes to (None when no card may come); `rescan_next` the next position a re-scan reads;
    `turning` (camera-only, at a reveal) the positions the table waits to see turned, in order;
    `resume_blockers` says why a resume would be refused now, one line each (empty while
    running), and `blockers` says the same as typed values (`ResumeBlocker`: its kind and the
    commands that clear it; built with `blockers` alone, the view fills `resume_blockers` from
    their words; a view from a table older than `blockers` has none, and its lines only); `deck` is
    the id of the deck the round in progress is dealt from, or between rounds the deck last
    announced (None: none yet); `deck_dealt` the game number of the round that deck was dealt in
    (None: a fresh deck, dealt in no round yet).
    """

    table: str
    game: str
    variant: str | None
    procedure: str | None
    seq: int
    now: datetime | None
    phase: str
    game_number: str | None
    deck: str | None = None
    deck_dealt: str | None = None
    light: str | None
    cards: tuple[CardView, ...]
    expecting: str | None
    rescan_next: str | None
    window: WindowView | None
    turning: tuple[str, ...]
    paused: bool
    incidents: tuple[IncidentView, ...]
    resume_blockers: tuple[str, ...]
    timers: tuple[TimerView, ...]
    devices: dict[Device, str]
    blockers: tuple[ResumeBlocker, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _lines_from_blockers(cls, data: Any) -> Any:
        # One source for both shapes: the lines are the typed blockers' words.
        given = data.get("blockers") if isinstance(data, dict) else None
        if isinstance(given, list | tuple) and "resume_blockers" not in data:
            typed = tuple(ResumeBlocker.model_validate(b) for b in given)
            return {**data, "blockers": typed, "resume_blockers": tuple(b.words for b in typed)}
        return data

    @model_validator(mode="after")
    def _lines_match_blockers(self) -> TableView:
        if self.blockers and self.resume_blockers != tuple(b.words for b in self.blockers):
            raise ValueError("resume_blockers must be the words of blockers, in order")
        return self

    @property
    def positions(self) -> dict[str, str | None]:
        """Position -> card code (None: unreadable or not yet known), in dealing order."""
        return {c.position: c.code for c in self.cards}

    def public(self) -> TableView:
        """The view as anyone may see it: no face-down card's code, no incident's particulars.

        A face-down card shows as `code=None` exactly as the public stream shows it. As on the
        stream, a face-up card whose code is also recorded at a face-down position (a duplicate
        or a misread) shows none either, or it would name the hidden card; a resume blocker that
        names such a code (or where it lies) reads `HIDDEN_BLOCKER` (a typed one keeps its kind
        and actions, without its position). An incident keeps its kind,
        position and device, but not the cards, raw frame or detail, which may name a face-down
        card.
        """
        hidden = {c.code for c in self.cards if c.code is not None and not c.face_up}
        blockers = tuple(
            b if not any(code in b for code in hidden) else HIDDEN_BLOCKER
            for b in self.resume_blockers
        )
        typed = tuple(
            b
            if not any(code in b.words for code in hidden)
            else b.model_copy(update={"words": HIDDEN_BLOCKER, "position": None})
            for b in self.blockers
        )
        return self.model_copy(
            update={
                "cards": tuple(
                    c if c.face_up and c.code not in hidden else c.model_copy(update={"code": None})
                    for c in self.cards
                ),
                "incidents": tuple(
                    i.model_copy(update={"cards": (), "raw": "", "detail": ""})
                    for i in self.incidents
                ),
                "resume_blockers": blockers,
                "blockers": typed,
            }
        )

    def timer(self, kind: TimerKind, position: str | None = None) -> TimerView | None:
        """The timer of `kind` (for `position`, when given), or None when none runs."""
        for t in self.timers:
            if t.kind == kind and (position is None or t.position == position):
                return t
        return None
