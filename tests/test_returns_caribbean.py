"""Caribbean Stud main game: dealer outcome counts checked by brute force, and the exact returns."""

from __future__ import annotations

import random
from math import comb

import numpy as np
import pytest

from studio.cards import Card, parse_cards
from studio.errors import CardError
from studio.games import get_rules
from studio.games.caribbean_stud import GAME
from studio.hands import Category
from studio.ranker import categories, combinations_array, rank_hands
from studio.returns.caribbean import (
    MainGameReturn,
    call_decisions,
    caribbean_rows,
    main_game_return,
)
from studio.returns.dealer_counts import DEALER_COMPLETIONS, DealerCounts, dealer_counts

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def table() -> DealerCounts:
    qualifier = get_rules(GAME, "live").qualifier
    assert qualifier is not None
    return dealer_counts(qualifier)


@pytest.fixture(scope="module")
def live(table: DealerCounts) -> MainGameReturn:
    return main_game_return(table, get_rules(GAME, "live"))


@pytest.fixture(scope="module")
def classic(table: DealerCounts) -> MainGameReturn:
    return main_game_return(table, get_rules(GAME, "classic"))


def brute_force(player: tuple[Card, ...], upcard: Card) -> tuple[int, int, int, int]:
    """Every completion of the dealer's hand ranked one by one: the four outcome counts."""
    qualifier = get_rules(GAME, "live").qualifier
    assert qualifier is not None
    used = {card.index for card in player} | {upcard.index}
    rest = np.array([i for i in range(52) if i not in used])
    completions = rest[combinations_array(len(rest), 4)]
    dealer = rank_hands(np.hstack([np.full((len(completions), 1), upcard.index), completions]))
    mine = int(rank_hands([[card.index for card in player]])[0])
    qualifies = dealer >= qualifier.code
    return (
        int((~qualifies).sum()),
        int((qualifies & (dealer < mine)).sum()),
        int((qualifies & (dealer == mine)).sum()),
        int((qualifies & (dealer > mine)).sum()),
    )


def _random_cases(n: int) -> list[tuple[tuple[Card, ...], Card]]:
    rng = random.Random(20261129)
    cases = []
    for _ in range(n):
        cards = rng.sample(range(52), 6)
        cases.append((tuple(Card.from_index(i) for i in cards[:5]), Card.from_index(cards[5])))
    return cases


EDGE_CASES = [
    ("AS KD 4C 3H 2S", "AD"),  # the lowest qualifying hand: ties with qualifying dealers
    ("AS KD 4C 3H 2S", "5C"),
    ("AS QD JC TH 9S", "KC"),  # the best non-qualifying hand
    ("AS KS QS JS TS", "AH"),  # a royal flush
    ("2C 2D 7H 8S 9C", "2H"),  # the lowest pair, dealer showing the case deuce
    ("KC KD KH KS AC", "AD"),
    ("7C 5D 4H 3S 2C", "7D"),  # the worst hand
    ("AH AD KH KD QC", "QD"),
]


@pytest.mark.parametrize(
    ("player", "upcard"),
    [(parse_cards(p), Card.parse(u)) for p, u in EDGE_CASES] + _random_cases(8),
    ids=lambda x: x.code if isinstance(x, Card) else " ".join(c.code for c in x),
)
def test_counts_agree_with_ranking_every_dealer_completion(
    table: DealerCounts, player: tuple[Card, ...], upcard: Card
) -> None:
    assert table.counts_for(player, upcard) == brute_force(player, upcard)


def test_the_table_covers_every_player_hand_and_every_up_card(table: DealerCounts) -> None:
    assert len(table.weights) == 134_459
    assert int(table.weights.sum()) == comb(52, 5)
    per_upcard = table.counts.sum(axis=2)
    in_hand = np.zeros((len(table.hands), 52), dtype=bool)
    np.put_along_axis(in_hand, table.hands.astype(np.intp), True, axis=1)
    assert (per_upcard[~in_hand] == DEALER_COMPLETIONS).all()
    assert (per_upcard[in_hand] == 0).all()
    assert (table.counts >= 0).all()


def test_counts_for_refuses_impossible_deals(table: DealerCounts) -> None:
    with pytest.raises(CardError):
        table.counts_for(parse_cards("AS KD 4C 3H 2S"), Card.parse("AS"))
    with pytest.raises(CardError):
        table.counts_for(parse_cards("AS KD 4C 3H"), Card.parse("5S"))


def test_live_returns_match_the_published_figures(live: MainGameReturn) -> None:
    assert round(float(live.per_ante), 4) == 0.9630
    assert round(float(live.per_total), 4) == 0.9819


def test_classic_return_matches_the_published_figure_to_rounding(classic: MainGameReturn) -> None:
    # 0.974447...: the sheet's 97.45% is within one unit of its last printed digit.
    assert abs(float(classic.per_total) - 0.9745) < 0.0001
    # The well-known classic Call table figure: house edge 5.224% per Ante.
    assert round(float(classic.per_ante), 5) == 0.94776


def test_per_total_is_the_per_ante_net_spread_over_the_mean_stake(live: MainGameReturn) -> None:
    assert live.per_total == 1 + (live.per_ante - 1) / live.mean_stake
    assert live.mean_stake == 1 + 2 * live.call_share
    assert 0.5 < live.call_share < 0.55


def test_optimal_strategy_calls_every_pair_and_folds_below_ace_king(table: DealerCounts) -> None:
    rules = get_rules(GAME, "classic")
    calls = call_decisions(table, rules)
    qualifier = rules.qualifier
    assert qualifier is not None
    possible = table.counts.sum(axis=2) > 0
    paired = categories(table.values) >= Category.ONE_PAIR
    assert calls[paired][possible[paired]].all()
    below = table.values < qualifier.code
    assert not calls[below].any()
    # Ace-king hands are the ones that depend on the dealer's up card.
    ace_king = ~paired & ~below
    assert calls[ace_king].any()
    assert not calls[ace_king][possible[ace_king]].all()


def test_report_rows_carry_both_variants_and_their_published_figures() -> None:
    rows = caribbean_rows()
    keyed = {(r.variant, r.basis): r for r in rows}
    assert set(keyed) == {
        ("live", "ante"),
        ("live", "total"),
        ("classic", "ante"),
        ("classic", "total"),
    }
    assert keyed[("live", "ante")].published == pytest.approx(0.9630)
    assert keyed[("classic", "ante")].published is None
    assert all(r.method == "exact" and r.bet == "main" and r.ci95 is None for r in rows)
