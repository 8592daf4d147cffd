"""The bright parts found crop by crop are exactly those of the whole-frame operations."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st

from drivers.camera.bright_parts import bright_parts

_OPEN = cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5))
_THIN = cv2.getStructuringElement(cv2.MORPH_RECT, (2, 2))
_SPLIT = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))


def _whole_frame(gray: Any, threshold: float, min_area: float) -> tuple[list[Any], list[Any]]:
    """The pieces and regions (with holes) by the same operations on the whole frame."""
    raw = cv2.threshold(gray, threshold, 1, cv2.THRESH_BINARY)[1]
    base = cv2.morphologyEx(raw, cv2.MORPH_OPEN, _OPEN)
    edges = np.zeros_like(gray)
    outer, _ = cv2.findContours(base, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    h, w = gray.shape
    for contour in outer:
        if cv2.contourArea(contour) < min_area:
            continue
        x, y, bw, bh = cv2.boundingRect(contour)
        x0, y0, x1, y1 = max(0, x - 6), max(0, y - 6), min(w, x + bw + 6), min(h, y + bh + 6)
        edges[y0:y1, x0:x1] |= cv2.Canny(gray[y0:y1, x0:x1], 30, 80)
    cut = cv2.subtract(base, cv2.dilate(edges, _THIN))
    opened = cv2.morphologyEx(cut, cv2.MORPH_OPEN, _SPLIT)
    contours, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    pieces = [c for c in contours if cv2.contourArea(c) >= min_area]
    solid = cv2.morphologyEx(cv2.morphologyEx(raw, cv2.MORPH_CLOSE, _OPEN), cv2.MORPH_OPEN, _OPEN)
    found, tree = cv2.findContours(solid, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    regions = []
    for k, region in enumerate(found):
        if tree[0][k][3] >= 0 or cv2.contourArea(region) < 4 * min_area:
            continue
        holes = []
        child = int(tree[0][k][2])
        while child >= 0:
            if cv2.contourArea(found[child]) >= 4 * min_area:
                holes.append(found[child])
            child = int(tree[0][child][0])
        regions.append((region, holes))
    return pieces, regions


_SHAPE = st.tuples(
    st.integers(-20, 300), st.integers(-20, 200), st.integers(3, 120), st.integers(3, 90)
)


@example(
    # Four pixels of felt between two cards, across a pooled pixel: the closing bridges it.
    cards=[(0, 10, 39, 100), (44, 10, 40, 100)],
    holes=[],
    ink=[],
    seed=0,
)
@example(
    # A card lying inside a ring of others (a frame of cards round it, more than the join
    # apart): the ring's crop holds the card's pixels, which must be left out of it; the card's
    # own crop holds only its pixels and is taken as the threshold's own.
    cards=[
        (0, 0, 250, 20),
        (0, 160, 250, 20),
        (0, 0, 20, 180),
        (230, 0, 20, 180),
        (80, 60, 80, 50),
    ],
    holes=[],
    ink=[],
    seed=1,
)
@given(
    cards=st.lists(_SHAPE, max_size=8),
    holes=st.lists(_SHAPE, max_size=3),
    ink=st.lists(_SHAPE, max_size=6),
    seed=st.integers(0, 2**16),
)
def test_crops_give_the_whole_frames_contours_in_its_order(
    cards: list[tuple[int, int, int, int]],
    holes: list[tuple[int, int, int, int]],
    ink: list[tuple[int, int, int, int]],
    seed: int,
) -> None:
    # Paper rectangles (touching, overlapping, cut by the frame's edge) on a noisy felt, with
    # felt showing through and dark ink on them: gaps of every width between bright parts.
    gray = np.random.default_rng(seed).normal(60, 12, (210, 317)).clip(0, 255).astype(np.uint8)
    for k, (x, y, w, h) in enumerate(cards):
        cv2.rectangle(gray, (x, y), (x + w, y + h), 200 + 7 * k, -1)
    for x, y, w, h in holes:
        cv2.rectangle(gray, (x, y), (x + w, y + h), 60, -1)
    for x, y, w, h in ink:
        cv2.rectangle(gray, (x, y), (x + w // 4, y + h // 4), 30, -1)
    parts = bright_parts(gray, 130.0, 60.0)
    pieces, regions = _whole_frame(gray, 130.0, 60.0)
    assert [p.contour.tolist() for p in parts.pieces] == [c.tolist() for c in pieces]
    assert [r.part.contour.tolist() for r in parts.regions] == [c.tolist() for c, _ in regions]
    assert [[h.tolist() for h in r.holes] for r in parts.regions] == [
        [h.tolist() for h in hs] for _, hs in regions
    ]
