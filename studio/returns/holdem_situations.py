"""What the player knows on the flop, up to suit symmetry: (hole pair, flop) situation classes.

The optimal flop decision depends only on the two hole cards and the three flop cards, and two
situations that differ by a relabelling of suits are worth the same. `situation_table()` numbers
the classes densely and maps every (flop id, hole pair id) to its class, so a board-by-board
enumeration can add each board's contribution to the right situation with one lookup.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from studio.cards import RANK_CHARS
from studio.ranker import combinations_array

PAIR_COUNT = 1326
"""C(52, 2) hole pairs."""
FLOP_COUNT = 22_100
"""C(52, 3) flops."""
HOLE_CLASSES = 169
"""Starting hands up to suit symmetry: 13 pairs, 78 suited and 78 offsuit rank pairs."""
_CHUNK = 400


@cache
def pair_ids() -> npt.NDArray[np.int32]:
    """A (52, 52) table of hole pair ids 0..1325 (lexicographic), symmetric; -1 on the diagonal."""
    table = np.full((52, 52), -1, dtype=np.int32)
    pairs = combinations_array(52, 2).astype(np.intp)
    ids = np.arange(len(pairs), dtype=np.int32)
    table[pairs[:, 0], pairs[:, 1]] = ids
    table[pairs[:, 1], pairs[:, 0]] = ids
    return table


@cache
def flop_ids() -> npt.NDArray[np.int32]:
    """A (52, 52, 52) table of flop ids 0..22099 indexed by three ascending card indices."""
    table = np.full((52, 52, 52), -1, dtype=np.int32)
    flops = combinations_array(52, 3).astype(np.intp)
    table[flops[:, 0], flops[:, 1], flops[:, 2]] = np.arange(len(flops), dtype=np.int32)
    return table


def hole_class(first: npt.ArrayLike, second: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """The starting-hand class 0..168 of hole cards (card indices; arrays broadcast).

    On a 13 x 13 grid of ranks (0..12 for 2..A), read row-major: suited hands at row low,
    column high (above the diagonal), offsuit hands at row high, column low, pairs on the
    diagonal.
    """
    a, b = np.asarray(first, dtype=np.int64), np.asarray(second, dtype=np.int64)
    high, low = np.maximum(a // 4, b // 4), np.minimum(a // 4, b // 4)
    suited = a % 4 == b % 4
    return np.asarray(np.where(suited, 13 * low + high, 13 * high + low), dtype=np.int64)


def hole_class_name(k: int) -> str:
    """The usual name of starting-hand class `k` (`hole_class`): "AKs", "T9o", "77"."""
    row, column = divmod(k, 13)
    high, low = max(row, column), min(row, column)
    name = RANK_CHARS[high] + RANK_CHARS[low]
    return name if high == low else name + ("s" if row < column else "o")


def _canonical_codes(
    holes: npt.NDArray[np.intp], flops: npt.NDArray[np.intp]
) -> npt.NDArray[np.int32]:
    """Code `pair id * 22100 + flop id` of each situation after relabelling suits canonically."""
    cards = np.concatenate([holes, flops], axis=1)
    ranks, suits = cards // 4, cards % 4
    shift = np.array([0, 0, 13, 13, 13])
    bits = np.int64(1) << (ranks + shift)
    # A suit's signature is which ranks it holds among the hole cards and among the flop; the
    # situation up to symmetry is the sorted list of signatures, so sorting suits by signature
    # and renaming them in that order gives the same cards for every member of a class.
    signature = ((suits[:, :, None] == np.arange(4)) * bits[:, :, None]).sum(axis=1)
    order = np.argsort(-signature, axis=1, kind="stable")
    rename = np.argsort(order, axis=1)
    renamed = ranks * 4 + np.take_along_axis(rename, suits, axis=1)
    hole = np.sort(renamed[:, :2], axis=1)
    flop = np.sort(renamed[:, 2:], axis=1)
    pair = pair_ids()[hole[:, 0], hole[:, 1]]
    return pair * FLOP_COUNT + flop_ids()[flop[:, 0], flop[:, 1], flop[:, 2]]


@dataclass(frozen=True, slots=True)
class SituationTable:
    """Dense numbering of the flop situation classes.

    `lookup[flop id, pair id]` is a class (-1 where the cards overlap); `hole[class]` is the
    class's starting-hand class (`hole_class`), `size[class]` how many (hole pair, flop)
    situations it holds; `count` classes in all.
    """

    lookup: npt.NDArray[np.int32]
    hole: npt.NDArray[np.int64]
    size: npt.NDArray[np.int64]
    count: int


@cache
def situation_table() -> SituationTable:
    """Number every (hole pair, flop) situation up to suit symmetry (a few seconds, ~0.5 GB)."""
    pairs = combinations_array(52, 2).astype(np.intp)
    flops = combinations_array(52, 3).astype(np.intp)
    # Flop-major, so that one flop's lookups for all of a board's hole pairs share a short row.
    codes = np.empty((FLOP_COUNT, PAIR_COUNT), dtype=np.int32)
    for start in range(0, FLOP_COUNT, _CHUNK):
        chunk = flops[start : start + _CHUNK]
        n = len(chunk)
        holes = np.tile(pairs, (n, 1))
        flop = np.repeat(chunk, PAIR_COUNT, axis=0)
        codes[start : start + n] = _canonical_codes(holes, flop).reshape(n, PAIR_COUNT)
    overlap = (flops[:, None, :, None] == pairs[None, :, None, :]).any(axis=(2, 3))
    used = np.zeros(PAIR_COUNT * FLOP_COUNT, dtype=bool)
    used[codes[~overlap]] = True
    dense = np.cumsum(used, dtype=np.int32) - 1
    lookup = dense[codes]
    lookup[overlap] = -1
    del codes, dense
    representatives = np.flatnonzero(used)
    rep_pair = pairs[representatives // FLOP_COUNT]
    count = int(representatives.size)
    size = np.bincount(lookup[~overlap], minlength=count).astype(np.int64)
    return SituationTable(lookup, hole_class(rep_pair[:, 0], rep_pair[:, 1]), size, count)
