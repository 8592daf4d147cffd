"""The judgement API: hands, qualifier, side bets and every decision path of one round."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction

import pytest

from studio.cards import Card, parse_cards
from studio.errors import CardError, ConfigurationError
from studio.games import Judgement, decision_paths, get_rules, judge
from studio.games.model import GameRules


def seat(rules: GameRules, codes: str) -> dict[str, Card]:
    return dict(zip(rules.positions, parse_cards(codes), strict=True))


def cs(player: str, dealer: str, variant: str = "live") -> Judgement:
    rules = get_rules("caribbean-stud", variant)
    return judge(rules, seat(rules, f"{player} {dealer}"))


def uth(player: str, board: str, dealer: str) -> Judgement:
    rules = get_rules("ultimate-holdem")
    return judge(rules, seat(rules, f"{player} {dealer} {board}"))


def test_paths_are_the_documented_ones() -> None:
    assert decision_paths(get_rules("caribbean-stud")) == ("call", "fold")
    assert decision_paths(get_rules("ultimate-holdem")) == (
        "play4x",
        "play3x",
        "check/play2x",
        "check/check/play1x",
        "check/check/fold",
    )


def test_caribbean_royal_against_a_non_qualifying_dealer() -> None:
    j = cs("AS KS QS JS TS", "2C 3D 4H 5S 7C")
    assert j.player.description == "Royal flush"
    assert not j.dealer_qualifies
    assert j.paths["call"]["ante"].returned == 2
    assert j.paths["call"]["call"].outcome == "push"
    assert j.paths["fold"] == {"ante": j.paths["fold"]["ante"]}
    assert j.side_bets["jackpot"].progressive
    assert j.side_bets["bonus"].returned == 1001
    assert j.refused == {}


def test_classic_refuses_folding_a_royal_and_has_no_jackpot() -> None:
    j = cs("AS KS QS JS TS", "2C 3D 4H 5S 7C", "classic")
    assert "fold" in j.refused
    assert "jackpot" not in j.side_bets


def test_qualifier_edges() -> None:
    assert cs("2H 2D 5C 6C 8S", "AC KD 4H 3S 2C").dealer_qualifies
    assert not cs("2H 2D 5C 6C 8S", "AC QD JH TS 9C").dealer_qualifies
    assert uth("AS KD", "2C 7D 9H JS 4C", "3H 3D").dealer_qualifies
    assert not uth("AS KD", "2C 7D 9H JS 4C", "3H 5D").dealer_qualifies


def test_holdem_blind_flush_pays_three_to_two_and_trips_is_independent() -> None:
    j = uth("AH 2H", "KH 9H 4H 3C 7S", "QC QD")
    assert j.player.category.slug == "flush"
    assert j.paths["play4x"]["blind"].returned == Fraction(5, 2)
    assert j.side_bets["trips"].returned == 8
    assert j.to_json()["paths"]["play4x"]["blind"]["returned"] == "5/2"


@pytest.mark.parametrize(
    "change",
    [
        lambda c: c.pop("dealer-1"),
        lambda c: c.update({"seat-9": c["dealer-1"]}),
        lambda c: c.update({"dealer-1": c["player-1"]}),
    ],
)
def test_bad_cards_raise_card_error(change: Callable[[dict[str, Card]], object]) -> None:
    rules = get_rules("caribbean-stud")
    cards = seat(rules, "AS KS QS JS TS 2C 3D 4H 5S 7C")
    change(cards)
    with pytest.raises(CardError):
        judge(rules, cards)


def test_unknown_game_is_a_configuration_error() -> None:
    rules = get_rules("caribbean-stud")
    with pytest.raises(ConfigurationError):
        judge(replace(rules, game="baccarat"), {})
