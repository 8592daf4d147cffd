"""The jackpot review is one rule: the table's void and `settle_void` give the same answer."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st
from test_controller_kit import CONFIGS, bench

from studio.cards import DECK, Card
from studio.games import get_rules, jackpot_review
from studio.games.settlement import settle_void
from studio.hands import evaluate

LIVE = get_rules("caribbean-stud", "live", procedure="hidden")
PLAYER = LIVE.seats["player"]

# Hands that win the Jackpot (every category of its table) and some that do not.
CHOSEN = [
    "AS KS QS JS TS",  # royal flush: progressive
    "9H 8H 7H 6H 5H",
    "4C 4D 4H 4S 9C",
    "KC KD KH 2S 2C",
    "2D 7D 9D JD KD",
    "5C 6D 7H 8S 9C",
    "QC QD QH 3S 8C",
    "AC AD 3H 7S 9C",  # one pair: no prize
    "2C 5D 8H JS KC",
]


def _table_flag(cards: list[Card], dealt: int) -> bool:
    b = bench(CONFIGS[0])
    b.start()
    b.wait(10.0)
    for card in cards[:dealt]:
        b.deal(card.code)
    b.cmd("call_manager", role="dealer")
    voided = next(e for e in b.cmd("void") if e.type == "round_voided")
    flag = voided.body["jackpot_compensation"]
    assert isinstance(flag, bool)
    return flag


@settings(max_examples=40, deadline=None)
@given(
    hand=st.one_of(
        st.sampled_from(CHOSEN).map(lambda text: [Card.parse(c) for c in text.split()]),
        st.permutations(DECK).map(lambda deck: list(deck[:5])),
    ),
    dealt=st.integers(1, 5),
)
def test_the_tables_void_flag_is_settle_voids_review(hand: list[Card], dealt: int) -> None:
    flag = _table_flag(hand, dealt)
    cards = dict(zip(PLAYER[:dealt], hand[:dealt], strict=True))
    review = settle_void(LIVE, {"ante": Fraction(1), "jackpot": Fraction(1)}, cards=cards)
    assert flag == review.jackpot_review == jackpot_review(LIVE, cards)
    wins = dealt == 5 and evaluate(hand).category in (
        LIVE.paytables["jackpot"].progressive | set(LIVE.paytables["jackpot"].pays)
    )
    assert flag == wins


def test_without_a_jackpot_bet_there_is_nothing_to_review() -> None:
    cards = dict(zip(PLAYER, [Card.parse(c) for c in CHOSEN[0].split()], strict=True))
    assert jackpot_review(LIVE, cards)
    assert not settle_void(LIVE, {"ante": Fraction(1)}, cards=cards).jackpot_review
    classic = get_rules("caribbean-stud", "classic")
    assert not jackpot_review(classic, cards)  # no Jackpot on that variant
