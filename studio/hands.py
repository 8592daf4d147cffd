"""Poker hand values: the best five-card hand of 5, 6 or 7 cards, comparable and describable.

A hand value is an integer code that orders hands exactly as poker does: the category
in bits 20..23, then up to five tie-break ranks, four bits each, most significant first. Higher
codes are better hands; equal codes are ties (suits never break ties). The same codes come out of
the scalar evaluator here and the vectorised one in `studio.ranker`, which is built from the two
pure functions `nonflush_value` and `flush_value` below.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from itertools import combinations

from studio.cards import Card, Rank, require_distinct
from studio.errors import CardError

CATEGORY_SHIFT = 20


class Category(IntEnum):
    """Hand categories from lowest to highest; the royal flush is a category of its own."""

    HIGH_CARD = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9

    @property
    def label(self) -> str:
        """The category's name as the rule book writes it ("Two pair")."""
        return self.name.replace("_", " ").capitalize()

    @property
    def slug(self) -> str:
        """The category's name for machine output ("two-pair")."""
        return self.name.lower().replace("_", "-")


def pack(category: Category, ranks: Sequence[int]) -> int:
    """Encode a category and its tie-break ranks (highest priority first) as a value code."""
    code = int(category) << CATEGORY_SHIFT
    for i, rank in enumerate(ranks[:5]):
        code |= rank << (16 - 4 * i)
    return code


def _straight_top(rank_mask: int) -> int:
    """Return the top rank of the highest straight in a 13-bit rank mask, or -1 if none."""
    for top in range(12, 3, -1):
        run = 0b11111 << (top - 4)
        if rank_mask & run == run:
            return top
    wheel = (1 << 12) | 0b1111  # A-2-3-4-5: the ace plays low and the five is the top card
    return 3 if rank_mask & wheel == wheel else -1


def flush_value(rank_mask: int) -> int:
    """Value of the best five cards of one suit, given the 13-bit mask of that suit's ranks.

    The mask must have at least five bits set. Returns a straight flush (royal if ace-high) when
    the ranks hold a straight, otherwise a flush of the five highest ranks.
    """
    top = _straight_top(rank_mask)
    if top == Rank.ACE:
        return pack(Category.ROYAL_FLUSH, [top])
    if top >= 0:
        return pack(Category.STRAIGHT_FLUSH, [top])
    ranks = [r for r in range(12, -1, -1) if rank_mask >> r & 1][:5]
    return pack(Category.FLUSH, ranks)


def nonflush_value(counts: Sequence[int]) -> int:
    """Value of the best five cards, ignoring flushes, given how many cards of each rank 0..12.

    Valid for 5 to 7 cards. Flushes are judged separately (`flush_value`); with at most seven
    cards a flush can never coexist with quads or a full house, so the caller takes the flush
    value whenever one suit has five cards.
    """
    by_count: dict[int, list[int]] = {1: [], 2: [], 3: [], 4: []}
    for rank in range(12, -1, -1):
        if counts[rank]:
            by_count[counts[rank]].append(rank)
    present = [r for r in range(12, -1, -1) if counts[r]]
    quads, trips, pairs = by_count[4], by_count[3], by_count[2]
    if quads:
        q = quads[0]
        return pack(Category.FOUR_OF_A_KIND, [q, next(r for r in present if r != q)])
    if trips and (len(trips) > 1 or pairs):
        t = trips[0]
        return pack(Category.FULL_HOUSE, [t, max(trips[1:] + pairs)])
    top = _straight_top(sum(1 << r for r in present))
    if top >= 0:
        return pack(Category.STRAIGHT, [top])
    if trips:
        t = trips[0]
        return pack(Category.THREE_OF_A_KIND, [t, *[r for r in present if r != t][:2]])
    if len(pairs) >= 2:
        hi, lo = pairs[0], pairs[1]
        kicker = next(r for r in present if r not in (hi, lo))
        return pack(Category.TWO_PAIR, [hi, lo, kicker])
    if pairs:
        p = pairs[0]
        return pack(Category.ONE_PAIR, [p, *[r for r in present if r != p][:3]])
    return pack(Category.HIGH_CARD, present[:5])


@dataclass(frozen=True, order=True, slots=True)
class HandValue:
    """The value of a poker hand: compare two with `<`, `==`; higher is better."""

    code: int

    @property
    def category(self) -> Category:
        """The hand's category."""
        return Category(self.code >> CATEGORY_SHIFT)

    @property
    def ranks(self) -> tuple[Rank, ...]:
        """The tie-break ranks, highest priority first (one for a straight, five for a flush)."""
        width = _TIEBREAK_WIDTH[self.category]
        return tuple(Rank(self.code >> (16 - 4 * i) & 0xF) for i in range(width))

    @property
    def description(self) -> str:
        """A human description, such as "Two pair, kings and sevens"."""
        cat, r = self.category, self.ranks
        label = cat.label
        match cat:
            case Category.ROYAL_FLUSH:
                return label
            case Category.STRAIGHT_FLUSH | Category.STRAIGHT:
                return f"{label}, {r[0].noun} high"
            case Category.FLUSH | Category.HIGH_CARD:
                return f"{label}, {'-'.join(x.noun for x in r)}"
            case Category.FOUR_OF_A_KIND | Category.THREE_OF_A_KIND | Category.ONE_PAIR:
                return f"{label}, {r[0].plural}"
            case Category.FULL_HOUSE:
                return f"{label}, {r[0].plural} full of {r[1].plural}"
            case Category.TWO_PAIR:
                return f"{label}, {r[0].plural} and {r[1].plural}"
        raise AssertionError(cat)  # pragma: no cover - the match is exhaustive

    def __str__(self) -> str:
        return self.description


_TIEBREAK_WIDTH = {
    Category.HIGH_CARD: 5, Category.ONE_PAIR: 4, Category.TWO_PAIR: 3,
    Category.THREE_OF_A_KIND: 3, Category.STRAIGHT: 1, Category.FLUSH: 5,
    Category.FULL_HOUSE: 2, Category.FOUR_OF_A_KIND: 2, Category.STRAIGHT_FLUSH: 1,
    Category.ROYAL_FLUSH: 1,
}  # fmt: skip


def evaluate(cards: Sequence[Card]) -> HandValue:
    """Return the value of the best five-card hand among 5, 6 or 7 distinct cards.

    Raises `CardError` for another number of cards or a card given twice.
    """
    if not 5 <= len(cards) <= 7:
        raise CardError(f"a hand needs 5 to 7 cards, got {len(cards)}")
    require_distinct(cards)
    counts = [0] * 13
    suit_masks = [0, 0, 0, 0]
    for card in cards:
        counts[card.rank] += 1
        suit_masks[card.suit] |= 1 << card.rank
    for mask in suit_masks:
        if mask.bit_count() >= 5:
            return HandValue(flush_value(mask))
    return HandValue(nonflush_value(counts))


def best_five(cards: Sequence[Card]) -> tuple[Card, ...]:
    """Return five of `cards` (5 to 7, distinct) that make the hand's value, highest first."""
    target = evaluate(cards)
    for five in combinations(sorted(cards, reverse=True), 5):
        if evaluate(five) == target:
            return five
    raise AssertionError("no five cards make the hand's value")  # pragma: no cover
