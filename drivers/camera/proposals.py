"""Speculative card outlines inside a bright region, and outlines snapped onto the nearest edges.

Where firm outlines do not explain a bright region (cards in a row merged by blur, a lone card
the edge cut broke up), card-sized rectangles are proposed in it (`propose`: rows from
`merged.row_proposals` and the region's own rectangle); each has its sides moved onto the image
edges nearest them (`edges.refine_all`) and carries its corners' edge support, which the reader
asks of a proposal before it reads it. `snap_outline` does the same for one outline.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.corners import CARD_ASPECT
from drivers.camera.detect import BrightRegion
from drivers.camera.edges import corner_supports_all, local_edges, refine_all
from drivers.camera.merged import row_proposals
from drivers.camera.outline import OUTLINE_ASPECT, CardOutline, lengths, portraits

Image = npt.NDArray[Any]
Quad = npt.NDArray[Any]


def _body(contour: npt.NDArray[Any], holes: tuple[npt.NDArray[Any], ...] = ()) -> npt.NDArray[Any]:
    """`contour` without thin attachments (a chip's stripes, a printed line, text touching it).

    An opening with a kernel an eighth of the region's width strips them; the largest part left
    is the cards' body (the whole region when the opening leaves too little). The outline comes
    back with every boundary pixel, so a stretch of it can be measured across.
    """
    x, y, w, h = cv2.boundingRect(contour)
    _, (rw, rh), _ = cv2.minAreaRect(contour)
    k = max(5, int(min(rw, rh) / 8) | 1)
    mask = np.zeros((h, w), np.uint8)
    cv2.drawContours(mask, [contour - np.array([x, y])], -1, 1, -1)
    if holes:
        # A printed box touching a card encloses felt: only its thin lines are bright.
        cv2.drawContours(mask, [h - np.array([x, y]) for h in holes], -1, 0, -1)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    area = float(mask.sum())
    for m in (cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel), mask):
        parts, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        if parts:
            best = max(parts, key=cv2.contourArea)
            if cv2.contourArea(best) >= 0.5 * area:
                out: npt.NDArray[Any] = best + np.array([x, y])
                return out
    return contour


def propose(
    gray: Image,
    region: BrightRegion,
    card_long: float | None,
    edges: tuple[Image, Quad] | None = None,
    *,
    aspect: float = CARD_ASPECT,
) -> list[CardOutline]:
    """Speculative card outlines inside a bright region that firm outlines did not explain.

    Row proposals (`merged.row_proposals`) and, when the region has a card's shape itself, its
    own rectangle (a lone card the edge cut broke up under noise). `card_long` is the card height
    in pixels when known; `edges` may give the edge map around the region and its origin
    (`edges.local_edges`); `aspect` is the deck's height over width (`corners.deck_aspect`).
    Each proposal has its sides moved onto the nearest edges and carries
    its corners' edge support.
    """
    body = _body(region.contour, region.holes)
    _, (rw, rh), _ = cv2.minAreaRect(body)
    edge_map, origin = edges if edges is not None else local_edges(gray, region.contour)
    quads = row_proposals(body, list(region.pieces), card_long, edge_map, origin, aspect=aspect)
    long_side, short_side = max(rw, rh), min(rw, rh)
    shaped = short_side > 0 and OUTLINE_ASPECT[0] <= long_side / short_side <= OUTLINE_ASPECT[1]
    if shaped and (card_long is None or 0.85 <= long_side / card_long <= 1.18):
        quads.append(cv2.boxPoints(cv2.minAreaRect(region.contour)).astype(np.float64))
    # A side may snap onto its own edge or, when that is covered, onto a neighbour's: both are
    # tried. Proposals from nearby lines often snap onto the same card: read it once.
    snapped = _snapped(edge_map, origin, quads, region.contour)
    return [snapped[k] for k in _unseen([o.corners for o in snapped])]


def _unseen(quads: list[Quad]) -> list[int]:
    """The quads of `quads` kept in order, each unless it repeats one kept before it.

    A quad repeats another when every corner lies within 1% of its own perimeter/2 of the
    other's same corner. All pairs are measured at once: quad by quad against those kept, a
    region's tens of proposals cost 2 ms a frame.
    """
    if not quads:
        return []
    q = np.stack(quads)
    tol = 0.01 * (lengths(q[:, 2] - q[:, 1]) + lengths(q[:, 1] - q[:, 0]))
    # far[i, j]: the farthest corner of quad j from the same corner of quad i.
    far = np.sqrt(((q[None, :] - q[:, None]) ** 2).sum(axis=3)).max(axis=2)
    near = (far <= tol[:, None]).tolist()
    kept: list[int] = []
    for i, row in enumerate(near):
        if not any(row[j] for j in kept):
            kept.append(i)
    return kept


def _snapped(
    edges: Image, origin: Quad, quads: list[Quad], contour: npt.NDArray[Any]
) -> list[CardOutline]:
    """Speculative outlines of `quads` with their sides moved onto edges, with their support.

    Per quad, free then size-keeping (once when both are the same quad). `edges` is an edge
    map whose top-left pixel is `origin`. All quads are refined in one pass
    (`edges.refine_all`): a region's tens of proposals cost about one.
    """
    if not quads:
        return []
    local = portraits(np.stack(quads)) - origin
    free, kept, same = refine_all(edges, local)
    keep = [k for k in range(len(quads)) if not same[k]]
    moved = portraits(np.concatenate([free, kept[keep]]))
    supports = corner_supports_all(edges, moved)
    outlines = [
        CardOutline(q + origin, contour, True, True, _support(s))
        for q, s in zip(moved, supports, strict=True)
    ]
    out: list[CardOutline] = []
    kept_at = dict(zip(keep, outlines[len(quads) :], strict=True))
    for k in range(len(quads)):
        out.append(outlines[k])
        if k in kept_at:
            out.append(kept_at[k])
    return out


def _support(share: npt.NDArray[Any]) -> tuple[float, float, float, float]:
    return float(share[0]), float(share[1]), float(share[2]), float(share[3])


def snap_outline(
    gray: Image, outline: CardOutline, edges: tuple[Image, Quad] | None = None
) -> CardOutline:
    """`outline` as a speculative outline with its sides moved onto the edges nearest them.

    `edges` may give an edge map around the outline and its origin (`edges.local_edges`).
    """
    edge_map, origin = edges if edges is not None else local_edges(gray, outline.corners)
    return _snapped(edge_map, origin, [outline.corners], outline.contour)[0]
