"""A whole card's corners from its bright piece's hull (`drivers.camera.quad`)."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.camera.outline_fit import REACH
from drivers.camera.quad import card_quad, enclosing_quad


def _card(cx: float, cy: float, height: float, turn: float, lean: float) -> np.ndarray:
    """A poker card's corners as a camera sees it: turned, one end narrower (perspective)."""
    w, h = height / 1.4 / 2, height / 2
    top = w * (1 - lean)
    corners = np.array([[-top, -h], [top, -h], [w, h], [-w, h]])
    c, s = np.cos(np.radians(turn)), np.sin(np.radians(turn))
    return np.asarray(corners @ np.array([[c, s], [-s, c]]) + (cx, cy), dtype=np.float64)


def _cut(quad: np.ndarray, shares: tuple[float, float, float, float]) -> np.ndarray:
    """`quad` with each corner cut off along both its sides by that share of the shorter side,
    as pixels (the hull of a thresholded piece)."""
    points = []
    short = min(np.linalg.norm(quad[k] - quad[k - 1]) for k in range(4))
    for k in range(4):
        here, before, after = quad[k], quad[k - 1], quad[(k + 1) % 4]
        cut = shares[k] * short
        points.append(here + cut * (before - here) / np.linalg.norm(before - here))
        points.append(here + cut * (after - here) / np.linalg.norm(after - here))
    return cv2.convexHull(np.round(np.array(points)).astype(np.int32))


def _paper(*cards: np.ndarray) -> np.ndarray:
    """A 1080p frame's thresholded mask: paper (1) where `cards` lie, felt (0) elsewhere."""
    mask = np.zeros((1080, 1920), np.uint8)
    for card in cards:
        cv2.fillConvexPoly(mask, np.round(card).astype(np.int32), 1)
    return mask


def _apart(found: np.ndarray, truth: np.ndarray) -> float:
    """The largest distance from a corner of `truth` to the nearest corner of `found`."""
    return float(np.linalg.norm(truth[:, None] - found[None], axis=2).min(axis=1).max())


@settings(max_examples=60, deadline=None)
@given(
    centre=st.tuples(st.floats(300, 1600), st.floats(300, 800)),
    height=st.floats(90, 400),
    turn=st.floats(0, 360),
    lean=st.floats(0, 0.12),
    shares=st.tuples(*[st.floats(0.0, 0.15)] * 4),
)
def test_the_least_quad_round_a_cards_hull_is_the_card_whatever_corners_it_lost(
    centre: tuple[float, float],
    height: float,
    turn: float,
    lean: float,
    shares: tuple[float, float, float, float],
) -> None:
    card = _card(*centre, height, turn, lean)
    found = enclosing_quad(_cut(card, shares))
    assert found is not None
    # A cut smaller than the simplification (1% of the perimeter) is merged into a side,
    # which then misses the corner by about the cut: still well within the fit's reach.
    assert _apart(found, card) < REACH * height, (found.round(1), card.round(1))


def test_a_card_that_lost_two_opposite_corners_is_not_taken_for_a_parallelogram() -> None:
    # An index printed tight against a border line close to the edge cuts the bright piece's
    # corner there. The hull of tuning design 1001's lone 7C (studio seed 20261250, frame 63),
    # cut at its top-left and bottom-right: its four simplified points were a parallelogram
    # whose top-left corner lay 36 px inside the card, out of the fit's reach.
    hull = np.array([[619, 377], [624, 568], [598, 620], [460, 625], [459, 433], [484, 385]])
    hull = hull.reshape(-1, 1, 2).astype(np.int32)
    box = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)
    simplified = cv2.approxPolyDP(hull, 0.03 * cv2.arcLength(hull, True), True).reshape(-1, 2)
    assert len(simplified) == 4
    assert cv2.pointPolygonTest(simplified.reshape(-1, 1, 2), (459.0, 433.0), True) < -20
    card = np.array([[459.0, 386.0], [619.0, 377.0], [625.0, 619.0], [460.0, 625.0]])
    quad = card_quad(hull, box, _paper(card))
    shape = quad.astype(np.float32).reshape(-1, 1, 2)
    assert all(cv2.pointPolygonTest(shape, (float(x), float(y)), True) > -1 for x, y in hull[:, 0])
    assert _apart(quad, card) < 2


def test_a_card_lying_on_another_is_not_grown_over_the_felt_along_the_other_cards_edge() -> None:
    # A harsh tuning frame (design 1002, seed 20261250, frame 4): a TD lies on a 7C turned
    # under it, whose corner shows past the TD's top edge. The piece holds that strip: the
    # least quadrilateral through the 7C's edge has its top-right corner on the felt, 25 px
    # above the TD, and a card's corner is paper.
    td = np.array([[1195.5, 31.4], [1372.0, 36.5], [1368.3, 287.6], [1193.0, 284.8]])
    seven = np.array([[1142.0, 56.5], [1315.5, 21.1], [1366.1, 267.8], [1194.7, 304.8]])
    hull = np.array([[1369, 41], [1368, 264], [1339, 285], [1200, 283], [1196, 278], [1198, 49],
                     [1225, 35], [1308, 25]]).reshape(-1, 1, 2).astype(np.int32)  # fmt: skip
    box = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)
    around = enclosing_quad(hull)
    assert around is not None and _apart(around, td) > 20
    quad = card_quad(hull, box, _paper(td, seven))
    shape = td.astype(np.float32).reshape(-1, 1, 2)
    assert all(cv2.pointPolygonTest(shape, (float(x), float(y)), True) > -3 for x, y in quad)


def test_a_card_in_perspective_keeps_its_own_four_points() -> None:
    # A card that lost only its rounding keeps the simplified hull's points: the fit onto the
    # paper's edge moves them out, and the outline is what it always was.
    card = _card(900.0, 400.0, 220.0, 30.0, 0.1)
    hull = _cut(card, (0.04, 0.04, 0.04, 0.04))
    box = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)
    simplified = cv2.approxPolyDP(hull, 0.03 * cv2.arcLength(hull, True), True)
    four = simplified.reshape(-1, 2).astype(np.float64)
    assert np.array_equal(card_quad(hull, box, _paper(card)), four)
