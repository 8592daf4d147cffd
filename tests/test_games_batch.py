"""Vectorised settlement equals the scalar one, player by player, to the cent."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studio.cards import DECK, Card, parse_cards
from studio.errors import InputError, RuleError
from studio.games import decision_paths, get_rules, judge
from studio.games.batch import NOT_PLACED, path_codes, settle_players
from studio.games.judgement import OUTCOMES
from studio.games.model import GameRules
from studio.games.settlement import JackpotPool, settle


def _tight_classic() -> GameRules:
    classic = get_rules("caribbean-stud", "classic")
    bets = tuple(
        replace(b, max_win=Fraction(500)) if b.name == "bonus" else b for b in classic.bets
    )
    return replace(classic, bets=bets, round_win_cap=Fraction(700))


RULES = [
    get_rules("caribbean-stud", "live"),
    get_rules("caribbean-stud", "classic"),
    _tight_classic(),
    get_rules("ultimate-holdem", "live"),
]
STRONG = ["AS KS QS JS TS", "9H 8H 7H 6H 5H", "7C 7D 7H 7S 9D", "QC QD QH 5D 5H", "AH 2H 9H 4H KH"]
DECISIONS = {
    "caribbean-stud": [(), ("call",), ("fold",)],
    "ultimate-holdem": [
        (), ("preflop=play4x",), ("preflop=play3x",), ("flop=play2x",),
        ("preflop=check", "flop=check", "river=play1x"), ("river=fold",),
    ],
}  # fmt: skip


@st.composite
def round_cards(draw: st.DrawFn, rules: GameRules) -> dict[str, Card]:
    deck = list(draw(st.permutations(DECK)))
    strong = draw(st.none() | st.sampled_from(STRONG))
    if strong is not None:
        # Random decks almost never hold a royal: seat a strong hand first to reach those rows.
        forced = list(parse_cards(strong))[: len(rules.seats["player"])]
        deck = forced + [c for c in deck if c not in forced]
    return dict(zip(rules.positions, deck, strict=False))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_vectorised_equals_scalar(data: st.DataObject) -> None:
    rules = data.draw(st.sampled_from(RULES))
    judgement = judge(rules, data.draw(round_cards(rules)))
    n = data.draw(st.integers(min_value=1, max_value=25))
    limit = {b.name: b.max_stake for b in rules.bets}

    def cents(name: str, low: int) -> list[int]:
        top = 5_000 if limit[name] is None else int(limit[name] * 100)  # type: ignore[operator]
        return data.draw(st.lists(st.integers(low, top), min_size=n, max_size=n))

    stakes = {"ante": cents("ante", 1)}
    for spec in rules.bets:
        if spec.placed == "optional":
            stakes[spec.name] = cents(spec.name, 0)
    options = DECISIONS[rules.game]
    decisions = data.draw(st.lists(st.sampled_from(options), min_size=n, max_size=n))
    if "fold" in judgement.refused:
        decisions = [("call",)] * n
    jackpot = None
    if "jackpot" in stakes and data.draw(st.booleans()):
        jackpot = JackpotPool(Fraction(data.draw(st.integers(0, 10**7)), 3), Fraction(10**6))

    batch = settle_players(
        rules, judgement, stakes, path_codes(rules, judgement, decisions), jackpot
    )
    for i in range(n):
        bets = {name: Fraction(values[i], 100) for name, values in stakes.items()}
        scalar = settle(rules, judgement, bets, decisions[i], jackpot)
        for name in batch.returned:
            got = scalar.bets.get(name)
            if got is None:
                assert batch.stakes[name][i] == 0
                assert batch.outcomes[name][i] == NOT_PLACED
                continue
            assert batch.stakes[name][i] == got.stake * 100
            assert batch.returned[name][i] == got.returned * 100, (name, i)
            assert OUTCOMES[batch.outcomes[name][i]] == got.outcome
            assert bool(batch.capped[name][i]) == got.capped
        assert batch.total_returned[i] == scalar.total_returned * 100
        assert batch.total_stake[i] == scalar.total_stake * 100


def _royal_round(variant: str = "classic") -> tuple[GameRules, object]:
    rules = get_rules("caribbean-stud", variant)
    cards = dict(zip(rules.positions, parse_cards("AS KS QS JS TS 2C 3D 4H 5S 7C"), strict=True))
    return rules, judge(rules, cards)


def test_a_refused_path_names_the_player() -> None:
    rules, judgement = _royal_round()
    fold = decision_paths(rules).index("fold")
    with pytest.raises(RuleError, match="player 2: decision refused"):
        settle_players(rules, judgement, {"ante": [100, 100, 100]}, [0, 0, fold])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("stakes", "error", "match"),
    [
        ({"ante": [100, 10_001]}, RuleError, "player 1: bet ante"),
        ({"ante": [100, 0]}, RuleError, "player 1: an Ante"),
        ({"ante": [100, 100], "bonus": [-1, 0]}, InputError, "player 0"),
        ({"ante": [100, 100], "jackpot": [1, 1]}, RuleError, "unknown bet"),
        ({"ante": [1.5, 100]}, InputError, "integer"),
    ],
)
def test_bad_stakes_raise(stakes: dict[str, list[float]], error: type, match: str) -> None:
    rules, judgement = _royal_round()
    with pytest.raises(error, match=match):
        settle_players(rules, judgement, stakes, [0, 0])  # type: ignore[arg-type]


def test_a_large_round_settles_in_one_call() -> None:
    rules, judgement = _royal_round("live")
    n = 10_000
    rng = np.random.default_rng(7)
    ante = rng.integers(1, 10_000, n)
    codes = rng.integers(0, 2, n)
    batch = settle_players(
        rules, judgement, {"ante": ante, "jackpot": np.full(n, 100)}, codes,
        JackpotPool(Fraction(1_000_000), Fraction(n)),
    )  # fmt: skip
    assert (batch.returned["jackpot"] == 100 * 100).all()  # 1,000,000 shared by 10,000 bets
    called = codes == decision_paths(rules).index("call")
    assert (batch.returned["call"][called] == 2 * ante[called]).all()  # dealer does not qualify
    assert (batch.returned["ante"] == np.where(called, 2 * ante, 0)).all()


def test_caps_agree_with_the_scalar_settlement() -> None:
    rules = _tight_classic()
    cards = dict(zip(rules.positions, parse_cards("AS KS QS JS TS 2C 3D 4H 5S 7C"), strict=True))
    judgement = judge(rules, cards)
    batch = settle_players(rules, judgement, {"ante": [10_000], "bonus": [10_000]}, [0])
    scalar = settle(rules, judgement, {"ante": Fraction(100), "bonus": Fraction(100)}, ["call"])
    assert {n: int(a[0]) for n, a in batch.returned.items()} == {
        n: b.returned * 100 for n, b in scalar.bets.items()
    }
    assert scalar.total_returned == 700 and scalar.bets["bonus"].capped
    assert bool(batch.capped["call"][0]) and bool(batch.capped["bonus"][0])
