"""Side-bet returns: 5+1 Bonus, Trips and the Jackpot, exact over every card set."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest

from studio.games import get_rules
from studio.games.model import PayKind, Paytable
from studio.hands import Category as C
from studio.returns.side_bets import (
    JackpotReturn,
    bonus_return,
    jackpot_return,
    paytable_return,
    side_bet_rows,
    trips_return,
)

# Category counts from the standard poker-probability tables (not from this code base).
SIX_CARD = [6612900, 9730740, 2532816, 732160, 361620, 205792, 165984, 14664, 1656, 188]
SEVEN_CARD = [
    23294460, 58627800, 31433400, 6461620, 6180020, 4047644, 3473184, 224848, 37260, 4324,
]  # fmt: skip
FIVE_CARD = [1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 36, 4]


@pytest.fixture(scope="module")
def bonus() -> Fraction:
    return bonus_return()


@pytest.fixture(scope="module")
def trips() -> Fraction:
    return trips_return()


@pytest.fixture(scope="module")
def jackpot() -> JackpotReturn:
    return jackpot_return()


def test_bonus_is_exact_over_all_six_card_sets(bonus: Fraction) -> None:
    table = get_rules("caribbean-stud", "live").paytables["bonus"]
    assert sum(SIX_CARD) == comb(52, 6)
    assert bonus == paytable_return(SIX_CARD, table)
    assert round(float(bonus), 4) == 0.9144


def test_trips_is_exact_over_all_seven_card_sets(trips: Fraction) -> None:
    table = get_rules("ultimate-holdem").paytables["trips"]
    assert sum(SEVEN_CARD) == comb(52, 7)
    assert trips == paytable_return(SEVEN_CARD, table)
    assert round(float(trips), 4) == 0.9650


def test_jackpot_fixed_prizes_are_paid_for_one(jackpot: JackpotReturn) -> None:
    prizes = 36 * 2500 + 624 * 250 + 3744 * 50 + 5108 * 25 + 10200 * 10 + 54912 * 3
    assert jackpot.fixed == Fraction(prizes, comb(52, 5))


def test_jackpot_pool_feed_makes_up_the_published_return(jackpot: JackpotReturn) -> None:
    assert jackpot.published == Fraction("0.8184")
    assert jackpot.fixed + jackpot.pool_feed == jackpot.published
    assert abs(jackpot.pool_feed - Fraction(1, 2)) < Fraction(1, 1000)


def test_odds_return_the_stake_and_fixed_prizes_do_not() -> None:
    counts = [0, 0, 0, 3, 0, 0, 0, 0, 0, 1]  # three trips and one royal
    odds = Paytable("t", PayKind.ODDS, {C.THREE_OF_A_KIND: Fraction(3)})
    fixed = Paytable("t", PayKind.FIXED, {C.THREE_OF_A_KIND: Fraction(3)})
    pooled = Paytable(
        "t", PayKind.FIXED, {C.THREE_OF_A_KIND: Fraction(3)}, progressive=frozenset({C.ROYAL_FLUSH})
    )
    assert paytable_return(counts, odds) == Fraction(3 * 4, 4)
    assert paytable_return(counts, fixed) == Fraction(3 * 3, 4)
    assert paytable_return(counts, pooled) == Fraction(3 * 3, 4)


def test_paytable_return_refuses_bad_counts() -> None:
    table = get_rules("ultimate-holdem").paytables["trips"]
    with pytest.raises(ValueError, match="ten category counts"):
        paytable_return([1, 2, 3], table)
    with pytest.raises(ValueError, match="ten category counts"):
        paytable_return([0] * 10, table)


def test_rows_report_every_side_bet_with_progress_to_the_end() -> None:
    seen: list[tuple[int, int]] = []
    rows = side_bet_rows(lambda done, total: seen.append((done, total)))
    keyed = {(r.game, r.variant, r.bet): r for r in rows}
    assert set(keyed) == {
        ("caribbean-stud", "live", "bonus"),
        ("caribbean-stud", "classic", "bonus"),
        ("caribbean-stud", "live", "jackpot"),
        ("ultimate-holdem", "live", "trips"),
    }
    assert all(r.basis == "bet" and r.method == "exact" for r in rows)
    assert keyed[("ultimate-holdem", "live", "trips")].published == pytest.approx(0.9650)
    jackpot = keyed[("caribbean-stud", "live", "jackpot")]
    assert jackpot.computed == pytest.approx(0.31845, abs=1e-5)
    assert "49.995%" in jackpot.note
    assert jackpot.pool_feed == pytest.approx(0.49995, abs=1e-5)
    assert jackpot.to_json()["pool_feed"] == jackpot.pool_feed
    dones = [done for done, _ in seen]
    assert dones == sorted(dones)
    assert seen[-1][0] == seen[-1][1] == comb(52, 6) + comb(52, 5) + comb(52, 7)
