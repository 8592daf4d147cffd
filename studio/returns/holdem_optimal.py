"""Optimal Ultimate Texas Hold'em play, found and valued exactly from board-by-board showdowns.

The player decides three times, each time on what is known then:

* river (hole pair + board): PLAY 1x exactly when it beats folding, per board (`Showdown`);
* flop (hole pair + flop): PLAY 2x when its expectation over every turn/river beats checking
  and then deciding the river optimally; summed per situation class (`holdem_situations`);
* pre-flop (hole pair): PLAY 4x, 3x or CHECK, whichever has the highest expectation over every
  flop, each flop played optimally; summed per starting-hand class.

`SituationSums.add` folds a batch of boards in: each (board, hole pair) adds its weight, its
linear coefficients and its river value to the situation of each of the board's ten flops.
Once every board is in, `SituationSums.solve` makes the decisions backwards and returns the
expectations. Boards may be suit-symmetry representatives, weighted by class size: each
situation is then credited in place of its images, which share its class.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from studio.games.ultimate_holdem import PLAY_MULTIPLE
from studio.returns.holdem_play import FLOPS
from studio.returns.holdem_showdown import Showdown
from studio.returns.holdem_situations import (
    HOLE_CLASSES,
    SituationTable,
    flop_ids,
    hole_class,
    pair_ids,
)

FloatArray = npt.NDArray[np.float64]

_PREFLOP_OPTIONS = ("play4x", "play3x")


@dataclass(frozen=True, slots=True)
class OptimalPlay:
    """Expectations per Ante under optimal play, and the optimal pre-flop decision per hand.

    `net` and `wager` are E[net] and E[Ante + Blind + Play]; `preflop`, `flop`, `river`, `fold`
    the shares of hands that play 4x or 3x pre-flop, 2x on the flop, 1x on the river, or fold;
    `blind_forfeited` the Blind win beyond a push given up by folds; `preflop_play[k]` the
    Play multiple (4, 3, or 0 for check) chosen for starting-hand class k (`hole_class`).
    """

    net: float
    wager: float
    preflop: float
    flop: float
    river: float
    fold: float
    blind_forfeited: float
    preflop_play: npt.NDArray[np.int64]


class SituationSums:
    """Running sums per flop situation class and per starting hand over the boards added."""

    def __init__(self, table: SituationTable) -> None:
        """Start empty sums over the classes of `table` (`situation_table()`)."""
        self._table = table
        self._situation = np.zeros((4, table.count), dtype=np.float64)
        self._hand = np.zeros((2, HOLE_CLASSES), dtype=np.float64)
        self._forfeit = np.zeros(table.count, dtype=np.float64)

    def add(self, boards: npt.ArrayLike, weights: npt.ArrayLike, shown: Showdown) -> None:
        """Fold in the boards of an (N, 5) array with their weights and `showdown(boards)`."""
        arr = np.asarray(boards, dtype=np.intp)
        w = np.asarray(weights, dtype=np.float64)[:, None]
        holes = shown.holes
        pair = pair_ids()[holes[..., 0], holes[..., 1]]
        flop = np.sort(arr[:, FLOPS], axis=2)
        flop_id = flop_ids()[flop[..., 0], flop[..., 1], flop[..., 2]]
        situation = self._table.lookup[flop_id[:, :, None], pair[:, None, :]]
        plays = shown.river_play()
        # The pre-flop choice needs only per-hand sums, so its terms skip the ten-fold spread.
        hand = hole_class(holes[..., 0], holes[..., 1]).ravel()
        for row, value in enumerate((w * shown.intercept, w * shown.slope)):
            self._hand[row] += np.bincount(hand, value.ravel(), minlength=HOLE_CLASSES)
        per_situation = (
            np.broadcast_to(w, plays.shape),
            w * shown.net(PLAY_MULTIPLE["play2x"]),
            w * shown.river_net(),
            w * plays,
        )
        ids = situation.ravel()
        for row, value in enumerate(per_situation):
            spread = np.broadcast_to(value[:, None, :], situation.shape)
            self._situation[row] += np.bincount(
                ids, weights=spread.ravel(), minlength=self._table.count
            )
        # Folded Blind wins are rare (a diagnostic), so only those entries are scattered.
        lost = (shown.blind_bonus > 0) & ~plays
        if lost.any():
            board, hole = np.nonzero(lost)
            lost_ids = situation[board, :, hole].ravel()
            value = np.repeat((w * shown.blind_bonus)[board, hole], len(FLOPS))
            self._forfeit += np.bincount(lost_ids, weights=value, minlength=self._table.count)

    def solve(self) -> OptimalPlay:
        """Decide flop and pre-flop optimally from the sums and return the expectations.

        Raises ValueError when no board has been added.
        """
        count, bet, river, river_plays = self._situation
        total = float(count.sum())
        if total == 0:
            raise ValueError("no boards added")
        flop_mult = PLAY_MULTIPLE["play2x"]
        flop_play = bet > river
        checked_value = np.where(flop_play, bet, river)
        checked_wager = np.where(flop_play, (2 + flop_mult) * count, 2 * count + river_plays)

        hole = self._table.hole

        def per_hand(x: FloatArray) -> FloatArray:
            return np.bincount(hole, weights=x, minlength=HOLE_CLASSES).astype(np.float64)

        hand_count = per_hand(count)
        # Situation sums count each (board, hole pair) once per flop split; hand sums once.
        hand_intercept, hand_slope = self._hand * len(FLOPS)
        options = [hand_intercept + PLAY_MULTIPLE[o] * hand_slope for o in _PREFLOP_OPTIONS]
        values = np.stack([*options, per_hand(checked_value)])
        choice = values.argmax(axis=0)
        multiples = np.array([*(PLAY_MULTIPLE[o] for o in _PREFLOP_OPTIONS), 0])[choice]
        checks = multiples == 0
        wagers = np.where(checks, per_hand(checked_wager), (2 + multiples) * hand_count)

        to_river = checks[hole] & ~flop_play
        return OptimalPlay(
            net=float(values[choice, np.arange(HOLE_CLASSES)].sum()) / total,
            wager=float(wagers.sum()) / total,
            preflop=float(hand_count[~checks].sum()) / total,
            flop=float(count[checks[hole] & flop_play].sum()) / total,
            river=float(river_plays[to_river].sum()) / total,
            fold=float((count - river_plays)[to_river].sum()) / total,
            blind_forfeited=float(self._forfeit[to_river].sum()) / total,
            preflop_play=multiples.astype(np.int64),
        )
