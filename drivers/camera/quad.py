"""A whole card's four corners from its bright piece's convex hull (`card_quad`).

A card's piece is its paper less whatever the threshold lost at its edge: the rounded corners,
and, where an index is printed tight against a border line close to the edge, a whole corner
(the ink joins the line and cuts the paper there). The hull simplified to four of its own points
follows a card in perspective, a few pixels inside its rounded corners, which the fit onto the
paper's edge (`outline_fit`) moves out. Where the piece lost two opposite corners those four
points are a parallelogram across the card, a corner a sixth of the card inside it: further
than the fit reaches, and the index windows are cut in the card's middle (a lone 7C of tuning
design 1001 was unread in every frame). Lines through the hull's four long sides meet at the
card's corners whichever corners the piece lost (`enclosing_quad`).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.outline import long_side, paper_share
from drivers.camera.outline_fit import REACH
from drivers.camera.tuning import PAPER_SHARE_FACE_UP

Image = npt.NDArray[Any]
Quad = npt.NDArray[Any]

_SIMPLIFY = 0.01
"""The hull is simplified to within this share of its perimeter (2-3 px on a card): the
rounding of a corner becomes a side or two, a straight edge stays one side."""
_CORNER = 0.06
"""A share of the card's long side: how far in from a corner, and across, paper is looked for
to say the corner lies on the card (its rounding, a printed line and an index printed tight in
the corner take less; tuning design 1001's 7C, its index cutting the corner: all paper)."""
_TRIED = 6
"""Sides tried, the longest of the simplified hull: a card's four, and two for corners cut."""


def card_quad(hull: npt.NDArray[Any], box: Quad, paper: Image) -> Quad:
    """The corners of a whole card's outline from its piece's convex `hull`.

    The hull simplified to four of its own points, unless a corner of the least quadrilateral
    round the hull (`enclosing_quad`) lies farther from all four than the fit onto the paper's
    edge reaches (`outline_fit.REACH` of the card's long side) and each such corner lies on
    paper (`paper`: the frame's thresholded mask, paper 1): then that quadrilateral. A card's
    corner is paper; a piece holding a strip of the card under it has a long side along that
    card's edge, and the quadrilateral through it has a corner on the felt. `box`, the piece's
    least rectangle, when the hull does not simplify to four points. About 0.2 ms a card.
    """
    simplified = cv2.approxPolyDP(hull, 0.03 * cv2.arcLength(hull, True), True)
    if len(simplified) != 4:
        return box
    quad = simplified.reshape(-1, 2).astype(np.float64)
    around = enclosing_quad(hull)
    if around is None:
        return quad
    size = long_side(around)
    apart = np.linalg.norm(around[:, None, :] - quad[None, :, :], axis=2).min(axis=1)
    far = apart > REACH * size
    if not far.any() or not all(
        _on_paper(paper, around, int(k), size) for k in np.flatnonzero(far)
    ):
        return quad
    return around


def _on_paper(paper: Image, quad: Quad, k: int, size: float) -> bool:
    """Whether corner `k` of `quad` lies on paper.

    The square `_CORNER` of the card's `size` across, as far in from the corner towards the
    middle and along the card's sides, shows more paper than a face's least share
    (`PAPER_SHARE_FACE_UP`).
    """
    inward = quad.mean(axis=0) - quad[k]
    centre = quad[k] + inward / max(float(np.linalg.norm(inward)), 1e-9) * _CORNER * size
    along = [quad[(k + 1) % 4] - quad[k], quad[k - 1] - quad[k]]
    a, b = (v / max(float(np.linalg.norm(v)), 1e-9) * _CORNER * size / 2 for v in along)
    square = np.array([centre - a - b, centre + a - b, centre + a + b, centre - a + b])
    return paper_share(paper, square) > PAPER_SHARE_FACE_UP


def enclosing_quad(hull: npt.NDArray[Any]) -> Quad | None:
    """The least quadrilateral round the convex `hull` with its sides on the hull's own.

    Its four sides lie on four of the simplified hull's longest sides, in the hull's order, each
    side mostly that side of the hull (`_borne`); None when no four make one.
    """
    points = hull.reshape(-1, 2).astype(np.float64)
    within = _SIMPLIFY * cv2.arcLength(hull, True)
    poly = cv2.approxPolyDP(hull, within, True).reshape(-1, 2).astype(np.float64)
    if len(poly) < 4:
        return None
    ways = np.roll(poly, -1, axis=0) - poly
    lengths = np.hypot(ways[:, 0], ways[:, 1])
    longest = sorted(np.argsort(-lengths)[:_TRIED].tolist())
    best: Quad | None = None
    least = np.inf
    for chosen in combinations(longest, 4):
        corners = [
            _meet(poly[a], ways[a], poly[b], ways[b])
            for a, b in zip(chosen, chosen[1:] + chosen[:1], strict=True)
        ]
        if any(c is None for c in corners):
            continue
        quad = np.array(corners)
        area = cv2.contourArea(quad.astype(np.float32))
        # The side from corner k to corner k + 1 lies on the hull's side chosen[k + 1].
        on = np.roll(lengths[list(chosen)], -1)
        if area < least and _holds(quad, points, within) and _borne(quad, on):
            best, least = quad, area
    return best


def _borne(quad: Quad, sides: Any) -> bool:
    """Whether the hull's own side lying on each side of `quad` is at least half of it.

    `sides` are those sides' lengths, in order. A card's sides are mostly its piece's, whichever
    corners it lost; a side through a short piece of the hull (a neighbour's corner showing past
    a card lying on it) is not the card's, and the quadrilateral through it reaches out over
    the neighbour.
    """
    edges = np.roll(quad, -1, axis=0) - quad
    return bool(np.all(2.0 * np.asarray(sides) >= np.hypot(edges[:, 0], edges[:, 1])))


def _meet(p: Any, u: Any, q: Any, v: Any) -> Any | None:
    """Where the line through `p` along `u` meets the line through `q` along `v`."""
    cross = u[0] * v[1] - u[1] * v[0]
    if abs(cross) < 1e-6 * np.hypot(*u) * np.hypot(*v):
        return None
    t = ((q[0] - p[0]) * v[1] - (q[1] - p[1]) * v[0]) / cross
    return p + t * u


def _holds(quad: Quad, points: Any, within: float) -> bool:
    """Whether `quad` is convex and holds every point, or has it `within` pixels of a side.

    The simplified hull's sides lie that close to the hull's points, either way.
    """
    edges = np.roll(quad, -1, axis=0) - quad
    turns = edges[:, 0] * np.roll(edges[:, 1], -1) - edges[:, 1] * np.roll(edges[:, 0], -1)
    if not (np.all(turns > 0) or np.all(turns < 0)):
        return False
    sign = 1.0 if turns[0] > 0 else -1.0
    rel = points[None, :, :] - quad[:, None, :]
    side = edges[:, None, 0] * rel[:, :, 1] - edges[:, None, 1] * rel[:, :, 0]
    lengths = np.hypot(edges[:, 0], edges[:, 1])[:, None]
    return bool(np.all(sign * side / lengths >= -within))
