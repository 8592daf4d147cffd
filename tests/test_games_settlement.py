"""Settlement of one player against hand-computed cases for every row of docs/games.md's tables."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studio.cards import DECK, parse_cards
from studio.errors import CardError, InputError, RuleError
from studio.games import get_rules, judge
from studio.games.judgement import seat
from studio.games.model import GameRules
from studio.games.settlement import JackpotPool, Settlement, settle, settle_void

CS_DEALER_AK = "AC KH 4S 3S 2C"  # the lowest qualifying dealer hand


def cs(
    player: str,
    dealer: str,
    bets: dict[str, int | str],
    decisions: tuple[str, ...] = ("call",),
    variant: str = "live",
    rules: GameRules | None = None,
    jackpot: JackpotPool | None = None,
) -> Settlement:
    rules = rules or get_rules("caribbean-stud", variant)
    cards = seat(rules, {"player": parse_cards(player), "dealer": parse_cards(dealer)})
    stakes = {k: Fraction(v) for k, v in bets.items()}
    return settle(rules, judge(rules, cards), stakes, decisions, jackpot)


def uth(
    player: str, board: str, dealer: str, bets: dict[str, int | str], decisions: tuple[str, ...]
) -> Settlement:
    rules = get_rules("ultimate-holdem")
    groups = {"player": player, "board": board, "dealer": dealer}
    cards = seat(rules, {k: parse_cards(v) for k, v in groups.items()})
    stakes = {k: Fraction(v) for k, v in bets.items()}
    return settle(rules, judge(rules, cards), stakes, decisions)


def returned(s: Settlement) -> dict[str, Fraction]:
    return {name: bet.returned for name, bet in s.bets.items()}


def outcomes(s: Settlement) -> dict[str, str]:
    return {name: bet.outcome for name, bet in s.bets.items()}


# --- Caribbean Stud: the main-bet table --------------------------------------------------------


def test_dealer_not_qualifying_pays_the_ante_and_pushes_the_call() -> None:
    s = cs("2H 2D 5C 6C 8S", "AC QD JH TS 9C", {"ante": 10})
    assert not s.judgement or not s.judgement.dealer_qualifies
    assert outcomes(s) == {"ante": "win", "call": "push"}
    assert returned(s) == {"ante": 20, "call": 20}
    assert (s.total_stake, s.total_returned) == (30, 40)


def test_dealer_higher_takes_ante_and_call() -> None:
    s = cs("2H 2D 5C 6C 8S", "3H 3D 5H 6D 9C", {"ante": 10})
    assert returned(s) == {"ante": 0, "call": 0}
    assert outcomes(s) == {"ante": "lose", "call": "lose"}


def test_tie_pushes_ante_and_call() -> None:
    s = cs("AD KD 4C 3D 2H", CS_DEALER_AK, {"ante": 10})
    assert outcomes(s) == {"ante": "push", "call": "push"}
    assert s.total_returned == s.total_stake == 30


CALL_ROWS = [
    # player hand, live odds, classic odds
    ("AS KS QS JS TS", 100, 100),
    ("9H 8H 7H 6H 5H", 50, 50),
    ("7C 7D 7H 7S 9D", 25, 20),
    ("QC QD QH 5D 5H", 10, 7),
    ("2D 6D 9D JD QD", 7, 5),
    ("5C 6D 7H 8S 9C", 5, 4),
    ("8C 8D 8H KD 2D", 3, 3),
    ("KC KD 5C 5H 8S", 2, 2),
    ("AD AH 6C 9S JD", 1, 1),
    ("AD KD 5C 3C 2D", 1, 1),  # A-K-5 beats the dealer's A-K-4: "one pair or less" pays 1:1
]


@pytest.mark.parametrize(("player", "live", "classic"), CALL_ROWS)
def test_call_table_when_the_player_beats_a_qualifying_dealer(
    player: str, live: int, classic: int
) -> None:
    for variant, odds in (("live", live), ("classic", classic)):
        s = cs(player, CS_DEALER_AK, {"ante": 10}, variant=variant)
        assert s.judgement is not None and s.judgement.dealer_qualifies
        assert returned(s) == {"ante": 20, "call": 20 + 20 * odds}, variant


def test_fold_forfeits_the_ante_but_side_bets_still_settle() -> None:
    s = cs("9H 9D 9C 5S 2D", "9S 3D 4H 6S 7C", {"ante": 10, "bonus": 5, "jackpot": 1}, ("fold",))
    assert "call" not in s.bets
    assert returned(s) == {"ante": 0, "bonus": 505, "jackpot": 3}


def test_no_decision_is_an_automatic_fold() -> None:
    s = cs("AD AH 6C 9S JD", CS_DEALER_AK, {"ante": 10}, ())
    assert s.path == "fold"
    assert returned(s) == {"ante": 0}


# --- Caribbean Stud: 5+1 Bonus and Jackpot -------------------------------------------------------

BONUS_ROWS = [
    # player's five, the dealer's face-up card, odds (None: loses)
    ("AS KS QS JS 2D", "TS", 1000),
    ("9H 8H 7H 6H 2C", "5H", 200),
    ("9H 9D 9C 5S 2D", "9S", 100),
    ("QC QD QH 5D 2H", "5H", 20),
    ("2D 6D 9D JD 3C", "QD", 15),
    ("5C 6D 7H 8S 2D", "9C", 10),
    ("8C 8D 5H KD 2D", "8H", 7),
    ("KC KD 5C 6H 8S", "5H", None),
]


@pytest.mark.parametrize(("player", "up", "odds"), BONUS_ROWS)
def test_bonus_uses_the_dealers_face_up_card(player: str, up: str, odds: int | None) -> None:
    s = cs(player, f"{up} 3S 4S 7C TC", {"ante": 10, "bonus": 5})
    expected = 0 if odds is None else 5 + 5 * odds
    assert s.bets["bonus"].returned == expected
    assert s.bets["bonus"].outcome == ("lose" if odds is None else "win")


def test_bonus_ignores_the_dealers_face_down_cards() -> None:
    s = cs("9H 9D 9C 5S 2D", "3S 9S 4S 7C TC", {"ante": 10, "bonus": 5})
    assert s.bets["bonus"].returned == 40  # three of a kind 7:1, not four of a kind


JACKPOT_ROWS = [
    ("9H 8H 7H 6H 5H", 2500),
    ("7C 7D 7H 7S 9D", 250),
    ("QC QD QH 5D 5H", 50),
    ("2D 6D 9D JD QD", 25),
    ("5C 6D 7H 8S 9C", 10),
    ("8C 8D 8H KD 2D", 3),
    ("KC KD 5C 5H 8S", 0),
]


@pytest.mark.parametrize(("player", "prize"), JACKPOT_ROWS)
def test_jackpot_fixed_prizes_are_paid_for_one(player: str, prize: int) -> None:
    for stake in (1, 2):
        s = cs(player, CS_DEALER_AK, {"ante": 10, "jackpot": stake}, ("fold",))
        bet = s.bets["jackpot"]
        assert bet.returned == stake * prize  # the stake itself is never returned
        assert bet.outcome == ("win" if prize else "lose")


def test_royal_flush_wins_the_progressive_share() -> None:
    pool = JackpotPool(Fraction(100_000), Fraction(7))
    s = cs("AS KS QS JS TS", CS_DEALER_AK, {"ante": 10, "jackpot": 1}, jackpot=pool)
    bet = s.bets["jackpot"]
    assert bet.progressive and bet.outcome == "win"
    assert bet.returned == Fraction("14285.71")  # 100000 / 7 rounded down to the cent
    s = cs("AS KS QS JS TS", CS_DEALER_AK, {"ante": 10, "jackpot": 1})
    assert s.bets["jackpot"].share is None and s.bets["jackpot"].returned == 0
    assert s.to_json()["bets"]["jackpot"]["progressive"] is True


def test_jackpot_share_needs_a_consistent_round_total() -> None:
    with pytest.raises(InputError):
        cs(
            "AS KS QS JS TS",
            CS_DEALER_AK,
            {"ante": 10, "jackpot": 5},
            jackpot=JackpotPool(Fraction(1000), Fraction(2)),
        )


# --- Caribbean Stud classic: limits, caps, the royal that cannot fold ----------------------------


def test_classic_refuses_folding_a_royal_and_auto_calls_it() -> None:
    with pytest.raises(RuleError, match="royal flush cannot fold"):
        cs("AS KS QS JS TS", CS_DEALER_AK, {"ante": 10}, ("fold",), "classic")
    s = cs("AS KS QS JS TS", CS_DEALER_AK, {"ante": 10}, (), "classic")
    assert s.path == "call"
    assert returned(s) == {"ante": 20, "call": 20 + 20 * 100}


def test_classic_maximum_bets_reach_the_round_cap_exactly() -> None:
    s = cs("AS KS QS JS 2D", "TS 3S 4H 7C 8C", {"ante": 100, "bonus": 100}, variant="classic")
    assert s.judgement is not None and not s.judgement.dealer_qualifies
    s = cs("AS KS QS JS TS", CS_DEALER_AK, {"ante": 100, "bonus": 100}, variant="classic")
    assert returned(s) == {"ante": 200, "bonus": 100_100, "call": 20_200}
    assert s.total_returned == 120_500
    assert not any(bet.capped for bet in s.bets.values())


@pytest.mark.parametrize(("bet", "stake"), [("ante", 101), ("bonus", 100.01)])
def test_classic_limits_refuse_bets_over_the_maximum(bet: str, stake: float) -> None:
    bets: dict[str, int | str] = {"ante": 10, bet: str(stake)}
    with pytest.raises(RuleError, match="over the limit"):
        cs("AS KS QS JS TS", CS_DEALER_AK, bets, variant="classic")


def test_per_bet_and_round_caps_reduce_the_amounts() -> None:
    classic = get_rules("caribbean-stud", "classic")
    smaller = replace(
        classic,
        bets=tuple(
            replace(b, max_win=Fraction(50_000)) if b.name == "bonus" else b for b in classic.bets
        ),
    )
    s = cs("AS KS QS JS TS", CS_DEALER_AK, {"ante": 100, "bonus": 100}, rules=smaller)
    assert s.bets["bonus"].returned == 50_000 and s.bets["bonus"].capped
    capped = replace(classic, round_win_cap=Fraction(1000))
    s = cs("AS KS QS JS TS", CS_DEALER_AK, {"ante": 100, "bonus": 100}, rules=capped)
    assert s.total_returned == 1000
    assert returned(s) == {"ante": 200, "bonus": 800, "call": 0}  # excess off the last bets


# --- Ultimate Texas Hold'em ----------------------------------------------------------------------


def test_holdem_qualified_dealer_beaten() -> None:
    s = uth("AS AD", "KC 7D 4H 9S 2C", "KH 3D", {"ante": 10, "trips": 5}, ("preflop=play4x",))
    assert s.judgement is not None and s.judgement.dealer_qualifies
    assert returned(s) == {"ante": 20, "blind": 10, "trips": 0, "play": 80}
    assert outcomes(s)["blind"] == "push"


def test_holdem_qualified_dealer_higher() -> None:
    s = uth("KH 3D", "KC 7D 4H 9S 2C", "AS AD", {"ante": 10}, ("preflop=play3x",))
    assert returned(s) == {"ante": 0, "blind": 0, "play": 0}


def test_holdem_unqualified_dealer_beaten_pushes_the_ante() -> None:
    s = uth("AS KD", "QC 7D 4H 9S 2C", "JH 3D", {"ante": 10}, ("preflop=check", "play2x"))
    assert s.judgement is not None and not s.judgement.dealer_qualifies
    assert outcomes(s) == {"ante": "push", "blind": "push", "play": "win"}
    assert returned(s) == {"ante": 10, "blind": 10, "play": 40}


def test_holdem_unqualified_dealer_higher_loses_play_and_blind() -> None:
    s = uth("JH 3D", "QC 7D 4H 9S 2C", "AS KD", {"ante": 10}, ("river=play1x",))
    assert s.path == "check/check/play1x"
    assert returned(s) == {"ante": 10, "blind": 0, "play": 0}


def test_holdem_tie_pushes_everything_and_trips_still_pays() -> None:
    s = uth("2C 3D", "AS KS QS JS TS", "4H 5D", {"ante": 10, "trips": 5}, ("preflop=play4x",))
    assert outcomes(s) == {"ante": "push", "blind": "push", "trips": "win", "play": "push"}
    assert returned(s) == {"ante": 10, "blind": 10, "trips": 255, "play": 40}


HOLDEM_ROWS = [
    # player, board, dealer, blind odds (None: push), trips odds (None: loses)
    ("AH KH", "QH JH TH 2C 3D", "9C 9D", 500, 50),
    ("9H 8H", "7H 6H 5H 2C 3D", "KC KD", 50, 40),
    ("7C 7D", "7H 7S 2D 9C KS", "QC QD", 10, 30),
    ("QC QD", "QH 5D 5H 2C 9S", "AC KD", 3, 8),
    ("AH 2H", "KH 9H 4H 3C 7S", "QC QD", Fraction(3, 2), 7),
    ("5C 6D", "7H 8S 9C 2D KS", "KC 3D", 1, 4),
    ("8C 8D", "8H 2S 5C JD KS", "KC 3D", None, 3),
    ("AC AD", "8H 2S 5C JD KS", "KC 3D", None, None),
]


@pytest.mark.parametrize(("player", "board", "dealer", "blind", "trips"), HOLDEM_ROWS)
def test_holdem_blind_and_trips_tables(
    player: str, board: str, dealer: str, blind: Fraction | None, trips: int | None
) -> None:
    s = uth(player, board, dealer, {"ante": 10, "trips": 5}, ("preflop=play4x",))
    assert s.bets["play"].outcome == "win"
    assert s.bets["blind"].returned == (10 if blind is None else 10 + 10 * blind)
    assert s.bets["trips"].returned == (0 if trips is None else 5 + 5 * trips)


def test_holdem_blind_three_to_two_rounds_down_to_the_cent() -> None:
    s = uth("AH 2H", "KH 9H 4H 3C 7S", "QC QD", {"ante": "0.03"}, ("preflop=play4x",))
    assert s.bets["blind"].returned == Fraction("0.07")  # 0.075 exactly, never paid up


def test_holdem_trips_pays_after_a_fold() -> None:
    s = uth("7C 7D", "7H 7S 2D 9C KS", "QC QD", {"ante": 10, "trips": 5}, ())
    assert s.path == "check/check/fold"
    assert returned(s) == {"ante": 0, "blind": 0, "trips": 155}


@pytest.mark.parametrize(
    "decisions",
    [
        ("preflop=play4x", "flop=play2x"),
        ("preflop=play3x", "river=play1x"),
        ("flop=play2x", "river=fold"),
        ("preflop=check", "preflop=check"),
        ("preflop=play2x",),
        ("call",),
    ],
)
def test_holdem_illegal_decisions(decisions: tuple[str, ...]) -> None:
    with pytest.raises(RuleError):
        uth("AS AD", "KC 7D 4H 9S 2C", "KH 3D", {"ante": 10}, decisions)


# --- Illegal input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bets", "error"),
    [
        ({"ante": 10, "insurance": 5}, RuleError),
        ({"ante": 10, "call": 20}, RuleError),
        ({"ante": 10, "bonus": -1}, InputError),
        ({"ante": "0.005"}, InputError),
        ({"bonus": 5}, RuleError),
        ({"ante": 0}, RuleError),
    ],
)
def test_bad_bets_raise(bets: dict[str, int | str], error: type[Exception]) -> None:
    with pytest.raises(error):
        cs("AS KS QS JS TS", CS_DEALER_AK, bets)


def test_classic_has_no_jackpot_bet() -> None:
    with pytest.raises(RuleError, match="unknown bet 'jackpot'"):
        cs("AS KS QS JS TS", CS_DEALER_AK, {"ante": 10, "jackpot": 1}, variant="classic")


def test_holdem_blind_must_equal_the_ante() -> None:
    with pytest.raises(RuleError):
        uth("AS AD", "KC 7D 4H 9S 2C", "KH 3D", {"ante": 10, "blind": 5}, ())
    s = uth("AS AD", "KC 7D 4H 9S 2C", "KH 3D", {"ante": 10, "blind": 10}, ())
    assert s.bets["blind"].stake == 10


@pytest.mark.parametrize(
    ("player", "dealer"),
    [("AS KS QS JS", CS_DEALER_AK), ("AS KS QS JS TS", "AS KH 4S 3S 2C")],
)
def test_bad_cards_raise(player: str, dealer: str) -> None:
    with pytest.raises(CardError):
        cs(player, dealer, {"ante": 10})


# --- Voids ---------------------------------------------------------------------------------------


def test_void_refunds_every_stake_and_flags_a_jackpot_hand() -> None:
    rules = get_rules("caribbean-stud")
    cards = seat(rules, {"player": parse_cards("8C 8D 8H KD 2D")}, partial=True)
    bets = {"ante": Fraction(10), "bonus": Fraction(5), "jackpot": Fraction(1)}
    s = settle_void(rules, bets, ("call",), cards)
    assert outcomes(s) == dict.fromkeys(("ante", "bonus", "jackpot", "call"), "refund")
    assert s.total_returned == s.total_stake == 36
    assert s.jackpot_review
    assert not settle_void(rules, bets, (), seat(rules, {}, partial=True)).jackpot_review
    no_jackpot = settle_void(rules, {"ante": Fraction(10)}, (), cards)
    assert not no_jackpot.jackpot_review and no_jackpot.path == ""


# --- Properties ----------------------------------------------------------------------------------

CS_DECISIONS = st.lists(st.sampled_from(["call", "fold"]), max_size=1)
UTH_DECISIONS = st.sampled_from(
    [(), ("preflop=play4x",), ("preflop=play3x",), ("flop=play2x",), ("preflop=check",),
     ("flop=check", "river=play1x"), ("river=fold",)]
)  # fmt: skip
Case = tuple[GameRules, Settlement, dict[str, Fraction], tuple[str, ...]]
CENTS = st.integers(min_value=0, max_value=10_000).map(lambda c: Fraction(c, 100))


@st.composite
def rounds(draw: st.DrawFn) -> Case:
    game, variant = draw(
        st.sampled_from(
            [("caribbean-stud", "live"), ("caribbean-stud", "classic"), ("ultimate-holdem", "live")]
        )
    )
    rules = get_rules(game, variant)
    deck = draw(st.permutations(DECK))
    cards = dict(zip(rules.positions, deck, strict=False))
    ante = draw(CENTS.filter(lambda c: c > 0))
    bets = {"ante": ante}
    for spec in rules.bets:
        if spec.placed == "optional":
            bets[spec.name] = draw(CENTS)
    judgement = judge(rules, cards)
    decisions = draw(CS_DECISIONS if game == "caribbean-stud" else UTH_DECISIONS)
    if "fold" in judgement.refused:
        decisions = ["call"]  # a classic royal cannot fold: a void must refund the same Call
    return rules, settle(rules, judgement, bets, decisions), bets, tuple(decisions)


@settings(max_examples=150, deadline=None)
@given(rounds())
def test_totals_are_the_sums_of_the_bets(
    case: Case,
) -> None:
    _, s, bets, _ = case
    assert s.total_returned == sum(b.returned for b in s.bets.values())
    assert s.total_stake == sum(b.stake for b in s.bets.values())
    for name, bet in s.bets.items():
        assert bet.returned >= 0
        assert (bet.returned * 100).denominator == 1
        if name in bets:
            assert bet.stake == bets[name]
        if bet.outcome == "push":
            assert bet.returned == bet.stake
        if bet.outcome == "lose":
            assert bet.returned == 0


@settings(max_examples=100, deadline=None)
@given(rounds())
def test_a_void_returns_exactly_the_stakes(
    case: Case,
) -> None:
    rules, s, bets, decisions = case
    void = settle_void(rules, bets, decisions)
    assert {n: b.stake for n, b in void.bets.items()} == {n: b.stake for n, b in s.bets.items()}
    assert all(b.returned == b.stake and b.outcome == "refund" for b in void.bets.values())
