"""Per-board figures of Ultimate Texas Hold'em under the documented near-optimal strategy.

For each board the average is exact over all 1081 player hole pairs, the ten ways the board's
cards split into flop and turn/river, and all 990 dealer pairs: pre-flop and flop decisions come
from `studio.returns.holdem_strategy`, the river decision is exact. What is left to average is
the board, which `studio.returns.holdem` does exactly (every board up to suit symmetry) or by
sampling.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from studio.games.ultimate_holdem import PLAY_MULTIPLE
from studio.ranker import combinations_array
from studio.returns.holdem_showdown import showdown
from studio.returns.holdem_strategy import flop_play, preflop_play

FloatArray = npt.NDArray[np.float64]

FLOPS: npt.NDArray[np.intp] = combinations_array(5, 3).astype(np.intp)
"""The ten choices of which three board cards came on the flop, all equally likely."""
PREFLOP = float(PLAY_MULTIPLE["play4x"])
FLOP = float(PLAY_MULTIPLE["play2x"])
RIVER = float(PLAY_MULTIPLE["play1x"])


@dataclass(frozen=True, slots=True)
class BoardFigures:
    """Expectations per board (one entry per board, averaged over holes, flops and dealers).

    All are per Ante: `net` (Ante + Blind + Play), `wager` (Ante + Blind + Play staked),
    `blind_bonus` (the Blind's win beyond a push), and the share of hands that play 4x
    pre-flop (`preflop`), 2x on the flop (`flop`), 1x on the river (`river`) or fold (`fold`).
    `blind_forfeited` is the Blind win beyond a push (per Ante) that river folds give up: zero
    means the Blind component does not depend on the strategy.
    """

    net: FloatArray
    wager: FloatArray
    blind_bonus: FloatArray
    preflop: FloatArray
    flop: FloatArray
    river: FloatArray
    fold: FloatArray
    blind_forfeited: FloatArray


def board_figures(boards: npt.ArrayLike) -> BoardFigures:
    """Exact expectations under the strategy for each board of an (N, 5) card-index array.

    Rows must hold five distinct cards; a bad shape or index raises `studio.errors.CardError`.
    """
    arr = np.asarray(boards, dtype=np.intp)
    shown = showdown(arr)
    holes = shown.holes
    raised = preflop_play(holes[..., 0], holes[..., 1])
    flops = arr[:, FLOPS]
    flop_share = flop_play(holes[:, None, :, :], flops[:, :, None, :]).mean(axis=1)
    checked = (~raised) * (1.0 - flop_share)
    river_play = shown.river_play()

    net = np.where(
        raised,
        shown.net(PREFLOP),
        flop_share * shown.net(FLOP) + (1.0 - flop_share) * shown.river_net(),
    )
    wager = np.where(
        raised,
        2.0 + PREFLOP,
        flop_share * (2.0 + FLOP) + (1.0 - flop_share) * (2.0 + RIVER * river_play),
    )
    folded = checked * ~river_play
    return BoardFigures(
        net=net.mean(axis=1),
        wager=wager.mean(axis=1),
        blind_bonus=shown.blind_bonus.mean(axis=1),
        preflop=raised.mean(axis=1),
        flop=((~raised) * flop_share).mean(axis=1),
        river=(checked * river_play).mean(axis=1),
        fold=folded.mean(axis=1),
        blind_forfeited=(folded * shown.blind_bonus).mean(axis=1),
    )
