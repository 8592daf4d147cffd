"""What a console remembers of a table's events: the last ten rounds and the shift's counts.

Pure: it is fed restricted-stream events (`RoundBook.add`) in sequence order and reads no clock.
The recall keeps each round's cards by position twice: as the restricted events name them
(`cards`, for roles that may see face-down cards) and as the public events show them
(`public_cards`: a face-down card that was never turned, as in a voided round, is not there). It
also keeps the round's decision windows and their automatic actions, the commands people gave
(restricted: a note may name a face-down card), its incidents (restricted particulars, and the
public kind) and its end. The counts are per dealer on duty: rounds ended, voids, and
incidents by kind.
"""

from __future__ import annotations

import logging
from collections import Counter, deque
from dataclasses import dataclass, field

from pydantic import ValidationError

from studio.messages import (
    EVENT_TYPES,
    CardCorrected,
    CardDealt,
    CardRevealed,
    CommandAccepted,
    DecisionWindowClosed,
    Envelope,
    IncidentReported,
    RoundOpened,
    RoundPaused,
    RoundResult,
    RoundVoided,
)

log = logging.getLogger(__name__)

RECALL_ROUNDS = 10
"""Rounds a table's recall shows (the regulators' ten-game recall)."""


@dataclass
class RoundRecord:
    """One round as the recall shows it."""

    game_number: str
    opened: str
    cards: dict[str, str] = field(default_factory=dict)
    public_cards: dict[str, str] = field(default_factory=dict)
    decisions: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    incidents: list[str] = field(default_factory=list)
    public_incidents: list[str] = field(default_factory=list)
    outcome: str = "in progress"


@dataclass
class ShiftCounts:
    """Rounds ended, rounds voided and incidents by kind, for one dealer at one table."""

    rounds: int = 0
    voids: int = 0
    incidents: Counter[str] = field(default_factory=Counter)


class RoundBook:
    """The recall and counts of one table, from its restricted events (see the module docstring).

    `dealer` is who is on duty at the table now (the console sets it when a dealer opens the
    table's display); counts go to that name, "-" while nobody has.
    """

    def __init__(self) -> None:
        self.rounds: deque[RoundRecord] = deque(maxlen=RECALL_ROUNDS)
        self.counts: dict[str, ShiftCounts] = {}
        self.dealer = "-"

    def _count(self) -> ShiftCounts:
        return self.counts.setdefault(self.dealer, ShiftCounts())

    def _current(self, game_number: str | None) -> RoundRecord | None:
        if not self.rounds or game_number is None:
            return None
        last = self.rounds[-1]
        return last if last.game_number == game_number else None

    def add(self, event: Envelope) -> None:
        """Take one event of the restricted stream into the recall and the counts."""
        kind = EVENT_TYPES.get(event.type)
        if kind is None:
            return
        try:
            body = kind.model_validate(event.body)
        except ValidationError:
            log.warning("event #%d (%s) is not a valid %s", event.seq, event.type, kind.__name__)
            return
        if isinstance(body, RoundOpened):
            self.rounds.append(RoundRecord(body.game_number, event.ts.strftime("%H:%M:%S")))
            return
        record = self._current(event.game_number)
        public = event.audience == "public"
        if isinstance(body, RoundPaused):
            # Counted from the public event: both streams carry it, once per incident.
            self._count().incidents[body.kind] += 1
        elif isinstance(body, RoundResult | RoundVoided):
            counts = self._count()
            counts.rounds += 1
            counts.voids += isinstance(body, RoundVoided)
        if record is not None:
            self._record(record, body, public)

    @staticmethod
    def _record(record: RoundRecord, body: object, public: bool) -> None:
        if isinstance(body, CardDealt | CardRevealed | CardCorrected):
            card = body.card or ("unreadable" if not isinstance(body, CardDealt) else None)
            if isinstance(body, CardDealt) and body.card is None and body.face == "up":
                card = "unreadable"
            if card is not None:
                (record.public_cards if public else record.cards)[body.position] = card
                if public:  # a public card is a card for every role
                    record.cards.setdefault(body.position, card)
        elif isinstance(body, DecisionWindowClosed) and public:
            record.decisions.append(f"{body.window}: automatic {body.automatic}")
        elif isinstance(body, CommandAccepted):
            note = f" ({body.note})" if body.note else ""
            record.commands.append(f"{body.command} by {body.actor}{note}")
        elif isinstance(body, RoundPaused):
            record.public_incidents.append(body.kind)
        elif isinstance(body, IncidentReported):
            record.incidents.append(f"{body.kind}: {body.detail}" if body.detail else body.kind)
        elif isinstance(body, RoundResult) and public:
            shown = {str(p): str(c) for p, c in body.positions.items()}
            record.cards.update(shown)
            record.public_cards.update(shown)
            record.outcome = _judgement(body)
        elif isinstance(body, RoundVoided) and public:
            record.outcome = f"voided ({body.reason}), bets refunded"


def _judgement(result: RoundResult) -> str:
    """The result's judgement in one line, as the table reported it."""
    judgement = result.judgement
    fields = judgement if isinstance(judgement, dict) else {"judgement": judgement}
    return ", ".join(f"{k} {v}" for k, v in fields.items())
