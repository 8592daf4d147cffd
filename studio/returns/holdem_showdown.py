"""Exact Ultimate Texas Hold'em showdowns: every player hole pair against every dealer pair.

For a board of five community cards, 47 cards remain and both the player's and the dealer's hole
pairs come from them (1081 pairs each side). One ranking of those 1081 seven-card hands serves
both sides, so a board costs 1081 rankings instead of 1081 x 990. Counting, for each player pair,
the dealer pairs that avoid its two cards and rank below, equal or above it uses
inclusion-exclusion over the pairs that share a card, from sorted values and never pair by pair.

The result per (board, player pair) is linear in the Play bet `m` (in Antes):
`E[net] = intercept + m * slope`, averaged over the 990 dealer pairs, with the Ante, Blind and
Play settled as docs/games.md says. A fold is worth -2 (Ante and Blind lost).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from studio.games.ultimate_holdem import BLIND
from studio.hands import CATEGORY_SHIFT, Category
from studio.ranker import combinations_array, rank_hands

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

REMAINING = 47
"""Cards left for the two hole pairs once the board is out."""
HOLES = REMAINING * (REMAINING - 1) // 2
"""Player hole pairs per board (1081)."""
DEALER_HANDS = (REMAINING - 2) * (REMAINING - 3) // 2
"""Dealer hole pairs per player hole pair and board (990)."""
FOLD_NET = -2.0
"""A river fold forfeits the Ante and the Blind."""
QUALIFIER = int(Category.ONE_PAIR) << CATEGORY_SHIFT
"""The dealer's lowest qualifying value: any pair."""
BLIND_ODDS: npt.NDArray[np.float64] = np.array(
    [float(BLIND.pay(c) or 0) for c in Category], dtype=np.float64
)
"""What the Blind wins beyond its stake when the player beats the dealer, by category."""

PAIRS: npt.NDArray[np.intp] = combinations_array(REMAINING, 2).astype(np.intp)
"""Hole pairs as positions (a < b) in a board's 47 remaining cards, shared by both sides."""


def _pairs_by_card() -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """The 46 pairs holding each remaining card, and where pair j sits in its two cards' lists."""
    holding = np.stack([np.flatnonzero(np.equal(PAIRS, c).any(axis=1)) for c in range(REMAINING)])
    slot = np.full((REMAINING, HOLES), -1, dtype=np.intp)
    for card in range(REMAINING):
        slot[card, holding[card]] = np.arange(REMAINING - 1)
    first = PAIRS[:, 0] * (REMAINING - 1) + slot[PAIRS[:, 0], np.arange(HOLES)]
    second = PAIRS[:, 1] * (REMAINING - 1) + slot[PAIRS[:, 1], np.arange(HOLES)]
    return holding, first, second


_HOLDING, _SLOT_A, _SLOT_B = _pairs_by_card()


@dataclass(frozen=True, slots=True)
class Showdown:
    """Exact showdown figures for a batch of boards, one row per board, one column per pair.

    `holes` holds the player's two card indices per pair (boards x 1081 x 2), `values` the
    player's seven-card value codes; `intercept` and `slope` give the expected net per Ante
    over all 990 dealer pairs as `intercept + m * slope` for a Play of `m` Antes;
    `blind_bonus` is the expected Blind win beyond a push per Ante (straight or better that
    beats the dealer), which does not depend on `m`.
    """

    holes: npt.NDArray[np.intp]
    values: npt.NDArray[np.int32]
    intercept: FloatArray
    slope: FloatArray
    blind_bonus: FloatArray

    def net(self, play: float) -> FloatArray:
        """Expected net per Ante with a Play of `play` Antes (0 < play <= 4), per board and pair."""
        return self.intercept + play * self.slope

    def river_play(self) -> npt.NDArray[np.bool_]:
        """The exact river decision: True where PLAY 1x is worth more than folding."""
        return self.net(1.0) > FOLD_NET

    def river_net(self) -> FloatArray:
        """Expected net per Ante of a player who reaches the river unplayed and decides exactly."""
        return np.maximum(self.net(1.0), FOLD_NET)


def remaining_cards(boards: npt.ArrayLike) -> npt.NDArray[np.intp]:
    """The 47 cards not on each board, ascending, for an (N, 5) array of distinct card indices."""
    arr = np.asarray(boards, dtype=np.intp)
    free = np.ones((len(arr), 52), dtype=bool)
    np.put_along_axis(free, arr, False, axis=1)
    return (np.flatnonzero(free) % 52).reshape(len(arr), REMAINING)


def _below_and_at_most(x: npt.NDArray[np.int32]) -> tuple[IntArray, IntArray]:
    """For each element, how many along the last axis are smaller, and how many not larger."""
    n = x.shape[-1]
    order = np.argsort(x, axis=-1)
    xs = np.take_along_axis(x, order, axis=-1)
    index = np.arange(n, dtype=np.int64)
    edge = np.ones((*x.shape[:-1], 1), dtype=bool)
    change = xs[..., 1:] != xs[..., :-1]
    starts = np.where(np.concatenate([edge, change], axis=-1), index, 0)
    ends = np.where(np.concatenate([change, edge], axis=-1), index + 1, n)
    below_sorted = np.maximum.accumulate(starts, axis=-1)
    upto_sorted = np.minimum.accumulate(ends[..., ::-1], axis=-1)[..., ::-1]
    below = np.empty(x.shape, dtype=np.int64)
    upto = np.empty(x.shape, dtype=np.int64)
    np.put_along_axis(below, order, below_sorted, axis=-1)
    np.put_along_axis(upto, order, upto_sorted, axis=-1)
    return below, upto


def showdown(boards: npt.ArrayLike) -> Showdown:
    """Exact showdown figures of every hole pair on each board of an (N, 5) card-index array.

    Each row must hold five distinct cards. Raises `studio.errors.CardError` for a bad shape or
    an index outside 0..51 (from the ranker).
    """
    arr = np.asarray(boards, dtype=np.intp)
    n = len(arr)
    holes = remaining_cards(arr)[:, PAIRS]
    seven = np.concatenate([np.broadcast_to(arr[:, None, :], (n, HOLES, 5)), holes], axis=2)
    values = rank_hands(seven.reshape(-1, 7)).reshape(n, HOLES)

    below_all, upto_all = _below_and_at_most(values)
    below_card, upto_card = _below_and_at_most(values[:, _HOLDING])
    below_card = below_card.reshape(n, -1)
    upto_card = upto_card.reshape(n, -1)
    # A dealer pair avoids both player cards unless it holds one of them; only the player's own
    # pair holds both, and it is never below itself but always "at most" itself.
    below = below_all - below_card[:, _SLOT_A] - below_card[:, _SLOT_B]
    upto = upto_all - upto_card[:, _SLOT_A] - upto_card[:, _SLOT_B] + 1
    above = DEALER_HANDS - upto

    unqualified = values < QUALIFIER
    by_card = unqualified[:, _HOLDING].sum(axis=2)
    dealer_unqualified = (
        unqualified.sum(axis=1, keepdims=True)
        - by_card[:, PAIRS[:, 0]]
        - by_card[:, PAIRS[:, 1]]
        + unqualified
    )
    # Without a pair the player can only beat unqualified dealers; with one, every dealer below
    # the player that lacks a pair is unqualified and the rest qualified.
    win_unq = np.where(unqualified, below, dealer_unqualified)
    win_q = below - win_unq
    lose_unq = np.where(unqualified, dealer_unqualified - upto, 0)
    lose_q = above - lose_unq

    odds = BLIND_ODDS[values >> CATEGORY_SHIFT]
    intercept = (win_q * (1.0 + odds) + win_unq * odds - 2.0 * lose_q - lose_unq) / DEALER_HANDS
    slope = (below - above) / DEALER_HANDS
    bonus = below * odds / DEALER_HANDS
    return Showdown(holes, values, intercept, slope, bonus)
