"""What of a partly covered card is in view: its bright region less the other cards found on it.

An outline extended from a strip (`CardOutline.partial`) carries that strip as its visible
region, and the strip is often only the paper margin beside the index (the edge cut takes the
index ink out of it), too thin to hold the index window the reader needs to see whole. The part
of the card actually in view is the bright region holding the strip, less every other card
outline found in it (each grown to the card's true size: a firm outline falls a little short of
the paper's edge). `visible_part` gives the outline that region, so the reader's test of
whether an index window is in view looks at what the camera saw, not at the strip.

`explained` asks the converse of a bright region: whether anything of it is in view beyond the
cards read there, so that another card's index could show.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.detect import inside
from drivers.camera.outline import CardOutline, long_side
from drivers.camera.tuning import INDEX_IN_VIEW, OUTLINE_GROWTH, SAME_CARD


def same_card(a: npt.NDArray[Any], b: npt.NDArray[Any]) -> bool:
    """Whether outlines `a` and `b` (4 x 2 corners) are one card found twice (`SAME_CARD`)."""
    tol = SAME_CARD * long_side(a)
    return any(
        float(np.linalg.norm(np.roll(b, -s, axis=0) - a, axis=1).max()) <= tol for s in (0, 2)
    )


def visible_part(
    outline: CardOutline,
    regions: list[npt.NDArray[Any]],
    others: list[CardOutline],
) -> CardOutline | None:
    """`outline` with its visible region widened to what is in view of its card, or None.

    `regions` are the frame's bright regions (contours), `others` every other firm outline of
    the frame. The region holding `outline`'s strip, less each of `others` that is not the same
    card (`SAME_CARD`), grown by `OUTLINE_GROWTH`; the piece of it holding the strip is the new
    visible region. None when no region holds the strip or nothing of it is left.
    """
    region = next((r for r in regions if inside(r, outline.contour)), None)
    if region is None:
        return None
    x, y, w, h = cv2.boundingRect(region)
    origin = np.array([x, y], np.float64)
    mask: npt.NDArray[np.uint8] = np.zeros((h, w), np.uint8)
    cv2.drawContours(mask, [region - np.array([x, y])], -1, 1, -1)
    for other in others:
        if other is outline or same_card(outline.corners, other.corners):
            continue
        quad = np.asarray(other.corners, np.float64)
        centre = quad.mean(axis=0)
        grown = centre + (quad - centre) * OUTLINE_GROWTH - origin
        cv2.fillConvexPoly(mask, np.round(grown).astype(np.int32), 0)
    pieces, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    held = [p + np.array([x, y], np.int32) for p in pieces]
    own = next((p for p in held if inside(p, outline.contour)), None)
    if own is None:
        return None
    return replace(outline, contour=own)


def explained(
    region: npt.NDArray[Any],
    cards: Sequence[npt.NDArray[Any]],
    strips: Sequence[npt.NDArray[Any]],
    height: float,
) -> bool:
    """Whether bright `region` (a contour) shows nothing beyond the cards read in it.

    `cards` are the read whole cards' outlines (4 x 2 corners, fitted onto the paper's edge),
    `strips` the visible regions (contours) of read cards extended from a strip, `height` the
    card's height in pixels. What of the region lies outside them all is opened with a disc of
    `tuning.INDEX_IN_VIEW` of the height: when nothing is left, no other card's index can be
    in view there (the rim left is paper's edge, blur and shadow). An opening is empty exactly
    when its erosion is, so only the erosion is made.
    """
    if not cards and not strips:
        return False
    x, y, w, h = cv2.boundingRect(region)
    origin = np.array([x, y])
    left: npt.NDArray[np.uint8] = np.zeros((h, w), np.uint8)
    cv2.drawContours(left, [region - origin], -1, 1, -1)
    for quad in cards:
        cv2.fillConvexPoly(left, np.round(np.asarray(quad) - origin).astype(np.int32), 0)
    if strips:
        cv2.drawContours(left, [s - origin for s in strips], -1, 0, -1)
    size = max(3, int(INDEX_IN_VIEW * height) | 1)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    return not cv2.erode(left, disc).any()
