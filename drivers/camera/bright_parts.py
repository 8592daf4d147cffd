"""The bright parts of a frame (card paper), cut apart along edges, found only where it is bright.

Cards cover a small part of a 1080p frame; the felt is most of it. Thresholding the whole frame
is cheap, but opening, closing, cutting and tracing contours over it cost a firm-outline search
about 8 ms a frame while nearly all of those pixels are dark. The thresholded mask is pooled to
a quarter of the size (any bright pixel makes its pooled pixel bright), its connected parts are
found there, and the morphology and contour tracing run on each part's own crop of the frame at
full resolution, with the other parts blanked out of it. Every part is more than `PAD` pixels
of felt away from the next (pooled parts that come that near are one), further than any
operation here reaches, so the contours are exactly those of the whole-frame operations, and
they are returned in the order a whole-frame `cv2.findContours` gives them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[Any]
Contour = npt.NDArray[Any]

POOL = 4
"""The pooled mask's scale: parts are found on a mask a quarter of the frame's width and height
(a pooled pixel is bright when any pixel of its block is)."""
PAD = 8
"""Felt kept around each part's crop (pixels): more than the morphology below reaches (5 x 5
closing then opening reach 4), so a crop's border never changes a contour inside it."""

_OPEN = cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5))
_THIN = cv2.getStructuringElement(cv2.MORPH_RECT, (2, 2))
_SPLIT = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))
_CLOSE = cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5))
_JOIN = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))
_BLOCK = cv2.getStructuringElement(cv2.MORPH_RECT, (POOL, POOL))
# Opening with 3 px removes hairlines and noise but keeps a small card back's 5 px white border.


@dataclass(frozen=True, slots=True)
class BrightPart:
    """A contour in frame coordinates, and the crop of the mask it was traced on."""

    contour: Contour
    mask: Image
    origin: tuple[int, int]
    """The frame coordinates of `mask`'s top-left pixel."""

    def bright_share(self) -> float:
        """The share of the contour's inside that is bright in its mask (0.0 for no inside)."""
        ox, oy = self.origin
        x, y, w, h = cv2.boundingRect(self.contour)
        solid = np.zeros((h, w), np.uint8)
        cv2.drawContours(solid, [self.contour - np.array([x, y])], -1, 1, -1)
        inside = cv2.countNonZero(solid)
        crop = self.mask[y - oy : y - oy + h, x - ox : x - ox + w]
        bright = cv2.countNonZero(cv2.bitwise_and(crop, solid))
        return float(bright) / inside if inside else 0.0


@dataclass(frozen=True, slots=True)
class SolidRegion:
    """A bright region's outer contour (`part`) and the holes in it."""

    part: BrightPart
    holes: tuple[Contour, ...]


@dataclass(frozen=True, slots=True)
class BrightParts:
    """The frame's 0/1 threshold mask, the cut pieces, and the solid regions.

    `pieces` are the outer contours of the mask opened, cut along edges and opened again, of
    at least the least area asked for; `regions` the outer contours (at least four times that
    area) of the mask closed and opened (a court card's dotted panel line bridged), with their
    holes of at least four times that area. Both in `cv2.findContours`' order over the frame.
    """

    raw: Image
    pieces: list[BrightPart]
    regions: list[SolidRegion]


def bright_parts(gray: Image, threshold: float, min_area: float) -> BrightParts:
    """The bright parts of `gray` above `threshold`, with contours of at least `min_area` px.

    Two white cards that overlap or touch differ only by the thin edge line between them:
    cutting the bright mask along Canny edges (30/80, widened 2 px) keeps them apart, and the
    glyph edges it also cuts lie inside. Blur and JPEG soften that line, hence the low Canny
    thresholds and the 2 px cut (on the bench they found a quarter more cards than 60/140 with
    a 1 px cut). Canny runs only around bright parts big enough to hold a card.
    """
    # `gray > threshold` as 0/1, by OpenCV (it floors the threshold: the same test on grey levels).
    raw = cv2.threshold(gray, threshold, 1, cv2.THRESH_BINARY)[1]
    h, w = gray.shape
    crops = list(_crops(raw, min_area))
    bases = []
    canny: list[tuple[int, int, int, int, Image]] = []
    for x0, y0, own in crops:
        base = cv2.morphologyEx(own, cv2.MORPH_OPEN, _OPEN)
        bases.append(base)
        outer, _ = cv2.findContours(
            base, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE, offset=(x0, y0)
        )
        for contour in outer:
            if cv2.contourArea(contour) < min_area:
                continue
            x, y, bw, bh = cv2.boundingRect(contour)
            cx0, cy0 = max(0, x - 6), max(0, y - 6)
            cx1, cy1 = min(w, x + bw + 6), min(h, y + bh + 6)
            canny.append((cx0, cy0, cx1, cy1, cv2.Canny(gray[cy0:cy1, cx0:cx1], 30, 80)))
    pieces: list[tuple[tuple[int, int], BrightPart]] = []
    regions: list[tuple[tuple[int, int], SolidRegion]] = []
    for (x0, y0, own), base in zip(crops, bases, strict=True):
        ch, cw = own.shape
        edges = np.zeros_like(own)
        for cx0, cy0, cx1, cy1, found in canny:
            # Edges of any part's Canny crop that reach into this crop, as the whole frame's
            # edge map has them.
            ix0, iy0, ix1, iy1 = max(cx0, x0), max(cy0, y0), min(cx1, x0 + cw), min(cy1, y0 + ch)
            if ix0 < ix1 and iy0 < iy1:
                edges[iy0 - y0 : iy1 - y0, ix0 - x0 : ix1 - x0] |= found[
                    iy0 - cy0 : iy1 - cy0, ix0 - cx0 : ix1 - cx0
                ]
        cut = cv2.subtract(base, cv2.dilate(edges, _THIN))  # 0/1 minus 0/255 saturates
        opened = cv2.morphologyEx(cut, cv2.MORPH_OPEN, _SPLIT)
        contours, _ = cv2.findContours(
            opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE, offset=(x0, y0)
        )
        for contour in contours:
            if cv2.contourArea(contour) >= min_area:
                pieces.append((_start(contour), BrightPart(contour, opened, (x0, y0))))
        solid = cv2.morphologyEx(
            cv2.morphologyEx(own, cv2.MORPH_CLOSE, _CLOSE), cv2.MORPH_OPEN, _OPEN
        )
        found_regions, tree = cv2.findContours(
            solid, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE, offset=(x0, y0)
        )
        for k, region in enumerate(found_regions):
            if tree[0][k][3] >= 0 or cv2.contourArea(region) < 4 * min_area:
                continue
            holes = []
            child = int(tree[0][k][2])
            while child >= 0:
                if cv2.contourArea(found_regions[child]) >= 4 * min_area:
                    holes.append(found_regions[child])
                child = int(tree[0][child][0])
            part = BrightPart(region, solid, (x0, y0))
            regions.append((_start(region), SolidRegion(part, tuple(holes))))
    # A whole-frame `findContours` lists outer contours by their first (topmost, then leftmost)
    # point, last found first.
    pieces.sort(key=lambda p: p[0], reverse=True)
    regions.sort(key=lambda r: r[0], reverse=True)
    return BrightParts(raw, [p for _, p in pieces], [r for _, r in regions])


def _start(contour: Contour) -> tuple[int, int]:
    """A contour's first point (row, column): where a raster scan met it."""
    return int(contour[0, 0, 1]), int(contour[0, 0, 0])


def _crops(raw: Image, min_area: float) -> list[tuple[int, int, Image]]:
    """Each bright part of `raw` that may hold a contour of `min_area`, as a crop.

    Returns each crop's origin and the crop (`PAD` px of felt around the part) with only that
    part's pixels kept.
    """
    h, w = raw.shape
    # A block's maximum: dilated with the block as kernel, anchored at its top-left, each
    # pixel holds the maximum of the block starting there; every POOL-th is a block's.
    maxima = cv2.dilate(raw, _BLOCK, anchor=(0, 0))
    pooled = np.ascontiguousarray(maxima[::POOL, ::POOL])
    # Pooled parts one pooled pixel apart are joined: their full-size pixels may be as near as
    # a pixel, and the closing bridges gaps up to 4 px.
    joined = cv2.dilate(pooled, _JOIN)
    # Grana's block-based labelling: the same labels and stats as the default (which also
    # labels 2 x 2 blocks in raster order), at under half its time with stats on one thread.
    count, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
        joined, 8, cv2.CV_32S, cv2.CCL_GRANA
    )
    out = []
    for k in range(1, count):
        px, py, pw_k, ph_k, _ = (int(v) for v in stats[k])
        # No contour is larger than its part's box.
        if pw_k * ph_k * POOL * POOL < min_area:
            continue
        x0, y0 = max(0, px * POOL - PAD), max(0, py * POOL - PAD)
        x1, y1 = min(w, (px + pw_k) * POOL + PAD), min(h, (py + ph_k) * POOL + PAD)
        window = labels[y0 // POOL : -(-y1 // POOL), x0 // POOL : -(-x1 // POOL)]
        mine = (window == k).view(np.uint8)
        if cv2.countNonZero(mine) == cv2.countNonZero(window):
            # No other part reaches into the crop: every bright pixel in it is this part's.
            out.append((x0, y0, raw[y0:y1, x0:x1]))
            continue
        block = cv2.resize(mine, None, fx=POOL, fy=POOL, interpolation=cv2.INTER_NEAREST)
        block = block[y0 % POOL : y0 % POOL + y1 - y0, x0 % POOL : x0 % POOL + x1 - x0]
        own = cv2.bitwise_and(raw[y0:y1, x0:x1], block)
        out.append((x0, y0, own))
    return out
