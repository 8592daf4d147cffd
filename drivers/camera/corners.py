"""Index-corner hypotheses, deck-agnostic: where a card's corner shows on a bright region's rim.

Where cards are fanned or overlap, the bright region they make together has no card-shaped
outline, but every card's index corner still pokes out of it: a convex, near-right-angled bend
of the rim. `corner_quads` turns each such bend into a card outline whose first corner is the
bend, its short side going clockwise from there (as at a card's top-left or bottom-right index
corner), sized by the frame's card height. Most hypotheses are wrong: the learned detector
(`corner_detector`) decides which are a card's index corner.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.card_shape import CARD_ASPECT as CARD_ASPECT
from drivers.camera.tuning import POKER_SNAP

Quad = npt.NDArray[Any]


def deck_aspect(measured: float) -> float:
    """The aspect to size a deck's cards with: its measured height over width, or exactly poker's.

    A deck measured within `tuning.POKER_SNAP` of `CARD_ASPECT` is poker size with calibration's
    measuring error, and is sized as poker (the recognizer's reads of such a deck do not move).
    """
    return CARD_ASPECT if abs(measured / CARD_ASPECT - 1.0) <= POKER_SNAP else measured


APPROX = (0.02,)
"""Rim simplification tolerances, shares of the card height: at 2% a rounded card corner (radius
~5% of its width) stays one vertex and a pip cut into the rim does not make one. (Adding 1%
found no more corners on a fan whose index ink bites into its top edge: the rim there is broken
into stretches shorter than `MIN_SIDE`.)"""
ANGLE = (65.0, 115.0)
"""Bends this close to a right angle (degrees) may be a card's corner under moderate tilt."""
MIN_SIDE = 0.12
"""The longer of the two rim stretches meeting at a bend must be this share of the card height:
it gives the corner's direction."""


def corner_quads(
    contour: npt.NDArray[Any], card_long: float, *, aspect: float = CARD_ASPECT
) -> list[Quad]:
    """Card outlines (TL-TR-BR-BL, first side short) at the index-corner-like bends of a rim.

    `contour` is a bright region's outer outline (image pixels); `card_long` the card height,
    `aspect` the deck's height over width (`deck_aspect`).
    """
    if card_long <= 0:
        return []
    out: list[Quad] = []
    for tolerance in APPROX:
        poly = cv2.approxPolyDP(contour, tolerance * card_long, True)
        points = poly.reshape(-1, 2).astype(np.float64)
        out.extend(_stretch_corners(contour, points, card_long, aspect))
    return out


def _stretch_corners(
    contour: npt.NDArray[Any], poly: npt.NDArray[Any], card_long: float, aspect: float
) -> list[Quad]:
    """The index-corner outlines at both ends of every long enough straight stretch of `poly`."""
    n = len(poly)
    if n < 3:
        return []
    out = []
    for i in range(n):
        v, w = poly[i], poly[(i + 1) % n]
        seg = w - v
        length = float(np.hypot(*seg))
        if length < MIN_SIDE * card_long:
            continue
        along = seg / length
        inward = np.array([-along[1], along[0]])
        mid = (v + w) / 2 + 3.0 * inward
        if cv2.pointPolygonTest(contour, (float(mid[0]), float(mid[1])), False) <= 0:
            inward = -inward
        # A straight stretch of rim is a card's side: its index corner is at one of its ends,
        # the other side square to it and into the region. Clockwise in image axes from an
        # index corner, the next side is the short one: that fixes which side is which.
        for corner, d in ((v, along), (w, -along)):
            if float(d[0] * inward[1] - d[1] * inward[0]) > 0:
                short, long_ = d, inward
            else:
                short, long_ = inward, d
            out.append(outline_at_corner(corner, short, long_, card_long, aspect=aspect))
    return out


def outline_at_corner(
    corner: npt.NDArray[Any],
    short: npt.NDArray[Any],
    long_: npt.NDArray[Any],
    height: float,
    *,
    aspect: float = CARD_ASPECT,
) -> Quad:
    """The card outline (corner first, short side next) at an index corner.

    `short` and `long_` are unit vectors along the card's short and long sides from `corner`;
    `height` is the card's, its width `height / aspect` (the deck's height over width).
    """
    width = height / aspect
    out: Quad = np.array(
        [corner, corner + width * short, corner + width * short + height * long_,
         corner + height * long_]
    )  # fmt: skip
    return out
