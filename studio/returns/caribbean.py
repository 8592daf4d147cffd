"""Caribbean Stud main game (Ante and Call): the exact return under optimal strategy.

The player sees their five cards and the dealer's up card, then calls (m x Ante, m = 2 from the
rules' stake multiples) or folds (loses the Ante). The optimal strategy calls exactly when the
expected net of calling beats -1 Ante, judged for each (player hand, up card) pair over the
163,185 ways the dealer's hand can be completed; a hand whose fold the rules refuse (the classic
variant's royal flush) always calls. Per Ante, a called hand nets, by the dealer's outcome
(docs/games.md):

* dealer not qualifying: +1 (Ante 1:1, Call push);
* dealer qualifying, player higher: +1 + m x (Call table odds of the player's category);
* tie: 0;
* dealer higher: -(1 + m).

The return per Ante is 1 + E[net]; per total bet it is 1 + E[net] / E[Ante + Call]. Every figure
is an exact fraction over all C(52, 5) x 47 x C(46, 4) deals; the outcome counts come from
`studio.returns.dealer_counts` and are shared by both variants.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb, lcm

import numpy as np
import numpy.typing as npt

from studio.games import get_rules
from studio.games.caribbean_stud import GAME
from studio.games.model import GameRules, PayKind
from studio.hands import Category
from studio.ranker import Progress, categories
from studio.returns.dealer_counts import DEALER_COMPLETIONS, DealerCounts, dealer_counts
from studio.returns.report import ReturnRow

VARIANTS = ("live", "classic")
"""The Caribbean Stud variants whose main game this module reports, in report order."""

SITUATIONS = comb(52, 5) * 47
"""(Player hand, dealer up card) pairs: the situations in which the player decides."""

Grid = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class MainGameReturn:
    """The exact main-game figures of one variant under optimal strategy.

    `per_ante` and `per_total` are returns (1 + expected net over the Ante, or over the expected
    total of Ante and Call); `call_share` is the share of (hand, up card) situations in which
    the optimal player calls; `mean_stake` is the expected Ante plus Call, in Antes.
    """

    per_ante: Fraction
    per_total: Fraction
    call_share: Fraction
    mean_stake: Fraction


def call_decisions(table: DealerCounts, rules: GameRules) -> npt.NDArray[np.bool_]:
    """Whether the optimal player calls, per player class and dealer up card (`table`'s axes).

    Calls exactly when calling's expected net beats folding's -1 Ante, or when the rules refuse
    the fold; an up card from the player's own hand is never a call. Raises `ValueError` for
    rules without an odds Call table covering every category or without a call stake.
    """
    call_net, fold_net, forced = _scaled_nets(table, rules)
    return (call_net > fold_net) | forced


def main_game_return(table: DealerCounts, rules: GameRules) -> MainGameReturn:
    """The exact per-Ante and per-total-bet returns of the main game of `rules`.

    `table` must hold the counts for the rules' qualifier. Raises `ValueError` for rules without
    an odds Call table covering every category or without a call stake.
    """
    call_net, fold_net, forced = _scaled_nets(table, rules)
    calls = (call_net > fold_net) | forced
    weights = table.weights[:, None]
    net = int((np.where(calls, call_net, fold_net) * weights).sum())
    called = int((calls * weights).sum())
    mean_net = Fraction(net, _denominator(rules) * SITUATIONS * DEALER_COMPLETIONS)
    mean_stake = 1 + rules.stake_multiples["call"] * Fraction(called, SITUATIONS)
    return MainGameReturn(
        per_ante=1 + mean_net,
        per_total=1 + mean_net / mean_stake,
        call_share=Fraction(called, SITUATIONS),
        mean_stake=mean_stake,
    )


def caribbean_rows(progress: Progress | None = None) -> list[ReturnRow]:
    """The main-game rows of `studio rtp` for every variant: per Ante and per total bet.

    `progress(done, total)` reports the outcome-count computation the first time it runs.
    """
    rows = []
    for variant in VARIANTS:
        rules = get_rules(GAME, variant)
        if rules.qualifier is None:
            raise ValueError(f"{GAME} {variant} has no dealer qualifier")
        result = main_game_return(dealer_counts(rules.qualifier, progress), rules)
        note = f"optimal strategy seeing the dealer's up card; calls {float(result.call_share):.2%}"
        for basis, figure in (("ante", result.per_ante), ("total", result.per_total)):
            published = rules.published_returns.get(f"main/{basis}")
            rows.append(
                ReturnRow(
                    game=GAME,
                    variant=variant,
                    bet="main",
                    basis=basis,
                    computed=float(figure),
                    published=None if published is None else float(published),
                    method="exact",
                    note=note,
                )
            )
    return rows


def _denominator(rules: GameRules) -> int:
    """The least multiplier that makes every Call win (odds x call size) whole.

    Raises `ValueError` unless the rules have an odds Call table with a figure for every
    category and a call stake.
    """
    call = rules.paytables["call"]
    if call.kind is not PayKind.ODDS or set(call.pays) != set(Category):
        raise ValueError(f"the Call table {call.name!r} must give odds for every category")
    if "call" not in rules.stake_multiples:
        raise ValueError(f"{rules.game} {rules.variant} does not say how large a call is")
    size = rules.stake_multiples["call"]
    return lcm(size.denominator, *((odds * size).denominator for odds in call.pays.values()))


def _scaled_nets(table: DealerCounts, rules: GameRules) -> tuple[Grid, Grid, npt.NDArray[np.bool_]]:
    """Total net of calling and of folding per class and up card, over all completions.

    Both are in Antes times `_denominator(rules)`, so they are whole; an up card from the
    player's hand gets a calling net of -1 and a folding net of 0, so it is never a call and
    adds nothing. The third array marks the situations whose fold the rules refuse.
    """
    scale = _denominator(rules)
    size = rules.stake_multiples["call"]
    call = rules.paytables["call"]
    win = np.array([int((1 + size * call.pays[cat]) * scale) for cat in Category], dtype=np.int64)
    lose = int((1 + size) * scale)
    player_category = categories(table.values).astype(np.intp)
    counts = table.counts.astype(np.int64)
    possible = counts.sum(axis=2) > 0
    call_net = (
        scale * counts[..., 0]
        + win[player_category][:, None] * counts[..., 1]
        - lose * counts[..., 3]
    )
    fold_net = np.where(possible, -scale * DEALER_COMPLETIONS, 0)
    unfoldable = np.isin(player_category, list(rules.refused.get("fold", frozenset())))
    forced = unfoldable[:, None] & possible
    return np.where(possible, call_net, -1), fold_net, forced
