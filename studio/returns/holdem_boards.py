"""Five-card boards to average over: every board up to suit symmetry, or a seeded random sample.

Suits never rank and the Hold'em strategy only asks whether cards share a suit, so a board and
its images under the 24 suit permutations are worth the same; one representative per class,
weighted by the class size, covers all C(52, 5) boards.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt

from studio.ranker import CARD_BIT, combinations_array

Boards = npt.NDArray[np.int8]
BOARD_COUNT = 2_598_960
"""C(52, 5): the number of boards."""


@cache
def canonical_boards() -> tuple[Boards, npt.NDArray[np.int64]]:
    """One board per suit-symmetry class, and how many boards each class stands for.

    Returns `(boards, weights)`: an (M, 5) array of card indices (M = 134,459, rows ascending)
    and an (M,) array of class sizes summing to C(52, 5).
    """
    every = combinations_array(52, 5)
    bits = CARD_BIT[every.astype(np.intp)].sum(axis=1)
    # A board is the four 13-bit rank sets of its suits; sorting them forgets which suit is which.
    masks = np.sort(np.stack([(bits >> (13 * s)) & 0x1FFF for s in range(4)], axis=1), axis=1)
    key = (masks[:, 0] << 39) | (masks[:, 1] << 26) | (masks[:, 2] << 13) | masks[:, 3]
    _, first, weights = np.unique(key, return_index=True, return_counts=True)
    return every[first], weights.astype(np.int64)


def random_boards(rng: np.random.Generator, count: int) -> Boards:
    """`count` boards drawn uniformly and independently from `rng`, as an (count, 5) array.

    Raises ValueError for a negative count.
    """
    if count < 0:
        raise ValueError(f"board count must not be negative, got {count}")
    keys = rng.random((count, 52))
    return np.sort(np.argpartition(keys, 5, axis=1)[:, :5], axis=1).astype(np.int8)
