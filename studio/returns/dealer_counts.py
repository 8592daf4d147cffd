"""Caribbean Stud: how every dealer hand ends against every player hand, for each dealer up card.

The player decides after seeing their five cards and the dealer's one face-up card, so the exact
optimal-strategy return needs, for every (player hand, up card) pair, how many of the C(46, 4) =
163,185 ways to complete the dealer's hand end in each `DealerOutcome`. These counts do not depend
on any paytable; `studio.returns.caribbean` turns them into returns for every variant.

Method (no hand is ever compared with another one by one):

* Every 5-card value is replaced by its dense rank `g` among the 7,462 distinct values, so "dealer
  below the player" is `g(D) < g(P)` and "dealer not qualifying" is `g(D) < q`, where `q` is the
  rank of the game's lowest qualifying hand (A-K-4-3-2).
* For a player hand P, an up card u and a threshold t, the number of dealer hands D with u in D,
  D disjoint from P and g(D) < t is, by inclusion-exclusion over the subsets S of P,
  sum_S (-1)^|S| B_S(t)[u], where B_S(t)[u] counts the hands with g < t that contain S and u.
  (S = P never contributes: no five-card hand holds six cards.)
* One sweep over t = 0..7462 adds the hands of rank t - 1 to every B_S[u] (31 subsets, each with
  the hand's other cards as u) and, at each t, answers every player hand whose threshold is t.
* Only the 134,459 classes of player hands under the 24 suit permutations are computed; each
  class is stored in its canonical form and weighted by its number of hands.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from itertools import combinations, permutations
from math import comb

import numpy as np
import numpy.typing as npt

from studio.cards import Card, require_distinct
from studio.errors import CardError
from studio.hands import HandValue
from studio.ranker import Progress, combinations_array, iter_all_values

IntArray = npt.NDArray[np.int64]
CountArray = npt.NDArray[np.int32]

DEALER_COMPLETIONS = comb(46, 4)
"""Ways to deal the dealer's four other cards once the player's five and the up card are out."""

_PERMS = np.array(list(permutations(range(4))), dtype=np.int64)
_CARD = np.arange(52, dtype=np.int64)
# _PERM_CARD[p, c]: card c with its suit renamed by permutation p (ranks unchanged).
_PERM_CARD = (_CARD // 4)[None, :] * 4 + _PERMS[:, _CARD % 4]
_BINOM32 = np.array([[comb(n, r) for r in range(6)] for n in range(53)], dtype=np.int32)
# Every subset of a hand's five positions with at most four of them, smallest first.
_SUBSETS = [s for k in range(5) for s in combinations(range(5), k)]
_SIGNS = np.array([(-1) ** len(s) for s in _SUBSETS], dtype=np.int32)
# The table of all card sets of one size starts after those of smaller sizes.
_ROW_BASE = np.array([sum(comb(52, j) for j in range(len(s))) for s in _SUBSETS], dtype=np.int32)
_ROWS = sum(comb(52, j) for j in range(5))
# A hand's (subset, other card) pairs: the cells of the table that the hand adds one to.
_PAIR_SUBSET = np.array([j for j, s in enumerate(_SUBSETS) for p in range(5) if p not in s])
_PAIR_CARD = np.array([p for s in _SUBSETS for p in range(5) if p not in s])
_SWEEP_REPORTS = 64
_CELL_CHUNK = 1 << 16
_QUERY_BATCH = 8192  # player classes answered together: keeps the gathered rows near 50 MB
_ONE = np.int32(1)  # the table's own type: np.add.at is many times slower when it must cast


class DealerOutcome(IntEnum):
    """How the dealer's hand ends against the player's (the last axis of the counts)."""

    NOT_QUALIFYING = 0
    QUALIFYING_LOWER = 1
    QUALIFYING_TIE = 2
    QUALIFYING_HIGHER = 3


@dataclass(frozen=True, slots=True, eq=False)
class DealerCounts:
    """Dealer outcome counts for every class of player hands and every dealer up card.

    `hands[i]` is the canonical hand (five sorted card indices) of class i, `weights[i]` the
    number of player hands in the class (they sum to C(52, 5)), `values[i]` the hand's value code
    and `masks[i]` its 52-bit card mask (bit = card index), ascending so that it can be searched.
    `counts[i, u, o]` is the number of dealer completions with up card index u ending in outcome
    o (a `DealerOutcome`); for each u not in the hand the four counts sum to `DEALER_COMPLETIONS`,
    and the row of a card in the hand is all zero.
    """

    hands: npt.NDArray[np.int8]
    weights: IntArray
    values: npt.NDArray[np.int32]
    counts: CountArray
    masks: IntArray

    def counts_for(self, player: Sequence[Card], upcard: Card) -> tuple[int, int, int, int]:
        """The four outcome counts for this player hand and dealer up card.

        Raises `CardError` unless `player` is five distinct cards and `upcard` is not among them.
        """
        if len(player) != 5:
            raise CardError(f"a Caribbean Stud hand has five cards, got {len(player)}")
        require_distinct([*player, upcard])
        moved = _PERM_CARD[:, [card.index for card in player]]
        masks = (np.int64(1) << moved).sum(axis=1)
        perm = int(np.argmin(masks))
        klass = int(np.searchsorted(self.masks, masks[perm]))
        row = self.counts[klass, _PERM_CARD[perm, upcard.index]]
        return int(row[0]), int(row[1]), int(row[2]), int(row[3])


_cached: dict[HandValue, DealerCounts] = {}


def dealer_counts(qualifier: HandValue, progress: Progress | None = None) -> DealerCounts:
    """The dealer outcome counts for a dealer who qualifies from `qualifier` up.

    Computed on the first call for a qualifier and shared afterwards; `progress(done, total)` is
    called while a computation runs (never when the counts are already known).
    """
    if qualifier not in _cached:
        _cached[qualifier] = compute_dealer_counts(qualifier, progress)
    return _cached[qualifier]


def compute_dealer_counts(qualifier: HandValue, progress: Progress | None = None) -> DealerCounts:
    """Compute the dealer outcome counts from scratch (see the module docstring for the method).

    `qualifier` is the dealer's lowest qualifying hand. Takes some seconds and about 700 MB of
    memory at its peak; `progress(done, total)` is called as the sweep advances.
    """
    values = next(iter_all_values(5))
    hands = combinations_array(52, 5).astype(np.int64)
    distinct, inverse = np.unique(values, return_inverse=True)
    rank = inverse.astype(np.int64)
    threshold = int(np.searchsorted(distinct, qualifier.code))
    if progress:
        # The suit classes take a few seconds before the sweep's first report: show a start.
        progress(0, len(distinct))
    masks, first, weights = _suit_classes(hands)
    players = _cards_of(masks)
    player_rank = rank[first]
    below = _sweep(hands, rank, len(distinct), players, player_rank, threshold, progress)
    counts = np.empty((len(players), 52, 4), dtype=np.int32)
    counts[..., 0] = below[:, 0]
    counts[..., 1] = below[:, 1] - below[:, 0]
    counts[..., 2] = below[:, 2] - below[:, 1]
    counts[..., 3] = DEALER_COMPLETIONS - below[:, 2]
    np.put_along_axis(counts, players[:, :, None], 0, axis=1)
    return DealerCounts(
        hands=players.astype(np.int8),
        weights=weights.astype(np.int64),
        values=values[first],
        counts=counts,
        masks=masks,
    )


def _suit_classes(hands: IntArray) -> tuple[IntArray, IntArray, IntArray]:
    """Canonical masks (sorted), one member's index and the size of each suit-permutation class.

    A hand's canonical mask is the least, over the 24 suit permutations, of the 52-bit mask of
    its permuted cards.
    """
    columns = np.ascontiguousarray(hands.T)
    least = np.full(len(hands), np.iinfo(np.int64).max, dtype=np.int64)
    for perm_bits in np.int64(1) << _PERM_CARD:
        mask = perm_bits[columns[0]]
        for column in columns[1:]:
            mask |= perm_bits[column]
        np.minimum(least, mask, out=least)
    masks, first, weights = np.unique(least, return_index=True, return_counts=True)
    return masks, first, weights


def _cards_of(masks: IntArray) -> IntArray:
    """The five card indices of each 52-bit mask, ascending."""
    bits = (masks[:, None] >> _CARD[None, :]) & 1
    return np.nonzero(bits)[1].reshape(len(masks), 5).astype(np.int64)


def _subset_rows(hands: IntArray) -> npt.NDArray[np.int32]:
    """Table row of each of the 31 subsets (at most four cards) of each sorted hand: (31, n).

    Sets of one size are numbered by the colexicographic rank sum C(c_i, i + 1). Subsets run
    along the first axis so that every array operation here reads and writes contiguously.
    """
    columns = np.ascontiguousarray(hands.T)
    binom = {(pos, i): _BINOM32[columns[pos], i + 1] for pos in range(5) for i in range(4)}
    rows = np.empty((len(_SUBSETS), len(hands)), dtype=np.int32)
    for j, subset in enumerate(_SUBSETS):
        rows[j] = _ROW_BASE[j]
        for i, pos in enumerate(subset):
            rows[j] += binom[pos, i]
    return rows


def _cells(hands: IntArray) -> npt.NDArray[np.int32]:
    """The 80 table cells (subset row x 52 + other card) each sorted hand adds one to: (80, n)."""
    rows = _subset_rows(hands)
    columns = np.ascontiguousarray(hands.T).astype(np.int32)
    cells = np.empty((len(_PAIR_SUBSET), len(hands)), dtype=np.int32)
    for k, (subset, card) in enumerate(zip(_PAIR_SUBSET, _PAIR_CARD, strict=True)):
        np.multiply(rows[subset], 52, out=cells[k])
        cells[k] += columns[card]
    return cells


def _sweep(
    hands: IntArray,
    rank: IntArray,
    ranks: int,
    players: IntArray,
    player_rank: IntArray,
    qualifying_rank: int,
    progress: Progress | None,
) -> CountArray:
    """Per player class and up card, dealer completions below each of three rank thresholds.

    Returns an array (classes, 3, 52): thresholds q (the qualifier), max(g(P), q) and
    max(g(P) + 1, q), so that consecutive differences give the four outcomes.
    """
    n = len(players)
    above = np.flatnonzero(player_rank >= qualifying_rank)
    query_class = np.concatenate([np.arange(n), above, above])
    query_slot = np.repeat([0, 1, 2], [n, len(above), len(above)])
    query_rank = np.concatenate(
        [np.full(n, qualifying_rank), player_rank[above], player_rank[above] + 1]
    )
    order = np.argsort(query_rank, kind="stable")
    query_class, query_slot = query_class[order], query_slot[order]
    query_start = np.searchsorted(query_rank[order], np.arange(ranks + 2))
    by_rank = np.argsort(rank, kind="stable")
    hand_start = np.searchsorted(rank[by_rank], np.arange(ranks + 1))
    ranked_hands = hands[by_rank]
    chunk_start = chunk_end = 0
    cells = np.empty((len(_PAIR_SUBSET), 0), dtype=np.int32)
    player_rows = np.ascontiguousarray(_subset_rows(players).T)
    table = np.zeros(_ROWS * 52, dtype=np.int32)
    grid = table.reshape(_ROWS, 52)
    below = np.zeros((n, 3, 52), dtype=np.int32)
    for t in range(ranks + 1):
        for lo in range(query_start[t], query_start[t + 1], _QUERY_BATCH):
            hi = min(query_start[t + 1], lo + _QUERY_BATCH)
            klass = query_class[lo:hi]
            below[klass, query_slot[lo:hi]] = np.einsum(
                "mjs,j->ms", grid[player_rows[klass]], _SIGNS
            )
        if t == ranks:
            break
        first, end = int(hand_start[t]), int(hand_start[t + 1])
        if end > chunk_end:
            # Cells are worked out for many rank groups at once: per group, numpy's call overhead
            # would cost more than the work.
            chunk_start, chunk_end = first, max(end, first + _CELL_CHUNK)
            cells = _cells(ranked_hands[chunk_start:chunk_end])
        np.add.at(table, cells[:, first - chunk_start : end - chunk_start].ravel(), _ONE)
        if progress and (t % _SWEEP_REPORTS == 0 or t == ranks - 1):
            progress(t + 1, ranks)
    # A player below the qualifier beats no qualifying dealer: all three thresholds are q.
    low = player_rank < qualifying_rank
    below[low, 1] = below[low, 0]
    below[low, 2] = below[low, 0]
    return below
