"""Per-table limits: the rules make a variant's stake limits, win caps and round cap configurable.

`with_limits` returns new rules with a table's figures in place of the variant's defaults; the
settlement (scalar and batch) reads them from the rules, so nothing else changes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from fractions import Fraction

from studio.errors import ConfigurationError
from studio.games.model import GameRules

Amount = Fraction | int | str


def _amount(key: str, value: Amount | None) -> Fraction | None:
    if value is None:
        return None
    try:
        amount = Fraction(value)
    except (ValueError, ZeroDivisionError) as err:
        raise ConfigurationError(f"limit {key}: {value!r} is not an amount") from err
    if amount <= 0:
        raise ConfigurationError(f"limit {key}: {value!r} must be above zero")
    return amount


def with_limits(rules: GameRules, limits: Mapping[str, Amount | None]) -> GameRules:
    """Return `rules` with a table's own limits; keys absent from `limits` keep the defaults.

    Keys: `min_stake.<bet>`, `max_stake.<bet>`, `max_win.<bet>` (the win includes the stake) and
    `round_win_cap` (all wins of one game together); a value of None lifts that limit. Raises
    `ConfigurationError` for an unknown key or bet, an amount that is not above zero, or a
    minimum above its bet's maximum.
    """
    bets = {spec.name: spec for spec in rules.bets}
    cap = rules.round_win_cap
    for key, value in limits.items():
        kind, _, bet = key.partition(".")
        if key == "round_win_cap":
            cap = _amount(key, value)
        elif kind == "min_stake" and bet in bets:
            bets[bet] = dataclasses.replace(bets[bet], min_stake=_amount(key, value))
        elif kind == "max_stake" and bet in bets:
            bets[bet] = dataclasses.replace(bets[bet], max_stake=_amount(key, value))
        elif kind == "max_win" and bet in bets:
            bets[bet] = dataclasses.replace(bets[bet], max_win=_amount(key, value))
        else:
            raise ConfigurationError(
                f"unknown limit {key!r} for {rules.game} {rules.variant} (expected round_win_cap,"
                f" min_stake.BET, max_stake.BET or max_win.BET with BET one of {', '.join(bets)})"
            )
    for spec in bets.values():
        low, high = spec.min_stake, spec.max_stake
        if low is not None and high is not None and low > high:
            raise ConfigurationError(
                f"limit min_stake.{spec.name} ({low}) is above max_stake.{spec.name} ({high})"
            )
    return dataclasses.replace(rules, bets=tuple(bets.values()), round_win_cap=cap)
