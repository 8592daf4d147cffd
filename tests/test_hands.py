"""Hand values: categories, tie-breaks, best-of-7, descriptions, against an independent oracle."""

from __future__ import annotations

import random
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phevaluator import evaluate_cards

from studio.cards import DECK, Card, parse_cards
from studio.errors import CardError
from studio.hands import Category, HandValue, best_five, evaluate
from studio.ranker import all_category_counts, rank_hands

hands_of = st.integers(min_value=5, max_value=7).flatmap(
    lambda n: st.lists(st.sampled_from(DECK), min_size=n, max_size=n, unique=True)
)


def value(text: str) -> HandValue:
    return evaluate(parse_cards(text))


@pytest.mark.parametrize(
    ("hand", "category", "description"),
    [
        ("AS KS QS JS TS", Category.ROYAL_FLUSH, "Royal flush"),
        ("9H 8H 7H 6H 5H", Category.STRAIGHT_FLUSH, "Straight flush, nine high"),
        ("AD 2D 3D 4D 5D", Category.STRAIGHT_FLUSH, "Straight flush, five high"),
        ("KC KD KH KS 2C", Category.FOUR_OF_A_KIND, "Four of a kind, kings"),
        ("KC KD KH 7S 7C", Category.FULL_HOUSE, "Full house, kings full of sevens"),
        ("AH JH 8H 4H 2H", Category.FLUSH, "Flush, ace-jack-eight-four-two"),
        ("TC 9D 8H 7S 6C", Category.STRAIGHT, "Straight, ten high"),
        ("AC 2D 3H 4S 5C", Category.STRAIGHT, "Straight, five high"),
        ("6C 6D 6H AS 2C", Category.THREE_OF_A_KIND, "Three of a kind, sixes"),
        ("KS KD 7C 7H 2S", Category.TWO_PAIR, "Two pair, kings and sevens"),
        ("JC JD 9H 5S 2C", Category.ONE_PAIR, "One pair, jacks"),
        ("AC KD 9H 5S 2C", Category.HIGH_CARD, "High card, ace-king-nine-five-two"),
    ],
)
def test_categories_and_descriptions(hand: str, category: Category, description: str) -> None:
    assert value(hand).category is category
    assert value(hand).description == description


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("AS KS QS JS TS", "KS QS JS TS 9S"),  # royal over king-high straight flush
        ("6C 5C 4C 3C 2C", "AD 2D 3D 4D 5D"),  # six-high over the wheel
        ("2C 3D 4H 5S 6C", "AC 2D 3H 4S 5C"),  # the wheel is the lowest straight
        ("AC AD AH AS 2C", "KC KD KH KS AC"),  # quads by rank before kicker
        ("KC KD KH KS 3C", "KC KD KH KS 2S"),  # then by kicker
        ("3C 3D 3H 2S 2C", "2C 2D 2H AS AC"),  # full house by trips first
        ("KS KD 7C 7H 3S", "KS KD 7C 7H 2S"),  # two pair kicker
        ("KS KD 8C 8H 2S", "KS KD 7C 7H AS"),  # low pair before kicker
        ("AC KD 9H 5S 3C", "AC KD 9H 5S 2D"),  # high card by the fifth card
        ("AC KD 4H 3S 2C", "AC QD JH TS 9C"),  # A-K-4-3-2 beats A-Q-J-T-9
    ],
)
def test_tie_breaks(better: str, worse: str) -> None:
    assert value(better) > value(worse)


def test_suits_never_break_ties() -> None:
    assert value("AS KD 9H 5S 2C") == value("AH KC 9D 5C 2S")


@given(hands_of)
def test_best_of_six_and_seven_is_the_best_five(cards: list[Card]) -> None:
    best = max(evaluate(five) for five in combinations(cards, 5))
    assert evaluate(cards) == best
    assert evaluate(best_five(cards)) == best


@given(hands_of)
def test_scalar_and_bulk_agree(cards: list[Card]) -> None:
    bulk = rank_hands(np.array([[c.index for c in cards]]))
    assert int(bulk[0]) == evaluate(cards).code


def test_wrong_card_counts_and_duplicates_are_refused() -> None:
    with pytest.raises(CardError, match="5 to 7 cards"):
        evaluate(parse_cards("AS KS QS JS"))
    with pytest.raises(CardError, match="twice"):
        evaluate([Card.parse(c) for c in ("AS", "KS", "QS", "JS", "AS")])


def test_five_card_distribution_is_the_textbook_one() -> None:
    counts = all_category_counts(5)
    textbook = [1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 36, 4]
    assert counts.tolist() == textbook
    assert counts.sum() == 2598960


@pytest.mark.slow
def test_seven_card_distribution_over_all_133_784_560_hands() -> None:
    counts = all_category_counts(7)
    expected = {
        Category.ROYAL_FLUSH: 4324, Category.STRAIGHT_FLUSH: 37260,
        Category.FOUR_OF_A_KIND: 224848, Category.FULL_HOUSE: 3473184,
        Category.FLUSH: 4047644, Category.STRAIGHT: 6180020,
        Category.THREE_OF_A_KIND: 6461620, Category.TWO_PAIR: 31433400,
        Category.ONE_PAIR: 58627800, Category.HIGH_CARD: 23294460,
    }  # fmt: skip
    assert {Category(i): int(n) for i, n in enumerate(counts)} == expected
    assert counts.sum() == 133784560


def _assert_same_order(ours: np.ndarray, oracle: np.ndarray) -> None:
    """Our codes (higher better) and the oracle's ranks (lower better) order hands identically."""
    order = np.argsort(ours, kind="stable")
    a, b = ours[order], oracle[order]
    same = a[1:] == a[:-1]
    assert np.all(b[1:][same] == b[:-1][same]), "hands we call equal, the oracle does not"
    assert np.all(b[1:][~same] < b[:-1][~same]), "hands we order, the oracle orders otherwise"


@pytest.mark.parametrize("size", [5, 6, 7])
def test_order_agrees_with_an_independent_evaluator(size: int) -> None:
    # 70,000 hands per size: over 200,000 in all, compared as a total order, not only category.
    rng = np.random.default_rng(20261129 + size)
    hands = np.argsort(rng.random((70_000, 52)), axis=1)[:, :size]
    ours = rank_hands(hands)
    oracle = np.array([evaluate_cards(*map(int, row)) for row in hands])
    _assert_same_order(ours, oracle)


@settings(max_examples=300)
@given(st.lists(st.sampled_from(DECK), min_size=7, max_size=7, unique=True))
def test_scalar_values_agree_with_the_oracle_pairwise(cards: list[Card]) -> None:
    other = random.Random(len(cards)).sample([c for c in DECK if c not in cards], 7)
    ours = (evaluate(cards) > evaluate(other)) - (evaluate(cards) < evaluate(other))
    theirs_a = evaluate_cards(*(c.index for c in cards))
    theirs_b = evaluate_cards(*(c.index for c in other))
    assert ours == (theirs_a < theirs_b) - (theirs_a > theirs_b)
