"""Index glyphs: split a card's corner index into its rank and suit ink, for deck calibration.

Calibration locates each reference card's index with it (where the rank and suit ink lie, how
sharp, how red) and learns the deck's index window and templates from what it finds. Nothing
reads frames with it: the table's reader is the deck's network (`drivers.camera.index_model`),
whose "no print" contrast floor (`MIN_CONTRAST`) this finder shares.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.index_model import MIN_CONTRAST, Image

Glyph = npt.NDArray[Any]

RED_SHARE = 0.3
"""Ink is red when its redness exceeds the paper's by 30% of the ink's contrast: printed reds
reach 60-100%, black ink under a colour cast or JPEG chroma bleed stays under ~10%."""


@dataclass(frozen=True, slots=True)
class IndexInk:
    """The rank and suit ink found in an index window: masks cropped to their boxes, boxes, red."""

    rank: Glyph
    suit: Glyph
    rank_box: tuple[int, int, int, int]
    suit_box: tuple[int, int, int, int]
    red: bool
    sharpness: float = 1.0
    redness: float = 0.0


def percentiles(values: Image, qs: tuple[float, ...]) -> list[float]:
    """`np.percentile(values, q)` (linear interpolation) for each of `qs`, exactly.

    One partition serves every q: `np.percentile` costs ~8x more on the small windows read per
    corner, and it was a third of an index read.
    """
    flat = values.ravel()
    n = flat.size
    spots = []
    for q in qs:
        at = (n - 1) * (q / 100)
        lo = int(np.floor(at))
        spots.append((lo, min(lo + 1, n - 1), at - lo))
    part = np.partition(flat, sorted({k for lo, hi, _ in spots for k in (lo, hi)}))
    out = []
    for lo, hi, t in spots:
        a, b = float(part[lo]), float(part[hi])
        # numpy's own interpolation, from whichever end is nearer, so the result is identical.
        out.append(b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t)
    return out


def _components(
    mask: Image,
) -> tuple[list[tuple[int, int, int, int, int, int]], npt.NDArray[Any]]:
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    out = []
    h, w = mask.shape
    min_area = max(4, int(0.002 * h * w))
    for i in range(1, count):
        x, y, bw, bh, area = (int(v) for v in stats[i])
        if area < min_area:
            continue
        # Ink touching the window's edge is the card edge, felt, a pip or a picture, not the index.
        if x == 0 or y == 0 or x + bw >= w or y + bh >= h:
            continue
        out.append((x, y, bw, bh, area, i))
    return out, labels.astype(np.int32)


def _union(boxes: list[tuple[int, int, int, int, int, int]]) -> tuple[int, int, int, int]:
    x0 = min(b[0] for b in boxes)
    y0 = min(b[1] for b in boxes)
    x1 = max(b[0] + b[2] for b in boxes)
    y1 = max(b[1] + b[3] for b in boxes)
    return x0, y0, x1 - x0, y1 - y0


def find_index(
    window: Image, *, tops: int = 1, ink_percentile: float = 2, colour: Image | None = None
) -> IndexInk | None:
    """Find the rank (topmost ink, two parts for "10") and the suit just below it in `window`.

    `window` is a BGR crop of an upright card's top-left corner. Returns None when the corner is
    blank, too low in contrast, or holds no rank-over-suit arrangement. The glyphs are ink
    densities (0 paper .. 1 ink) cropped to each glyph's box, so blur keeps its shape information.
    With `tops` > 1 the next-highest pieces of ink are tried as the rank too, nearest the corner
    first: on a flat reference a pip or a court's frame may reach higher than the index.
    `ink_percentile` is the share (percent) of darkest pixels whose level is taken as the ink's:
    a search region much larger than its index needs a smaller one than a corner window.
    `colour`, when `window` is another view of it (its darkest channel), is where how red the
    ink is gets measured.
    """
    gray = cv2.cvtColor(window, cv2.COLOR_BGR2GRAY)
    paper, ink = percentiles(gray, (90, ink_percentile))
    if paper - ink < MIN_CONTRAST:
        return None
    mask = (gray < (paper + ink) / 2).astype(np.uint8)
    parts, labels = _components(mask)
    if not parts:
        return None
    parts.sort(key=lambda b: (b[1], -b[4]))
    # Of the highest pieces, the one nearest the corner is the likeliest rank.
    for top in sorted(parts[:tops], key=lambda b: b[0] + b[1]):
        found = _index_under(
            top, parts, labels, window if colour is None else colour, gray, paper, ink
        )
        if found is not None:
            return found
    return None


def _index_under(
    top: tuple[int, int, int, int, int, int],
    parts: list[tuple[int, int, int, int, int, int]],
    labels: npt.NDArray[Any],
    window: Image,
    gray: Image,
    paper: float,
    ink: float,
) -> IndexInk | None:
    """The index whose rank is `top` (with its same-height neighbours) and the suit below it."""
    top_mid = top[1] + top[3] / 2
    rank_parts = [
        b
        for b in parts
        if b[1] <= top_mid <= b[1] + b[3]
        and abs(b[3] - top[3]) <= 0.35 * top[3] + 1
        # The two digits of a "10" start level; a pip beside a low index does not.
        and abs(b[1] - top[1]) <= 0.2 * top[3] + 1
    ]
    rank_box = _union(rank_parts)
    rx, ry, rw, rh = rank_box
    # The suit is centred under the rank; a narrow rank (J, 1) may sit off the suit's centre
    # by a little, hence the margin of a quarter of the rank's height.
    margin = 0.25 * rh
    below = [
        b
        for b in parts
        if b not in rank_parts
        and b[1] >= ry + rh - 0.15 * rh
        and rx - margin <= b[0] + b[2] / 2 <= rx + rw + margin
    ]
    if not below:
        return None
    first = min(below, key=lambda b: b[1])
    if first[1] - (ry + rh) > 1.2 * rh:
        return None
    # A small club or spade may break into lobes and stem at the threshold: keep the pieces that
    # start within the first piece's height.
    suit_parts = [b for b in below if b[1] <= first[1] + first[3]]
    sx, sy, sw, sh = _union(suit_parts)
    density = np.clip((paper - gray.astype(np.float32)) / (paper - ink), 0.0, 1.0)
    in_rank = np.zeros(int(labels.max()) + 1, bool)
    in_rank[[b[5] for b in rank_parts]] = True
    in_suit = np.zeros_like(in_rank)
    in_suit[[b[5] for b in suit_parts]] = True
    rank_ink = density[ry : ry + rh, rx : rx + rw].copy()
    rank_ink *= in_rank[labels[ry : ry + rh, rx : rx + rw]]
    suit_ink = density[sy : sy + sh, sx : sx + sw] * in_suit[labels[sy : sy + sh, sx : sx + sw]]
    glyph_px = (in_rank | in_suit)[labels]
    redness = red_share(window, glyph_px, gray, paper)
    # The suit is the smaller glyph, and a club and a spade differ only in its fine detail.
    sharp = min(
        sharpness(padded(density, (rx, ry, rw, rh)), rh),
        sharpness(padded(density, (sx, sy, sw, sh)), sh),
    )
    return IndexInk(
        rank_ink,
        suit_ink.astype(np.float32),
        rank_box,
        (sx, sy, sw, sh),
        redness > RED_SHARE,
        sharp,
        redness,
    )


def padded(density: Glyph, box: tuple[int, int, int, int]) -> Glyph:
    """The glyph's box grown by a quarter of its height: a blurred edge spills past the box."""
    x, y, w, h = box
    pad = max(1, h // 4)
    out: Glyph = density[max(0, y - pad) : y + h + pad, max(0, x - pad) : x + w + pad]
    return out


def sharpness(density: Glyph, height: int) -> float:
    """How crisp a glyph is: its height over the mean width of its paper-to-ink edge.

    The edge width is the area of half-tone pixels (density 0.2..0.8) over the length of the
    glyph's outline; `density` should include a margin round the glyph's box, where a blurred
    edge spills. Higher is crisper: defocus, motion and a small card all lower it, and glyphs
    scoring under ~4.5 misread often enough to be refused (see `drivers.camera.classify`).
    """
    if density.size == 0 or height <= 0:
        return 0.0
    band = float(((density > 0.2) & (density < 0.8)).sum())
    mask = (density >= 0.5).astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    length = float(sum(cv2.arcLength(c, True) for c in contours))
    if length <= 0:
        return 0.0
    return height / max(0.5, band / length)


def red_share(window: Image, glyph_px: npt.NDArray[np.bool_], gray: Image, paper: float) -> float:
    """How red the glyph's ink is: its redness in excess of the paper's, over the ink's contrast.

    Redness is R minus the larger of G and B. A colour cast or JPEG's shared chroma moves a black
    glyph's redness with the paper's, so only the excess over the paper's redness counts. Ink is
    red above `RED_SHARE`; 0.0 when there is no paper or ink to compare.
    """
    bgr = window.astype(np.float32)
    redness = bgr[..., 2] - np.maximum(bgr[..., 0], bgr[..., 1])
    paper_px = gray >= paper - 10
    if not paper_px.any() or not glyph_px.any():
        return 0.0
    ink_px = glyph_px & (gray <= percentiles(gray[glyph_px], (60,))[0])
    if not ink_px.any():
        return 0.0
    contrast = paper - float(gray[ink_px].mean())
    excess = float(redness[ink_px].mean()) - float(redness[paper_px].mean())
    return excess / max(1.0, contrast)


def normalise(glyph: Glyph, size: tuple[int, int]) -> Glyph:
    """Resize a glyph mask to `size` (width, height) with area averaging; values stay in 0..1."""
    out: Glyph = cv2.resize(glyph, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    return out


def aspect(box: tuple[int, int, int, int]) -> float:
    """Height over width of a box (x, y, w, h)."""
    return box[3] / max(1, box[2])
