"""Playing cards: `Rank`, `Suit`, `Card`, their codes, and the standard 52-card deck.

A card's canonical code is two characters, rank then suit (`AS`, `TD`, `2C`). Parsing is lenient
in the ways dealers and devices write cards (`as`, `Td`, `10d`, `T♦`) and strict about everything
else: an unknown code raises `CardError` naming the input.

Each card has a stable index 0..51, `rank * 4 + suit`, with ranks 2..A as 0..12 and suits in the
order clubs, diamonds, hearts, spades. The hand evaluator's lookup tables rely on this order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum

from studio.errors import CardError


class Rank(IntEnum):
    """A card rank; the integer value orders ranks with the ace high (2 lowest, ace highest)."""

    TWO = 0
    THREE = 1
    FOUR = 2
    FIVE = 3
    SIX = 4
    SEVEN = 5
    EIGHT = 6
    NINE = 7
    TEN = 8
    JACK = 9
    QUEEN = 10
    KING = 11
    ACE = 12

    @property
    def char(self) -> str:
        """The one-character code of this rank (`2`..`9`, `T`, `J`, `Q`, `K`, `A`)."""
        return RANK_CHARS[self.value]

    @property
    def noun(self) -> str:
        """The English name of this rank, singular ("king")."""
        return _RANK_NOUNS[self.value]

    @property
    def plural(self) -> str:
        """The English name of this rank, plural ("kings", "sixes")."""
        return "sixes" if self is Rank.SIX else self.noun + "s"


class Suit(IntEnum):
    """A card suit, in the fixed order clubs, diamonds, hearts, spades (suits never rank)."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def char(self) -> str:
        """The one-character code of this suit (`C`, `D`, `H`, `S`)."""
        return SUIT_CHARS[self.value]


RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "CDHS"
_RANK_NOUNS = (
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "jack", "queen", "king", "ace",
)  # fmt: skip
_SUIT_ALIASES = {
    "C": Suit.CLUBS, "♣": Suit.CLUBS, "♧": Suit.CLUBS,
    "D": Suit.DIAMONDS, "♦": Suit.DIAMONDS, "♢": Suit.DIAMONDS,
    "H": Suit.HEARTS, "♥": Suit.HEARTS, "♡": Suit.HEARTS,
    "S": Suit.SPADES, "♠": Suit.SPADES, "♤": Suit.SPADES,
}  # fmt: skip
_RANK_ALIASES = {c: Rank(i) for i, c in enumerate(RANK_CHARS)} | {"10": Rank.TEN}


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """One playing card. Cards order by rank first, then by suit (only for stable sorting)."""

    rank: Rank
    suit: Suit

    @property
    def index(self) -> int:
        """The card's stable index 0..51 (`rank * 4 + suit`)."""
        return self.rank * 4 + self.suit

    @property
    def code(self) -> str:
        """The canonical two-character code, such as `AS` or `TD`."""
        # Indexed by the enums as ints: an enum's `.value` costs several times more, and every
        # card's code is read many times per input on the table's hot path.
        return RANK_CHARS[self.rank] + SUIT_CHARS[self.suit]

    @classmethod
    def from_index(cls, index: int) -> Card:
        """Return the card with the given index 0..51; raise `CardError` outside that range."""
        if not 0 <= index < 52:
            raise CardError(f"card index {index!r} is outside 0..51")
        return DECK[index]

    @classmethod
    def parse(cls, code: str) -> Card:
        """Parse a card code (`AS`, `as`, `Td`, `10d`, `T♦`); raise `CardError` naming bad input."""
        if not isinstance(code, str):
            raise CardError(f"card code must be text, got {code!r}")
        card = BY_CODE.get(code)
        if card is not None:
            # A canonical code, as every code the table made itself (the controller parses
            # each card's code again): the same card without the normalisation below.
            return card
        # Only ASCII letters fold: str.upper() also turns the long s "ſ" into "S".
        text = "".join(c.upper() if c.isascii() else c for c in code.strip())
        rank = _RANK_ALIASES.get(text[:-1]) if len(text) >= 2 else None
        suit = _SUIT_ALIASES.get(text[-1:]) if text else None
        if rank is None or suit is None:
            raise CardError(
                f"unknown card code {code!r} (expected rank 2-9/T/J/Q/K/A then suit C/D/H/S)"
            )
        return DECK[rank * 4 + suit]

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code})"


DECK: tuple[Card, ...] = tuple(Card(Rank(i // 4), Suit(i % 4)) for i in range(52))
"""The 52 cards in index order."""

BY_CODE: Mapping[str, Card] = {card.code: card for card in DECK}
"""Each card by its canonical code (`Card.parse`'s shortcut; the prepared next card's lookup,
`studio.controller.prepared`, where any other spelling takes `Card.parse`'s way)."""


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Parse space- or comma-separated codes (or an iterable of codes) into cards, in order.

    Raises `CardError` for an unknown code or a card that appears twice.
    """
    codes = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    cards = tuple(Card.parse(c) for c in codes)
    require_distinct(cards)
    return cards


def require_distinct(cards: Sequence[Card]) -> None:
    """Raise `CardError` naming the first card that appears more than once in `cards`."""
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise CardError(f"card {card.code} appears twice")
        seen.add(card)


def format_cards(cards: Iterable[Card]) -> str:
    """Return the cards' canonical codes separated by spaces ("AS KS QS")."""
    return " ".join(card.code for card in cards)
