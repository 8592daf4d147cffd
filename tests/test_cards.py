"""Card codes: every accepted spelling parses to the right card, anything else is an error."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from studio.cards import DECK, Card, Rank, Suit, format_cards, parse_cards
from studio.errors import CardError

SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def test_deck_has_52_distinct_cards_indexed_in_order() -> None:
    assert len(set(DECK)) == 52
    assert [card.index for card in DECK] == list(range(52))
    assert all(Card.from_index(i) is DECK[i] for i in range(52))


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("AS", Card(Rank.ACE, Suit.SPADES)),
        ("as", Card(Rank.ACE, Suit.SPADES)),
        ("Td", Card(Rank.TEN, Suit.DIAMONDS)),
        ("10d", Card(Rank.TEN, Suit.DIAMONDS)),
        ("T♦", Card(Rank.TEN, Suit.DIAMONDS)),
        ("2c", Card(Rank.TWO, Suit.CLUBS)),
        (" kH ", Card(Rank.KING, Suit.HEARTS)),
    ],
)
def test_accepted_spellings(code: str, expected: Card) -> None:
    assert Card.parse(code) == expected


@pytest.mark.parametrize("card", DECK)
def test_every_spelling_of_every_card_round_trips(card: Card) -> None:
    rank, suit = card.code[0], card.code[1]
    spellings = {card.code, card.code.lower(), rank + suit.lower(), rank + SYMBOLS[suit]}
    if rank == "T":
        spellings |= {"10" + suit, "10" + suit.lower()}
    for text in spellings:
        assert Card.parse(text) == card
    assert Card.parse(card.code).code == card.code
    assert len(card.code) == 2


@pytest.mark.parametrize(
    "bad", ["", "A", "1S", "AX", "11H", "ASS", "ZZ", "0D", "♠A", "A S", "Aſ", "10ſ"]
)
def test_unknown_codes_name_the_input(bad: str) -> None:
    with pytest.raises(CardError, match="unknown card code") as info:
        Card.parse(bad)
    assert repr(bad) in str(info.value)


@given(st.text(max_size=6))
def test_any_text_parses_to_a_card_or_raises_card_error(text: str) -> None:
    try:
        card = Card.parse(text)
    except CardError:
        return
    # Whatever parsed must print back to a code that parses to the same card, and was spelt
    # in ASCII or with a suit symbol: no other letter may pass for one (the long s "ſ" did).
    assert Card.parse(card.code) == card
    assert all(c.isascii() or c in "♣♧♦♢♥♡♠♤" for c in text.strip())


def test_parse_cards_keeps_order_and_refuses_duplicates() -> None:
    assert format_cards(parse_cards("AS, kd 10h")) == "AS KD TH"
    with pytest.raises(CardError, match="AS appears twice"):
        parse_cards("AS KD as")


def test_index_outside_the_deck_is_refused() -> None:
    with pytest.raises(CardError):
        Card.from_index(52)
