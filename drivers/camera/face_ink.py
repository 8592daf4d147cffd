"""The suit symbols printed on a card's face, away from its index corners.

A face's pips (or a jumbo deck's one large symbol, or the symbol in a court card's picture) are
two to five times the size of the index's suit. Defocus and motion blur of a few pixels fill a
small index club's notches until it looks like a spade, while a pip twice its size keeps its
shape: where the index cannot tell the black suits apart, the face can (see
`drivers.camera.classify.IndexClassifier.read_face`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from drivers.camera.glyphs import (
    MIN_CONTRAST,
    Glyph,
    Image,
    padded,
    percentiles,
    red_share,
    sharpness,
)

FACE_BOX = (0.18, 0.1, 0.82, 0.9)
"""Where a face's symbols are looked for: (x0, y0, x1, y1) as fractions of the flat card."""
PAPER_GROUND = 0.25
"""Darkest ground (`FaceInk.ground`) a shape may lie on and count as printed on the paper:
around a pip it measures up to ~0.11 (99th percentile, blurred bench frames), on a court
picture's coloured panel ~0.2-0.45. Ink is measured against the paper, so over a panel a
blurred rim passes for ink and fills a club's lobes."""
MIN_PIP_AREA = 0.0015
"""Least ink area of a symbol, as a share of the face box (~40 px on a flat card): enough for
another card's index suit lying across this face, which must be seen to veto the read."""


@dataclass(frozen=True, slots=True)
class FaceInk:
    """One ink shape on a card's face: its density crop, box (in the face box), sharpness, red."""

    glyph: Glyph
    box: tuple[int, int, int, int]
    sharpness: float
    redness: float
    ground: float = 0.0
    """How dark the face is around the shape, as a share of the ink's contrast: ~0 on the
    paper, more on a court picture's coloured panel."""


def find_face_ink(
    card: Image,
    index_window: tuple[float, float, float, float],
    visible: Image | None = None,
) -> list[FaceInk]:
    """The separate ink shapes inside `FACE_BOX` of a flat upright card (BGR), largest first.

    Shapes touching the box's edge (a picture's frame cut by it) or reaching into either index
    corner (`index_window` and its half-turn; a corner pip cut there is no whole symbol) are
    left out. With `visible` (a mask of the flat card,
    non-zero where the card itself is in view: a neighbour covers the rest), only shapes lying
    wholly inside it count, and the paper and ink levels come from it. Empty when the face is
    too low in contrast.
    """
    h, w = card.shape[:2]
    x0, y0, x1, y1 = (round(f * n) for f, n in zip(FACE_BOX, (w, h, w, h), strict=True))
    face = card[y0:y1, x0:x1]
    gray = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
    seen = None if visible is None else visible[y0:y1, x0:x1] > 0
    if seen is not None and seen.sum() < MIN_PIP_AREA * seen.size:
        return []
    paper, ink = percentiles(gray if seen is None else gray[seen], (90, 1))
    if paper - ink < MIN_CONTRAST:
        return []
    mask = (gray < (paper + ink) / 2).astype(np.uint8)
    corners = np.zeros_like(mask)
    ix0, iy0, ix1, iy1 = index_window
    for bx0, by0, bx1, by1 in ((ix0, iy0, ix1, iy1), (1 - ix1, 1 - iy1, 1 - ix0, 1 - iy0)):
        corners[
            max(0, round(by0 * h) - y0) : max(0, round(by1 * h) - y0),
            max(0, round(bx0 * w) - x0) : max(0, round(bx1 * w) - x0),
        ] = 1
    mask[corners > 0] = 0
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    fh, fw = mask.shape
    # A shape reaching into an index corner, or where the card is out of view, is cut short (a
    # pip clipped by the window, a club missing its stem) or partly another card's: it is no
    # whole symbol of this card's, and a clipped spade can fit a club.
    hidden = corners if seen is None else corners | (~seen).astype(np.uint8)
    near = cv2.dilate(hidden, np.ones((5, 5), np.uint8)) > 0
    cut = np.zeros(count, bool)
    cut[np.unique(labels[near])] = True
    density = np.clip((paper - gray.astype(np.float32)) / (paper - ink), 0.0, 1.0)
    out = []
    for i in range(1, count):
        x, y, bw, bh, area = (int(v) for v in stats[i])
        edge = x == 0 or y == 0 or x + bw >= fw or y + bh >= fh
        if area < MIN_PIP_AREA * fh * fw or edge or cut[i]:
            continue
        mine = labels == i
        glyph = density[y : y + bh, x : x + bw] * mine[y : y + bh, x : x + bw]
        box = (x, y, bw, bh)
        grown = _grown(mine)
        ring = (cv2.dilate(mine.astype(np.uint8), np.ones((11, 11), np.uint8)) > 0) & (grown == 0)
        out.append(
            FaceInk(
                glyph.astype(np.float32),
                box,
                sharpness(padded(density * grown, box), bh),
                red_share(face, mine, gray, paper),
                float(np.median(density[ring])) if ring.any() else 0.0,
            )
        )
    return sorted(out, key=lambda s: -s.box[2] * s.box[3])


def _grown(mask: Image) -> Glyph:
    """`mask` grown by a few pixels, so a shape's blurred rim counts and its neighbours' do not."""
    grown: Glyph = cv2.dilate(mask.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(np.float32)
    return grown


Symbol = tuple[float, float, float]
"""A face symbol's centre x and y as fractions of the flat card's width and height, and its
height as a fraction of the card's height."""

LAYOUT_HEIGHT = 0.15
"""How much a symbol's height may differ from the printed one's, as a share of it: a classic
pip is 0.78 of a court picture's symbol, and must not pass for it."""
LAYOUT_TOLERANCE = 0.04
"""How far a symbol may lie from where the deck prints it, as a fraction of the card's width
(across) and height (along), and how far a rank's four suits may disagree on it: a proposal's
outline snaps onto the card's edges to within a few pixels of a 200 x 280 px flat card, and
pips lie 30-60 px apart."""


def symbol(ink: FaceInk, card_shape: tuple[int, ...]) -> Symbol:
    """Where `ink` (found by `find_face_ink` on a flat card of `card_shape`) lies on the card."""
    h, w = card_shape[:2]
    x, y, bw, bh = ink.box
    return (
        (FACE_BOX[0] * w + x + bw / 2) / w,
        (FACE_BOX[1] * h + y + bh / 2) / h,
        bh / h,
    )


def same_layout(found: list[Symbol], printed: list[Symbol]) -> bool:
    """Whether the symbols `found` on a face are those `printed` there, either way up.

    Each printed symbol must have one found symbol of about its height (`LAYOUT_HEIGHT`)
    within `LAYOUT_TOLERANCE`, and none may be left over. A card is read from either index
    corner, so the layout turned half a circle counts too.
    """
    if len(found) != len(printed) or any(not h > 0 for _, _, h in printed):
        return False
    for layout in (printed, [(1 - x, 1 - y, h) for x, y, h in printed]):
        left = list(found)
        for x, y, h in layout:
            near = [
                s
                for s in left
                if abs(s[0] - x) <= LAYOUT_TOLERANCE
                and abs(s[1] - y) <= LAYOUT_TOLERANCE
                and abs(s[2] / h - 1) <= LAYOUT_HEIGHT
            ]
            if not near:
                break
            left.remove(min(near, key=lambda s: (s[0] - x) ** 2 + (s[1] - y) ** 2))
        else:
            return True
    return False
