"""Card hypotheses inside a bright region that holds several cards, and edge evidence for them.

Cards dealt in a row touch or overlap along one axis, and blur often erases the thin line between
them, so their bright region merges. Such a region is a band one card tall (or wide) and several
cards long. Every card in it starts or ends at one of the band's ends or at a line across it (a
covering card's edge): a card-sized rectangle is proposed flush with each, on either side. Most
of these proposals are wrong; the reader only trusts an index corner whose two sides sit on real
edges in the image (`corner_support`), and then only a confident read.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[Any]
Quad = npt.NDArray[Any]

CARD_ASPECT = 88.0 / 63.0
_SAME = 0.06
# Two proposals whose centres lie within 6% of a card's length of each other are one proposal.


def _rect(
    centre: npt.NDArray[Any], u: npt.NDArray[Any], v: npt.NDArray[Any], a: float, b: float
) -> Quad:
    """The rectangle centred on `centre` with half-extents `a` along `u` and `b` along `v`."""
    out: Quad = np.array(
        [
            centre - a * u - b * v,
            centre + a * u - b * v,
            centre + a * u + b * v,
            centre - a * u + b * v,
        ]
    )
    return out


def row_proposals(
    contour: npt.NDArray[Any],
    pieces: list[npt.NDArray[Any]],
    card_long: float | None,
) -> list[Quad]:
    """Card rectangles proposed inside a merged bright region (`contour`).

    `pieces` are the outlines of the parts the region splits into along edges (their sides give
    the lines across the band); `card_long` is the card height in pixels when known, else it is
    taken from the band's width. Returns image quads (four corners, cyclic).
    """
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(contour)
    t = np.deg2rad(angle)
    ax = np.array([np.cos(t), np.sin(t)])
    ay = np.array([-np.sin(t), np.cos(t)])
    if rw >= rh:
        u, v, length, band = ax, ay, rw, rh
    else:
        u, v, length, band = ay, ax, rh, rw
    centre = np.array([cx, cy])
    # The band is one card across: its height (row along the cards' short sides) or its width.
    options: list[tuple[float, float]] = []
    for along, across in ((band / CARD_ASPECT, band), (band * CARD_ASPECT, band)):
        card_h = max(along, across)
        if card_long is not None and not 0.85 <= card_h / card_long <= 1.18:
            continue
        if length < 1.08 * along:
            continue
        options.append((along, across))
    if not options:
        return []
    pts = contour.reshape(-1, 2).astype(np.float64) - centre
    pos = pts @ u
    lo, hi = float(pos.min()), float(pos.max())
    # Lines across the band: the pieces' sides that run across it.
    cuts = [lo, hi]
    for piece in pieces:
        ppos = piece.reshape(-1, 2).astype(np.float64) - centre
        p = ppos @ u
        cuts.extend((float(p.min()), float(p.max())))
    out: list[Quad] = []
    for along, across in options:
        starts: list[float] = []
        for c in cuts:
            for s in (c, c - along):
                if s < lo - 0.04 * along or s + along > hi + 0.04 * along:
                    continue
                s = min(max(s, lo), hi - along)
                if all(abs(s - o) > _SAME * along for o in starts):
                    starts.append(s)
        for s in starts:
            mid = centre + (s + along / 2) * u
            # Centre across the band on the points of this stretch (rows drift a little).
            sel = (pos >= s) & (pos <= s + along)
            if sel.any():
                off = pts[sel] @ v
                mid = mid + (float(off.min()) + float(off.max())) / 2 * v
            out.append(_rect(mid, u, v, along / 2, across / 2))
    return out


def edge_map(gray: Image) -> Image:
    """Edges of the frame as seen at card scale: Canny on a lightly smoothed frame, widened 1 px."""
    smooth = cv2.GaussianBlur(gray, (5, 5), 1.0)
    edges = cv2.Canny(smooth, 20, 50)
    out: Image = cv2.dilate(edges, cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3)))
    return out


def side_support(
    edges: Image, a: npt.NDArray[Any], b: npt.NDArray[Any], t0: float, t1: float
) -> float:
    """Share of points on the side a-b (from fraction t0 to t1 of it) that lie on an edge."""
    h, w = edges.shape
    n = 12
    hits = total = 0
    for t in np.linspace(t0, t1, n):
        x, y = a + t * (b - a)
        xi, yi = round(float(x)), round(float(y))
        if 0 <= xi < w and 0 <= yi < h:
            total += 1
            hits += int(edges[yi, xi] > 0)
    return hits / total if total else 0.0


def corner_support(edges: Image, quad: Quad, corner: int) -> float:
    """How well the two sides meeting at `corner` of `quad` lie on image edges (0..1, the weaker).

    The stretch read is the index's: from 8% to 40% of each side away from the corner (the
    corner's own rounding is skipped).
    """
    q = np.asarray(quad, np.float64).reshape(4, 2)
    p = q[corner]
    nxt, prv = q[(corner + 1) % 4], q[(corner - 1) % 4]
    return min(side_support(edges, p, nxt, 0.08, 0.4), side_support(edges, p, prv, 0.08, 0.4))
