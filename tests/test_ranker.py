"""The vectorised ranker: shapes, bad input, and enumeration that covers every set once."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from studio.errors import CardError
from studio.ranker import all_category_counts, combinations_array, iter_all_values, rank_hands


@given(st.integers(min_value=1, max_value=12), st.data())
def test_combinations_array_is_every_subset_in_lexicographic_order(
    n: int, data: st.DataObject
) -> None:
    k = data.draw(st.integers(min_value=1, max_value=n))
    rows = combinations_array(n, k)
    assert rows.shape == (comb(n, k), k)
    assert np.all(np.diff(rows.astype(int), axis=1) > 0)  # each row strictly increasing
    as_tuples = [tuple(r) for r in rows.tolist()]
    assert as_tuples == sorted(as_tuples) and len(set(as_tuples)) == len(as_tuples)


@pytest.mark.parametrize(
    "bad",
    [np.zeros((3, 4), dtype=int), np.zeros((3, 8), dtype=int), np.zeros(5, dtype=int),
     np.array([[0, 1, 2, 3, 52]]), np.array([[-1, 1, 2, 3, 4]])],
)  # fmt: skip
def test_bad_arrays_are_refused_with_a_card_error(bad: np.ndarray) -> None:
    with pytest.raises(CardError):
        rank_hands(bad)


def test_empty_input_gives_empty_output() -> None:
    assert rank_hands(np.zeros((0, 7), dtype=int)).shape == (0,)


def test_six_card_distribution_covers_all_20_358_520_sets() -> None:
    counts = all_category_counts(6)
    assert counts.tolist() == [
        6612900, 9730740, 2532816, 732160, 361620, 205792, 165984, 14664, 1656, 188,
    ]  # fmt: skip
    assert counts.sum() == comb(52, 6)


def test_enumeration_chunks_match_ranking_the_same_hands_directly() -> None:
    # The first chunk of the 7-card enumeration holds every 7-set starting with cards 0 and 1.
    chunk = next(iter_all_values(7))
    rest = combinations_array(52, 5)
    hands = np.hstack([np.tile([0, 1], (len(rest), 1)), rest])
    hands = hands[rest[:, 0] >= 2]
    assert np.array_equal(chunk, rank_hands(hands))


def test_progress_reaches_the_total() -> None:
    seen: list[tuple[int, int]] = []
    all_category_counts(6, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (comb(52, 6), comb(52, 6))
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
