"""Every place in a frame a card may be, deck-agnostic: the finder the recognizer reads from.

`find_candidates` gathers the firm outlines of `detect.detect_cards`, each one moved onto the
edges nearest it, and the row proposals of every bright region that may hold several cards; with
`corners=True` it adds the index corners the learned detector (`corner_net`) finds in those
regions. Nothing here reads a card: a candidate is only where a reader should look, and which of
its index corners are worth looking at (`CardOutline.support`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.detect import (
    CardOutline,
    Detection,
    detect_cards,
    inside,
    propose,
    snap_outline,
)
from drivers.camera.edges import local_edges

Image = npt.NDArray[Any]

MIN_CORNER_SUPPORT = 0.7
"""A proposed outline's index corner is read only when both sides meeting there lie on image
edges along at least 70% of the stretch beside the index (the recognizer's own gate)."""


def readable_turns(outline: CardOutline) -> tuple[int, ...]:
    """The turns (0: `corners[0]`, 2: `corners[2]`) of `outline` whose index is worth reading."""
    return tuple(t for t in (0, 2) if outline.support[t] >= MIN_CORNER_SUPPORT)


def find_candidates(
    frame: Image,
    *,
    min_card_px: float = 80.0,
    expected: Callable[[float, float], float | None] | None = None,
    corners: bool = True,
) -> list[CardOutline]:
    """Every candidate outline in a BGR frame: firm, snapped, proposed, and detected corners.

    `min_card_px` and `expected` are as for `detect_cards`. Firm outlines come first.
    """
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    found = detect_cards(gray, min_long_px=min_card_px, expected=expected, frame=frame)
    edge_maps = [local_edges(gray, r.contour) for r in found.regions]
    out = list(found.outlines)
    for o in found.outlines:
        around = [
            m for r, m in zip(found.regions, edge_maps, strict=True) if inside(r.contour, o.contour)
        ]
        out.append(snap_outline(gray, o, around[0] if around else None))
    longs = [_long_side(o.corners) for o in found.outlines if not o.partial]
    frame_long = float(np.median(longs)) if longs else None
    for region, maps in zip(found.regions, edge_maps, strict=True):
        (cx, cy), _, _ = cv2.minAreaRect(region.contour)
        want = expected(float(cx), float(cy)) if expected is not None else None
        out.extend(propose(gray, region, want or frame_long, maps))
    if corners:
        out.extend(detected_corners(frame, gray, found, frame_long))
    return out


def detected_corners(
    frame: Image, gray: Image, found: Detection, card_long: float | None
) -> list[CardOutline]:
    """Outlines built on the index corners the learned detector finds (none without a model)."""
    return []


def _long_side(quad: npt.NDArray[Any]) -> float:
    """The mean length of a quad's two longer opposite sides."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    sides = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
    return float(max(sides[0] + sides[2], sides[1] + sides[3]) / 2)
