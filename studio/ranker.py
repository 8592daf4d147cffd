"""Vectorised hand ranking with numpy: arrays of hands in, arrays of value codes out.

The codes are exactly those of `studio.hands` (built from its `nonflush_value` and `flush_value`),
so a bulk result and a scalar `evaluate` always agree.

How it is fast: three per-card quantities are *additive* over a hand of distinct cards, so a
hand's summary is a sum and never needs sorting:

* a rank key (from SKPokerEval's 7-card key set) whose sum identifies the hand's multiset of
  ranks, indexing a table of best non-flush values (one table per hand size: sums of different
  sizes collide);
* a suit key `1 << 4*suit`, whose sum holds four 4-bit suit counts; `(sum + 0x3333) & 0x8888` is
  non-zero exactly when a suit holds five or more cards;
* the card's bit `1 << (13*suit + rank)`; shifting the sum by the flush suit yields that suit's
  13-bit rank mask, indexing a table of best flush values.

Enumerating every n-card set uses the same additivity: every 5-card set's sums are computed once,
and each 6- or 7-card set is a fixed prefix of one or two cards plus a 5-card set above it (a
contiguous tail of the lexicographic list), so the work per hand is a handful of array additions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache
from math import comb

import numpy as np
import numpy.typing as npt

from studio.errors import CardError
from studio.hands import CATEGORY_SHIFT, flush_value, nonflush_value

IntArray = npt.NDArray[np.int64]
ValueArray = npt.NDArray[np.int32]
Progress = Callable[[int, int], None]
"""A progress callback: (units done, units in all)."""

RANK_KEYS = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
_CARD = np.arange(52)
CARD_RANK_KEY: npt.NDArray[np.int32] = np.array(RANK_KEYS, dtype=np.int32)[_CARD // 4]
CARD_SUIT_KEY: npt.NDArray[np.int32] = (1 << (4 * (_CARD % 4))).astype(np.int32)
CARD_BIT: IntArray = (np.int64(1) << (13 * (_CARD % 4) + _CARD // 4)).astype(np.int64)
_FLUSH_PROBE = 0x3333
_FLUSH_FLAGS = 0x8888


@cache
def nonflush_table(size: int) -> ValueArray:
    """Best non-flush value indexed by the rank-key sum of a `size`-card hand (5, 6 or 7).

    Entries that no hand reaches hold -1.
    """
    if size not in (5, 6, 7):
        raise ValueError(f"hand size must be 5, 6 or 7, not {size}")
    table = np.full(4 * RANK_KEYS[12] + 3 * RANK_KEYS[11] + 1, -1, dtype=np.int32)
    counts = [0] * 13

    def fill(rank: int, left: int, key: int) -> None:
        if rank < 0:
            if left == 0:
                table[key] = nonflush_value(counts)
            return
        for n in range(min(4, left) + 1):
            counts[rank] = n
            fill(rank - 1, left - n, key + n * RANK_KEYS[rank])
        counts[rank] = 0

    fill(12, size, 0)
    return table


@cache
def flush_table() -> ValueArray:
    """Best flush or straight-flush value indexed by a 13-bit rank mask (-1 under five bits)."""
    table = np.full(1 << 13, -1, dtype=np.int32)
    for mask in range(1 << 13):
        if mask.bit_count() >= 5:
            table[mask] = flush_value(mask)
    return table


def _values(
    size: int,
    rank_sum: IntArray,
    suit_sum: IntArray,
    bits: Callable[[npt.NDArray[np.bool_]], IntArray],
) -> ValueArray:
    """Combine per-hand key sums into values; `bits(rows)` returns card-bit sums of those rows."""
    values = nonflush_table(size)[rank_sum]
    flags = (suit_sum + _FLUSH_PROBE) & _FLUSH_FLAGS
    flushed = flags != 0
    if flushed.any():
        suit = (np.log2(flags[flushed]).astype(np.int64) - 3) // 4
        masks = (bits(flushed) >> (13 * suit)) & 0x1FFF
        values[flushed] = flush_table()[masks]
    return values


def rank_hands(hands: npt.ArrayLike) -> ValueArray:
    """Return the value code of each row of `hands`, an (N, n) array of card indices, n in 5..7.

    Each row must hold distinct cards; a row with a repeated card gives an unspecified value
    (checking would cost as much as ranking: callers that take outside input check first).
    Raises `CardError` for a bad shape or an index outside 0..51.
    """
    arr = np.asarray(hands)
    if arr.ndim != 2 or arr.shape[1] not in (5, 6, 7):
        raise CardError(f"hands must be an (N, 5..7) array of card indices, got shape {arr.shape}")
    if arr.size and (arr.min() < 0 or arr.max() > 51):
        raise CardError("card indices must lie in 0..51")
    idx = arr.astype(np.intp, copy=False)
    rank_sum = CARD_RANK_KEY[idx].sum(axis=1, dtype=np.int64)
    suit_sum = CARD_SUIT_KEY[idx].sum(axis=1, dtype=np.int64)
    return _values(arr.shape[1], rank_sum, suit_sum, lambda rows: CARD_BIT[idx[rows]].sum(axis=1))


def categories(values: npt.NDArray[np.integer]) -> npt.NDArray[np.integer]:
    """Return the category (0 high card .. 9 royal flush) of each value code."""
    return values >> CATEGORY_SHIFT


def category_counts(values: npt.NDArray[np.integer]) -> IntArray:
    """Return how many values fall in each of the ten categories, indexed by `Category`."""
    return np.bincount(categories(values).ravel(), minlength=10).astype(np.int64)


@cache
def combinations_array(n: int, k: int) -> npt.NDArray[np.int8]:
    """All k-subsets of range(n) as a (C(n, k), k) array, rows in lexicographic order."""
    rows = np.arange(n, dtype=np.int64)[:, None]
    for _ in range(k - 1):
        last = rows[:, -1]
        fan = n - 1 - last
        total = int(fan.sum())
        starts = np.repeat(np.cumsum(fan) - fan, fan)
        new = np.repeat(last + 1, fan) + (np.arange(total) - starts)
        rows = np.hstack([np.repeat(rows, fan, axis=0), new[:, None]])
    return rows.astype(np.int8)


@cache
def _five_card_sums() -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Key sums of every 5-card set, and where the sets starting at each card begin."""
    five = combinations_array(52, 5).astype(np.intp)
    rank_sum = CARD_RANK_KEY[five].sum(axis=1, dtype=np.int64)
    suit_sum = CARD_SUIT_KEY[five].sum(axis=1, dtype=np.int64)
    bits = CARD_BIT[five].sum(axis=1)
    first = np.searchsorted(five[:, 0], np.arange(53)).astype(np.int64)
    return rank_sum, suit_sum, bits, first


def iter_all_values(size: int, progress: Progress | None = None) -> Iterator[ValueArray]:
    """Yield the values of every `size`-card set (5, 6 or 7 of 52) in lexicographic order.

    The arrays come in chunks (one per fixed prefix card or pair of cards) that together cover
    all C(52, size) sets exactly once. `progress(done, total)` is called after each chunk.
    """
    if size not in (5, 6, 7):
        raise ValueError(f"hand size must be 5, 6 or 7, not {size}")
    rank5, suit5, bits5, first = _five_card_sums()
    total = comb(52, size)
    if size == 5:
        yield _values(5, rank5, suit5, lambda rows: bits5[rows])
        if progress:
            progress(total, total)
        return
    prefixes = combinations_array(52, size - 5).astype(np.intp)
    done = 0
    for prefix in prefixes:
        tail = slice(int(first[prefix[-1] + 1]), None)
        rank_sum = rank5[tail] + int(CARD_RANK_KEY[prefix].sum())
        suit_sum = suit5[tail] + int(CARD_SUIT_KEY[prefix].sum())
        bits_p = int(CARD_BIT[prefix].sum())
        chunk = _values(size, rank_sum, suit_sum, _offset_bits(bits5[tail], bits_p))
        done += len(chunk)
        yield chunk
        if progress:
            progress(done, total)


def _offset_bits(part: IntArray, offset: int) -> Callable[[npt.NDArray[np.bool_]], IntArray]:
    """Return a row selector giving `part[rows] + offset` (the prefix cards' bits)."""

    def select(rows: npt.NDArray[np.bool_]) -> IntArray:
        return part[rows] + offset

    return select


def all_category_counts(size: int, progress: Progress | None = None) -> IntArray:
    """Return the category counts of the best five cards over all C(52, size) sets of cards."""
    totals = np.zeros(10, dtype=np.int64)
    for chunk in iter_all_values(size, progress):
        totals += category_counts(chunk)
    return totals
