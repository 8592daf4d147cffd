"""The simulated table's hardware and time: a clock that never sleeps, a shoe, a camera.

They are devices like any other (docs/architecture.md: real parts, embedded defaults): they produce
the same inputs a real shoe and camera would, stamped by the simulated clock, so the controller
and the journal cannot tell them from hardware.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from datetime import datetime, timedelta

from studio.cards import DECK
from studio.errors import SimulationError
from studio.messages import CardDrawn, CardSeen


class SimulatedClock:
    """Simulated UTC time: it moves only when told, so a simulated hour takes no time at all."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def advance(self, seconds: float) -> datetime:
        """Move `seconds` forward; return the new time."""
        self.now += timedelta(seconds=seconds)
        return self.now

    def advance_to(self, when: datetime) -> datetime:
        """Move forward to `when` (never backwards); return the new time."""
        self.now = max(self.now, when)
        return self.now


class SimulatedShoe:
    """A card shoe loaded with a freshly shuffled 52-card deck for every round (docs/games.md).

    `rng` makes the shuffles reproducible for a seed.
    """

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._cards: list[str] = []

    def new_deck(self, exclude: Iterable[str] = ()) -> None:
        """Load a shuffled deck without the cards in `exclude` (already on the table)."""
        gone = set(exclude)
        self._cards = [card.code for card in DECK if card.code not in gone]
        self._rng.shuffle(self._cards)

    def draw(self) -> str:
        """Take the next card's code; raises `SimulationError` when the deck is empty."""
        if not self._cards:
            raise SimulationError("the simulated shoe ran out of cards")
        return self._cards.pop()

    def reading(self, code: str | None, ts: datetime) -> CardDrawn:
        """The shoe's input for a card drawn at `ts` (`code` None: the card was unreadable)."""
        raw = f"sim:{code}" if code is not None else "sim:??"
        return CardDrawn(ts=ts, card=code, raw=raw)


class SimulatedCamera:
    """A camera over the table that reports what lies at each position."""

    def sighting(self, zone: str, face: str, code: str | None, ts: datetime) -> CardSeen:
        """What the camera sees at `zone`.

        A card face up (`code`; None: one it cannot read), a card back (`face` down) or
        nothing (`face` none).
        """
        if face == "down":
            return CardSeen(ts=ts, zone=zone, face="down", raw=f"sim:{zone}:back")
        if face == "none":
            return CardSeen(ts=ts, zone=zone, face="none", raw=f"sim:{zone}:empty")
        return CardSeen(ts=ts, zone=zone, face="up", card=code, raw=f"sim:{zone}:{code or '??'}")
