"""Whether the symbols found on a face are those the deck prints there: properties."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from drivers.camera.face_ink import LAYOUT_TOLERANCE, Symbol, same_layout

_place = st.floats(0.1, 0.9)
_symbols = st.lists(st.tuples(_place, _place, st.floats(0.05, 0.3)), min_size=1, max_size=10)


@given(_symbols, st.randoms(use_true_random=False))
def test_a_layout_is_found_in_any_order_and_either_way_up(
    printed: list[Symbol], rng: random.Random
) -> None:
    found = list(printed)
    rng.shuffle(found)
    assert same_layout(found, printed)
    assert same_layout([(1 - x, 1 - y, h) for x, y, h in found], printed)


@given(_symbols, st.integers(0, 9), st.floats(2.0, 5.0), st.booleans())
def test_a_symbol_moved_missing_or_added_is_another_layout(
    printed: list[Symbol], which: int, factor: float, across: bool
) -> None:
    k = which % len(printed)
    x, y, h = printed[k]
    step = factor * LAYOUT_TOLERANCE
    moved = (x + step, y, h) if across else (x, y + step, h)
    others = printed[:k] + printed[k + 1 :]
    # A move lands on another printed symbol's place only by coincidence: skip those draws.
    turned = [(1 - a, 1 - b, c) for a, b, c in printed]
    if not any(
        abs(moved[0] - a) <= LAYOUT_TOLERANCE and abs(moved[1] - b) <= LAYOUT_TOLERANCE
        for a, b, _ in printed + turned
    ):
        assert not same_layout([*others, moved], printed)
    assert not same_layout(others, printed)
    assert not same_layout([*printed, (x, y, h)], printed)
