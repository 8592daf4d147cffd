"""The paper shares of a card's outline (`paper.paper_shares`, `paper.own_paper`).

The recognizer asks every unread outline how much of it is paper: a card with no paper border
is not a card, and one with little paper inside is face down. Guessed and extended outlines
can run past the frame's edge (a card partly out of view), and a card can lie square to the
frame; neither may crash the frame's read or lose the card's border.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
from hypothesis import given
from hypothesis import strategies as st

from drivers.camera.paper import light_back, own_paper, paper_shares

FELT = (40, 90, 30)
"""Green felt (BGR): darker than the threshold and far from grey."""
THRESHOLD = 120.0


def _table(
    card: npt.NDArray[np.int32], ink: tuple[slice, slice] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """A 320 x 480 frame of felt with a white card filled over `card` (`ink` printed on it)."""
    frame = np.zeros((320, 480, 3), np.uint8)
    frame[:] = FELT
    cv2.fillPoly(frame, [card.reshape(-1, 2)], (235, 235, 235))
    if ink is not None:
        frame[ink] = (60, 30, 140)
    return frame, cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


def _quad(x0: int, y0: int, x1: int, y1: int) -> npt.NDArray[np.int32]:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.int32).reshape(-1, 1, 2)


def test_a_card_square_to_the_frame_keeps_its_border() -> None:
    # Square to the frame, the card fills its bounding box: its border ring used to be empty,
    # which made any unread card lying so "not a card".
    card = _quad(100, 60, 200, 210)
    frame, gray = _table(card)
    shares = paper_shares(frame, gray, THRESHOLD, card)
    assert shares.border > 0.95
    assert shares.inner > 0.95


def test_a_card_partly_out_of_view_is_counted_on_its_part_in_view() -> None:
    # The card runs 60 px past the frame's left edge and 40 px past its bottom.
    card = _quad(-60, 200, 80, 360)
    frame, gray = _table(card)
    shares = paper_shares(frame, gray, THRESHOLD, card)
    assert shares.border > 0.95 and shares.inner > 0.95
    # Inked inside (a face's print), its inside is counted as less than all paper.
    frame, gray = _table(card, ink=(slice(230, 300), slice(0, 50)))
    assert paper_shares(frame, gray, THRESHOLD, card).inner < 0.9


def test_a_card_wholly_out_of_view_has_no_border() -> None:
    card = _quad(-300, -300, -150, -100)
    frame, gray = _table(_quad(100, 60, 200, 210))
    assert paper_shares(frame, gray, THRESHOLD, card).border == 0.0
    assert not light_back(frame, gray, THRESHOLD, card)


coordinate = st.integers(min_value=-400, max_value=900)


@given(st.lists(st.tuples(coordinate, coordinate), min_size=4, max_size=4))
def test_any_outline_gets_shares_between_nothing_and_all(points: list[tuple[int, int]]) -> None:
    outline = np.array(points, np.int32).reshape(-1, 1, 2)
    frame, gray = _table(_quad(100, 60, 200, 210))
    shares = paper_shares(frame, gray, THRESHOLD, outline)
    own = own_paper(frame, gray, THRESHOLD, outline, 0.85, 20)
    for share in (shares.inner, shares.border, own.own, own.tint):
        assert 0.0 <= share <= 1.0
