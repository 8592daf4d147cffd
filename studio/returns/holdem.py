"""Ultimate Texas Hold'em main-game return (Ante + Blind + Play) for `studio rtp`.

Method (docs/holdem-returns.md has the derivation and the figures):

* every board up to suit symmetry (134,459 classes weighted by size, covering all C(52, 5)
  boards), and on each board every player hole pair, every flop/turn-river split and every
  dealer pair: nothing is sampled, so the figure is exact for the strategy played;
* the strategy is the documented near-optimal one of `studio.returns.holdem_strategy` for the
  pre-flop and flop decisions, with the exact river decision (PLAY 1x exactly when its
  expectation over all 990 dealer pairs beats folding);
* optimal pre-flop and flop play (the published figures) returns slightly more, so the
  published return lies a little above the figure computed here.

A sampled version (`simulated_return`, seeded boards, each still exact over holes and dealers)
gives a 95% confidence interval for quick checks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from studio.games import get_rules
from studio.games.ultimate_holdem import GAME
from studio.ranker import Progress
from studio.returns.holdem_boards import canonical_boards, random_boards
from studio.returns.holdem_play import BoardFigures, board_figures
from studio.returns.report import ReturnRow

BATCH = 256
"""Boards per vectorised step: large enough to amortise numpy calls, small enough for memory."""
Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class HoldemReturn:
    """The main game's return under the documented strategy, with what it was made of.

    `per_ante` is 1 + E[net]/Ante and `on_total` 1 + E[net]/E[Ante + Blind + Play]. `blind_bonus`
    is E[Blind win beyond a push] per Ante; `preflop`, `flop`, `river` and `fold` are the shares
    of hands that play 4x, 2x, 1x or fold. `boards` counts boards evaluated; for a simulation
    `per_ante_ci` and `on_total_ci` are 95% confidence intervals, for an exact result None.
    `blind_forfeited` is the Blind win beyond a push (per Ante) given up by river folds (0: the
    Blind component is then the strategy-independent one).
    """

    per_ante: float
    on_total: float
    blind_bonus: float
    mean_wager: float
    preflop: float
    flop: float
    river: float
    fold: float
    blind_forfeited: float
    boards: int
    per_ante_ci: tuple[float, float] | None = None
    on_total_ci: tuple[float, float] | None = None


def _figures(boards: npt.NDArray[np.int8], progress: Progress | None) -> BoardFigures:
    """Board figures of all `boards` in batches, reporting (boards done, boards in all)."""
    parts: list[BoardFigures] = []
    total = len(boards)
    for start in range(0, total, BATCH):
        parts.append(board_figures(boards[start : start + BATCH]))
        if progress is not None:
            progress(min(start + BATCH, total), total)
    fields = BoardFigures.__slots__
    if not parts:
        return BoardFigures(*(np.zeros(0) for _ in fields))
    return BoardFigures(*(np.concatenate([getattr(p, f) for p in parts]) for f in fields))


def _weighted(figures: BoardFigures, weights: npt.NDArray[np.float64]) -> dict[str, float]:
    """Weighted means of every per-board figure."""
    total = float(weights.sum())
    return {f: float(getattr(figures, f) @ weights) / total for f in BoardFigures.__slots__}


def exact_return(progress: Progress | None = None) -> HoldemReturn:
    """The exact return under the documented strategy, over every board up to suit symmetry.

    `progress(done, total)` counts boards (134,459 in all). Takes about a minute or two.
    """
    boards, weights = canonical_boards()
    means = _weighted(_figures(boards, progress), weights.astype(np.float64))
    return _result(means, int(weights.sum()))


def simulated_return(
    samples: int, seed: int = 2026, progress: Progress | None = None
) -> HoldemReturn:
    """The return estimated from `samples` random boards (each exact over holes and dealers).

    Boards come from `numpy.random.default_rng(seed)`, so equal arguments give equal results.
    Confidence intervals are normal-theory (delta method for the ratio on the total bet).
    Raises ValueError unless `samples` >= 2.
    """
    if samples < 2:
        raise ValueError(f"a simulation needs at least 2 boards, got {samples}")
    boards = random_boards(np.random.default_rng(seed), samples)
    figures = _figures(boards, progress)
    means = _weighted(figures, np.ones(samples))
    net, wager = figures.net, figures.wager
    ratio = means["net"] / means["wager"]
    ante_half = Z95 * float(net.std(ddof=1)) / math.sqrt(samples)
    residual = net - ratio * wager
    total_half = Z95 * float(residual.std(ddof=1)) / (means["wager"] * math.sqrt(samples))
    result = _result(means, samples)
    return HoldemReturn(
        **{f: getattr(result, f) for f in HoldemReturn.__slots__ if not f.endswith("_ci")},
        per_ante_ci=(result.per_ante - ante_half, result.per_ante + ante_half),
        on_total_ci=(result.on_total - total_half, result.on_total + total_half),
    )


def _result(means: dict[str, float], boards: int) -> HoldemReturn:
    """Turn the weighted means of the board figures into returns on both bases."""
    return HoldemReturn(
        per_ante=1.0 + means["net"],
        on_total=1.0 + means["net"] / means["wager"],
        blind_bonus=means["blind_bonus"],
        mean_wager=means["wager"],
        preflop=means["preflop"],
        flop=means["flop"],
        river=means["river"],
        fold=means["fold"],
        blind_forfeited=means["blind_forfeited"],
        boards=boards,
    )


def holdem_rows(
    progress: Progress | None = None, *, samples: int | None = None, seed: int = 2026
) -> list[ReturnRow]:
    """The main-game rows of the returns report: per Ante and on the total bet.

    With `samples=None` (default) the figures are exact under the documented strategy (about a
    minute or two); with a number, they are estimated from that many seeded random boards and
    carry a 95% confidence interval. `progress(done, total)` counts boards.
    Raises ValueError for `samples` < 2.
    """
    published = get_rules(GAME).published_returns
    if samples is None:
        result = exact_return(progress)
        method = "exact"
        how = (
            "exact enumeration of every board (suit symmetry), hole pair, flop split and dealer "
            "pair under a documented near-optimal strategy (simple pre-flop and flop rules, "
            "exact river decision); optimal play returns slightly more"
        )
    else:
        result = simulated_return(samples, seed, progress)
        method = "simulation"
        how = (
            f"simulation of {samples} seeded random boards, each exact over hole pairs, flop "
            "splits and dealer pairs, under a documented near-optimal strategy (simple pre-flop "
            "and flop rules, exact river decision); optimal play returns slightly more"
        )
    blind = f"; Blind bonus component (exact, strategy-free) {result.blind_bonus:.5f} per Ante"
    rows = []
    for basis, computed, ci in (
        ("ante", result.per_ante, result.per_ante_ci),
        ("total", result.on_total, result.on_total_ci),
    ):
        rows.append(
            ReturnRow(
                game=GAME,
                variant="live",
                bet="main",
                basis=basis,
                computed=computed,
                published=float(published[f"main/{basis}"]),
                method=method,
                ci95=ci,
                note=how + (blind if basis == "ante" and samples is None else ""),
            )
        )
    return rows
