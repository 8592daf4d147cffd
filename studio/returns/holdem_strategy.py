"""A documented near-optimal Ultimate Texas Hold'em strategy for the pre-flop and flop decisions.

The well-known simple strategy (it gives up a few tenths of a percent against optimal play):

* pre-flop, PLAY 4x with any pair 3-3 or better, any ace, K-2 suited or better and K-5 offsuit
  or better, Q-6 suited / Q-8 offsuit or better, J-8 suited / J-T offsuit or better; otherwise
  check (PLAY 3x is never chosen);
* flop, PLAY 2x with two pair or better (the best five of the hole cards and the flop), a hidden
  pair (a pocket pair other than deuces, or a hole card paired by the flop), or four to a flush
  holding a hole card of that suit ranked ten or better; otherwise check;
* river: the exact decision (`studio.returns.holdem_showdown.Showdown.river_play`).

"Two pair or better" is read literally on the five cards, so trips on the flop count even when
the hole cards add nothing; the case is rare (about one flop in 425) and changes little.
Both functions take card indices (0..51) and broadcast like numpy operators.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from studio.cards import Rank
from studio.hands import CATEGORY_SHIFT, Category
from studio.ranker import CARD_RANK_KEY, nonflush_table

Cards = npt.NDArray[np.integer]
Decisions = npt.NDArray[np.bool_]

_LOWEST_SUITED = {Rank.KING: Rank.TWO, Rank.QUEEN: Rank.SIX, Rank.JACK: Rank.EIGHT}
_LOWEST_OFFSUIT = {Rank.KING: Rank.FIVE, Rank.QUEEN: Rank.EIGHT, Rank.JACK: Rank.TEN}
_TWO_PAIR = int(Category.TWO_PAIR) << CATEGORY_SHIFT


def preflop_play(first: Cards, second: Cards) -> Decisions:
    """True where the simple strategy plays 4x pre-flop with hole cards `first` and `second`.

    The arguments are arrays (or scalars) of card indices that broadcast against each other.
    """
    a, b = np.asarray(first) // 4, np.asarray(second) // 4
    high, low = np.maximum(a, b), np.minimum(a, b)
    suited = np.asarray(first) % 4 == np.asarray(second) % 4
    play = ((high == low) & (high >= Rank.THREE)) | (high == Rank.ACE)
    for rank, lowest in _LOWEST_SUITED.items():
        kicker = np.where(suited, lowest, _LOWEST_OFFSUIT[rank])
        play |= (high == rank) & (low != rank) & (low >= kicker)
    return np.asarray(play, dtype=bool)


def flop_play(hole: Cards, flop: Cards) -> Decisions:
    """True where the simple strategy plays 2x on the flop (after checking pre-flop).

    `hole` is an array of shape (..., 2) and `flop` of shape (..., 3), card indices; their
    leading axes broadcast. Returns a boolean array of the broadcast leading shape.
    """
    hole, flop = np.asarray(hole), np.asarray(flop)
    # Each feature is computed on the hole cards' shape or the flop's shape alone and only
    # combined (broadcast) at the end, so the work per (hole, flop) is a few small-integer ops.
    rank, suit = hole // 4, hole % 4
    key = CARD_RANK_KEY[hole].sum(axis=-1) + CARD_RANK_KEY[flop].sum(axis=-1)
    made = nonflush_table(5)[key] >= _TWO_PAIR
    pocket = (rank[..., 0] == rank[..., 1]) & (rank[..., 0] != Rank.TWO)
    hole_ranks = ((1 << rank[..., 0]) | (1 << rank[..., 1])).astype(np.int16)
    flop_ranks = np.bitwise_or.reduce(1 << (flop // 4), axis=-1).astype(np.int16)
    paired = (hole_ranks & flop_ranks) != 0

    suit_bit = (1 << suit).astype(np.int8)
    both = np.where(suit[..., 0] == suit[..., 1], suit_bit[..., 0], 0).astype(np.int8)
    high = np.bitwise_or.reduce(np.where(rank >= Rank.TEN, suit_bit, 0), axis=-1).astype(np.int8)
    # A flop holds at most one suit twice or more; four to a flush needs that suit.
    counts = (flop[..., :, None] % 4 == np.arange(4)).sum(axis=-2)
    flop_suit = (1 << counts.argmax(axis=-1)).astype(np.int8)
    most = counts.max(axis=-1)
    three = np.where(most == 3, flop_suit, 0).astype(np.int8)
    two = np.where(most == 2, flop_suit, 0).astype(np.int8)
    # Three on the flop: one high hole card of the suit makes four (both suited make a flush).
    # Two on the flop: both hole cards must be of the suit, one of them high.
    flush_draw = ((three & (high | both)) | (two & both & high)) != 0
    return np.asarray(made | pocket | paired | flush_draw, dtype=bool)
