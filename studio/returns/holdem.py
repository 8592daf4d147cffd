"""Ultimate Texas Hold'em main-game return (Ante + Blind + Play) for `studio rtp`.

`exact_return` is exact under optimal play: every board up to suit symmetry (134,459 classes
weighted by size, covering all C(52, 5) boards), and on each board every player hole pair, every
flop/turn-river split and every dealer pair; the river decision is taken per board, the flop
decision per (hole pair, flop) situation and the pre-flop one per starting hand, each maximising
the exact expectation (`studio.returns.holdem_optimal`). It takes about two minutes.

`strategy_return` (exact) and `simulated_return` (seeded random boards, 95% confidence
intervals) value the documented near-optimal strategy of `studio.returns.holdem_strategy`
instead, for comparison and quick checks. docs/holdem-returns.md has the derivation and figures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from studio.games import get_rules
from studio.games.ultimate_holdem import GAME
from studio.ranker import Progress
from studio.returns.holdem_boards import canonical_boards, random_boards
from studio.returns.holdem_optimal import OptimalPlay, SituationSums
from studio.returns.holdem_play import BoardFigures, board_figures
from studio.returns.holdem_showdown import showdown
from studio.returns.holdem_situations import situation_table
from studio.returns.report import ReturnRow

BATCH = 256
"""Boards per vectorised step: large enough to amortise numpy calls, small enough for memory."""
Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class HoldemReturn:
    """The main game's return under one way of playing, with what it was made of.

    `per_ante` is 1 + E[net]/Ante and `on_total` 1 + E[net]/E[Ante + Blind + Play]. `blind_bonus`
    is E[Blind win beyond a push] per Ante; `preflop`, `flop`, `river` and `fold` are the shares
    of hands that play 4x, 2x, 1x or fold. `boards` counts boards evaluated; for a simulation
    `per_ante_ci` and `on_total_ci` are 95% confidence intervals, for an exact result None.
    `blind_forfeited` is the Blind win beyond a push (per Ante) given up by river folds (0: the
    Blind component is then the strategy-independent one). `play` names the way of playing:
    `optimal` or `simple` (`studio.returns.holdem_strategy`); for optimal play,
    `preflop_multiples[k]` is the Play chosen pre-flop (4, or 0 to check) for starting-hand
    class k (`studio.returns.holdem_situations.hole_class`).
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
    play: str = "simple"
    preflop_multiples: tuple[int, ...] = ()
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
    """The exact return under optimal play, over every board up to suit symmetry.

    `progress(done, total)` counts boards (134,459 in all); numbering the flop situations comes
    first (about 10 s). Takes about two minutes and 0.5 GB of memory.
    """
    boards, weights = canonical_boards()
    total = len(boards)
    if progress is not None:
        progress(0, total)
    sums = SituationSums(situation_table())
    bonus = 0.0
    for start in range(0, total, BATCH):
        batch, batch_weights = boards[start : start + BATCH], weights[start : start + BATCH]
        shown = showdown(batch)
        sums.add(batch, batch_weights, shown)
        bonus += float(batch_weights @ shown.blind_bonus.mean(axis=1))
        if progress is not None:
            progress(min(start + BATCH, total), total)
    best: OptimalPlay = sums.solve()
    return HoldemReturn(
        per_ante=1.0 + best.net,
        on_total=1.0 + best.net / best.wager,
        blind_bonus=bonus / float(weights.sum()),
        mean_wager=best.wager,
        preflop=best.preflop,
        flop=best.flop,
        river=best.river,
        fold=best.fold,
        blind_forfeited=best.blind_forfeited,
        boards=int(weights.sum()),
        play="optimal",
        preflop_multiples=tuple(int(m) for m in best.preflop_play),
    )


def strategy_return(progress: Progress | None = None) -> HoldemReturn:
    """The exact return under the documented near-optimal strategy, over every board.

    `progress(done, total)` counts boards (134,459 in all). Takes about a minute.
    """
    boards, weights = canonical_boards()
    means = _weighted(_figures(boards, progress), weights.astype(np.float64))
    return _result(means, int(weights.sum()))


def simulated_return(
    samples: int, seed: int = 2026, progress: Progress | None = None
) -> HoldemReturn:
    """The return under the documented strategy, estimated from `samples` random boards.

    Each board is still exact over hole pairs, flop splits and dealer pairs; only boards vary.

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
    return replace(
        result,
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

    With `samples=None` (default) the figures are exact under optimal play (about two minutes,
    `exact_return`); with a number, they are a quick estimate for the documented near-optimal
    strategy from that many seeded random boards, with a 95% confidence interval
    (`simulated_return`). `progress(done, total)` counts boards. Raises ValueError for
    `samples` < 2.
    """
    published = get_rules(GAME).published_returns
    if samples is None:
        result = exact_return(progress)
        method = "exact"
        how = (
            "exact under optimal play: every board (suit symmetry), hole pair, flop/turn-river "
            "split and dealer pair; river decided per board, flop per hole+flop situation, "
            f"pre-flop per starting hand; Blind bonus {result.blind_bonus:.5f} per Ante (exact)"
        )
    else:
        result = simulated_return(samples, seed, progress)
        method = "simulation"
        how = (
            f"simulation of {samples} random boards (seed {seed}), each exact over hole pairs, "
            "flop splits and dealer pairs, under a documented near-optimal strategy (simple "
            "pre-flop and flop rules, exact river decision); optimal play returns slightly more"
        )
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
                note=how,
            )
        )
    return rows
