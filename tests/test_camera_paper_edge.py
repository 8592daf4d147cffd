"""A firm outline's sides are moved out to the paper the same way, row by row or all at once."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from drivers.camera.paper_edge import _paper_beyond


def _row_by_row(bright: np.ndarray, widest: int) -> list[float]:
    """The rule as first written, one sample row at a time (the reference)."""
    reach = bright.shape[1]
    moved: list[float] = []
    for row in bright:
        on = np.flatnonzero(row)
        if len(on) == 0 or int(on[-1]) >= reach - 3:
            continue
        last = int(on[-1])
        dark = ~row[:last]
        if not dark.any():
            continue
        edges = np.flatnonzero(np.diff(np.concatenate([[0], dark.astype(np.int8), [0]])))
        runs = edges[1::2] - edges[::2]
        if int(runs.max()) <= widest:
            moved.append(float(last + 1))
    return moved


@st.composite
def _profiles(draw: st.DrawFn) -> tuple[np.ndarray, int]:
    """Seven rows of paper/felt along a side's normal: runs of each, as a border line makes."""
    reach = draw(st.integers(6, 40))
    rows = []
    for _ in range(7):
        row: list[bool] = []
        while len(row) < reach:
            row += [draw(st.booleans())] * draw(st.integers(1, 8))
        rows.append(row[:reach])
    return np.array(rows, bool), draw(st.integers(3, 6))


@given(_profiles())
def test_paper_beyond_is_the_row_by_row_rule(profile: tuple[np.ndarray, int]) -> None:
    bright, widest = profile
    assert _paper_beyond(bright, widest) == _row_by_row(bright, widest)
