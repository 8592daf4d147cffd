"""Caribbean Stud main game (Ante and Call): the exact return under optimal strategy.

The player sees their five cards and the dealer's up card, then calls (2 x Ante) or folds (loses
the Ante). The optimal strategy calls exactly when the expected net of calling beats -1 Ante, judged
for each (player hand, up card) pair over the 163,185 ways the dealer's hand can be completed.
Per Ante, a called hand nets, against the dealer's outcome (GAMES.md):

* dealer not qualifying: +1 (Ante 1:1, Call push);
* dealer qualifying, player higher: +1 + 2 x (Call table odds of the player's category);
* tie: 0;
* dealer higher: -3.

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
from studio.games.model import PayKind, Paytable
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
    """The exact main-game figures of one Call table under optimal strategy.

    `per_ante` and `per_total` are returns (1 + expected net over the Ante, or over the expected
    total of Ante and Call); `call_share` is the share of (hand, up card) situations in which
    the optimal player calls; `mean_stake` is the expected Ante plus Call, in Antes.
    """

    per_ante: Fraction
    per_total: Fraction
    call_share: Fraction
    mean_stake: Fraction


def call_decisions(table: DealerCounts, call: Paytable) -> npt.NDArray[np.bool_]:
    """Whether the optimal player calls, per player class and dealer up card (`table`'s axes).

    Calls exactly when calling's expected net beats folding's -1 Ante; an up card from the
    player's own hand is never a call. Raises `ValueError` unless `call` is an odds table with a
    figure for every category.
    """
    call_net, fold_net = _scaled_nets(table, call)
    return call_net > fold_net


def main_game_return(table: DealerCounts, call: Paytable) -> MainGameReturn:
    """The exact per-Ante and per-total-bet returns of the main game with Call table `call`.

    Raises `ValueError` unless `call` is an odds table with a figure for every category.
    """
    call_net, fold_net = _scaled_nets(table, call)
    calls = call_net > fold_net
    weights = table.weights[:, None]
    net = int((np.where(calls, call_net, fold_net) * weights).sum())
    called = int((calls * weights).sum())
    mean_net = Fraction(net, _denominator(call) * SITUATIONS * DEALER_COMPLETIONS)
    mean_stake = 1 + Fraction(2 * called, SITUATIONS)
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
    table = dealer_counts(progress)
    rows = []
    for variant in VARIANTS:
        rules = get_rules(GAME, variant)
        result = main_game_return(table, rules.paytables["call"])
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


def _denominator(call: Paytable) -> int:
    """The least multiplier that makes every Call odds figure whole (1 for whole odds).

    Raises `ValueError` unless `call` is an odds table with a figure for every category.
    """
    if call.kind is not PayKind.ODDS or set(call.pays) != set(Category):
        raise ValueError(f"the Call table {call.name!r} must give odds for every category")
    return lcm(*(odds.denominator for odds in call.pays.values()))


def _scaled_nets(table: DealerCounts, call: Paytable) -> tuple[Grid, Grid]:
    """Total net of calling and of folding per class and up card, over all completions.

    Both are in Antes times `_denominator(call)`, so they are whole; an up card from the
    player's hand gets a calling net of -1 and a folding net of 0, so it is never a call and
    adds nothing.
    """
    scale = _denominator(call)
    odds = np.array([int(call.pays[cat] * scale) for cat in Category], dtype=np.int64)
    player_odds = odds[categories(table.values).astype(np.intp)][:, None]
    counts = table.counts.astype(np.int64)
    possible = counts.sum(axis=2) > 0
    call_net = (
        scale * (counts[..., 0] - 3 * counts[..., 3]) + (scale + 2 * player_odds) * counts[..., 1]
    )
    fold_net = np.where(possible, -scale * DEALER_COMPLETIONS, 0)
    return np.where(possible, call_net, -1), fold_net
