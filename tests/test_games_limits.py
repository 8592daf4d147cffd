"""A table's own limits replace the variant's defaults, and settlement honours them."""

from __future__ import annotations

from fractions import Fraction

import pytest

from studio.cards import Card, parse_cards
from studio.errors import ConfigurationError, RuleError
from studio.games import get_rules, judge, with_limits
from studio.games.settlement import settle


def _round(rules_game: str = "caribbean-stud") -> dict[str, Card]:
    rules = get_rules(rules_game, "classic")
    cards = parse_cards("AS KS QS JS TS 2C 3D 4H 5S 7C")
    return dict(zip(rules.positions, cards, strict=True))


def test_defaults_are_kept_unless_a_limit_is_given() -> None:
    classic = get_rules("caribbean-stud", "classic")
    table = with_limits(classic, {"max_stake.ante": 50})
    assert table.bet("ante").max_stake == 50
    assert table.bet("bonus").max_stake == classic.bet("bonus").max_stake
    assert table.round_win_cap == Fraction(120500)


def test_a_lower_stake_limit_refuses_a_stake_the_default_allowed() -> None:
    classic = get_rules("caribbean-stud", "classic")
    judged = judge(classic, _round())
    settle(classic, judged, {"ante": Fraction(100)}, ["call"])
    table = with_limits(classic, {"max_stake.ante": 50})
    with pytest.raises(RuleError):
        settle(table, judge(table, _round()), {"ante": Fraction(100)}, ["call"])


def test_a_round_cap_limits_the_total_won() -> None:
    classic = get_rules("caribbean-stud", "classic")
    table = with_limits(classic, {"round_win_cap": 5000, "max_win.call": None})
    # A royal: Ante 100 wins 1:1 (dealer does not qualify: call pushes), 5+1 100 wins 1000:1.
    result = settle(table, judge(table, _round()), {"ante": Fraction(100), "bonus": Fraction(100)},
                    ["call"])  # fmt: skip
    assert result.total_returned == 5000  # the cap includes the stakes returned
    uncapped = settle(classic, judge(classic, _round()),
                      {"ante": Fraction(100), "bonus": Fraction(100)}, ["call"])  # fmt: skip
    assert uncapped.total_returned == 200 + 200 + 100_100


@pytest.mark.parametrize(
    "limits", [{"max_stake.side": 1}, {"min_stake.side": 1}, {"min_kind.ante": 1},
               {"round_win_cap": 0}, {"max_win.ante": "lots"}, {"min_stake.ante": 0},
               {"min_stake.ante": 200}],
)  # fmt: skip
def test_unknown_or_bad_limits_are_configuration_errors(limits: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError):
        with_limits(get_rules("caribbean-stud", "classic"), limits)  # type: ignore[arg-type]
