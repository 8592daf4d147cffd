"""What a console remembers of a table's events: the last ten rounds and the shift's counts.

Pure: it is fed restricted-stream events (`RoundBook.add`) in sequence order and reads no clock.
The recall keeps each round's cards by position, its decisions (windows and their automatic
actions, and the commands people gave) and its end (the result's judgement, or the void); the
counts are per table and per dealer on duty: rounds ended, voids, and incidents by kind.
"""

from __future__ import annotations

import json
from collections import Counter, deque
from dataclasses import dataclass, field

from studio.messages import Envelope

RECALL_ROUNDS = 10
"""Rounds a table's recall shows (the regulators' ten-game recall)."""


@dataclass
class RoundRecord:
    """One round as the recall shows it."""

    game_number: str
    opened: str
    cards: dict[str, str] = field(default_factory=dict)
    decisions: list[str] = field(default_factory=list)
    incidents: list[str] = field(default_factory=list)
    outcome: str = "in progress"


@dataclass
class ShiftCounts:
    """Rounds ended, rounds voided and incidents by kind, for one table and dealer."""

    rounds: int = 0
    voids: int = 0
    incidents: Counter[str] = field(default_factory=Counter)


class RoundBook:
    """The recall and counts of one table, from its restricted events (see the module docstring).

    `dealer` is who is on duty at the table now (the console sets it when a dealer signs in to
    the table's display); counts go to that name, "-" when nobody is signed in.
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
        body = event.body
        if event.type == "round_opened":
            self.rounds.append(RoundRecord(str(body["game_number"]), event.ts.strftime("%H:%M:%S")))
            return
        record = self._current(event.game_number)
        match event.type:
            case "card_dealt" | "card_revealed" | "card_corrected" if record is not None:
                # The public twin of a face-down card_dealt has no card: the restricted one does.
                if event.audience == "restricted" or event.type != "card_dealt":
                    record.cards[str(body["position"])] = str(body.get("card") or "unreadable")
            case "decision_window_closed" if record is not None:
                record.decisions.append(f"{body['window']}: automatic {body['automatic']}")
            case "command_accepted" if record is not None:
                note = f" ({body['note']})" if body.get("note") else ""
                record.decisions.append(f"{body['command']} by {body['actor']}{note}")
            case "incident_reported":
                self._count().incidents[str(body["kind"])] += 1
                if record is not None:
                    record.incidents.append(f"{body['kind']}: {body.get('detail', '')}".strip())
            case "round_result":
                self._count().rounds += 1
                if record is not None:
                    record.cards.update({str(p): str(c) for p, c in body["positions"].items()})
                    record.outcome = _judgement(body.get("judgement"))
            case "round_voided":
                counts = self._count()
                counts.rounds += 1
                counts.voids += 1
                if record is not None:
                    record.outcome = f"voided ({body.get('reason', '')}), bets refunded"


def _judgement(judgement: object) -> str:
    """The result's judgement in one line (its fields as the table reported them)."""
    if isinstance(judgement, dict):
        return ", ".join(f"{k} {_short(v)}" for k, v in judgement.items())
    return json.dumps(judgement)


def _short(value: object) -> str:
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"))
    return str(value)
