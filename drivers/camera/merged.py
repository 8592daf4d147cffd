"""Card hypotheses inside a bright region that holds several cards, and edge evidence for them.

Cards dealt in a row touch or overlap along one axis, and blur often erases the thin line between
them, so their bright region merges. Such a region is a band one card tall (or wide) and several
cards long. Every card in it starts or ends at one of the band's ends or at a line across it (a
covering card's edge): a card-sized rectangle is proposed flush with each, on either side. Most
of these proposals are wrong; the reader only trusts an index corner whose two sides sit on real
edges in the image (`edges.corner_supports`), and then only a confident read.
"""

from __future__ import annotations

import bisect
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.corners import CARD_ASPECT

Image = npt.NDArray[Any]
Quad = npt.NDArray[Any]

_SAME = 0.06
_SPAN = (0.75, 1.2)
# A card seen between two lines across a row may be this much shorter or longer than expected.
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
    edges: Image | None = None,
    origin: npt.NDArray[Any] | None = None,
    *,
    aspect: float = CARD_ASPECT,
) -> list[Quad]:
    """Card rectangles proposed inside a merged bright region (`contour`).

    `pieces` are the outlines of the parts the region splits into along edges (their sides give
    the lines across the band); `card_long` is the card height in pixels when known, else it is
    taken from the band's width. `edges` (an edge map whose top-left pixel is `origin` in the
    frame) adds the straight edges across the band that the cut missed; `aspect` is the deck's
    height over width (`corners.deck_aspect`), the proposals' shape. Returns image quads
    (four corners, cyclic).
    """
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(contour)
    t = np.deg2rad(angle)
    ax = np.array([np.cos(t), np.sin(t)])
    ay = np.array([-np.sin(t), np.cos(t)])
    centre = np.array([cx, cy])
    long_first = [(ax, ay, rw, rh), (ay, ax, rh, rw)]
    if rw < rh:
        long_first.reverse()
    out: list[Quad] = []
    # The row usually runs along the region's long axis; two cards overlapping by more than
    # half lie side by side in a region longer across the row (their long sides) than along it.
    # Both axes are tried: the card size (known, or taken from the band) rules out the wrong
    # one for any row of more than two cards.
    for u, v, length, band in long_first:
        out.extend(
            _along(contour, pieces, card_long, edges, origin, centre, u, v, length, band, aspect)
        )
    return out


def _along(
    contour: npt.NDArray[Any],
    pieces: list[npt.NDArray[Any]],
    card_long: float | None,
    edges: Image | None,
    origin: npt.NDArray[Any] | None,
    centre: npt.NDArray[Any],
    u: npt.NDArray[Any],
    v: npt.NDArray[Any],
    length: float,
    band: float,
    aspect: float,
) -> list[Quad]:
    """`row_proposals` for a row running along `u` (`length` long, `band` across along `v`)."""
    # The band is one card across: its height (row along the cards' short sides) or its width.
    # With the card size known, it sets the proposals' size: a chip or a printed line touching
    # the band widens it, so the band only has to roughly agree; a size taken from the cards
    # read elsewhere in the frame (no table calibration) is a median that perspective makes
    # a far card's band fall short of by up to a quarter.
    options: list[tuple[float, float]] = []
    if card_long is not None:
        sizes = [(card_long / aspect, card_long), (card_long, card_long / aspect)]
        sizes = [(a, c) for a, c in sizes if 0.75 <= band / c <= 1.35]
    else:
        sizes = [(band / aspect, band), (band * aspect, band)]
    for along, across in sizes:
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
    if edges is not None:
        shift = centre - (origin if origin is not None else np.zeros(2))
        cuts.extend(lines_across(edges, shift, u, v, lo, hi, band))
    out: list[Quad] = []
    for along, across in options:
        spans: list[tuple[float, float]] = []
        # The starts so far, in order: the nearest one either side decides.
        starts: list[float] = []
        for c in cuts:
            for s in (c, c - along):
                if s < lo - 0.04 * along or s + along > hi + 0.04 * along:
                    continue
                s = min(max(s, lo), hi - along)
                at = bisect.bisect_left(starts, s)
                if (at == len(starts) or abs(s - starts[at]) > _SAME * along) and (
                    at == 0 or abs(s - starts[at - 1]) > _SAME * along
                ):
                    spans.append((s, along))
                    starts.insert(at, s)
        # Perspective and a misjudged card size make a card a little longer or shorter along
        # the row than `along`: a stretch from an end of the row to a line across it of about
        # that length is a card too.
        for c in cuts:
            for a, size in ((lo, c - lo), (c, hi - c)):
                if not _SPAN[0] * along <= size <= _SPAN[1] * along:
                    continue
                if all(
                    abs(a - o) > _SAME * along or abs(size - n) > _SAME * along for o, n in spans
                ):
                    spans.append((a, size))
        for s, size in spans:
            mid = centre + (s + size / 2) * u
            # Centre across the band on the points of this stretch (rows drift a little).
            sel = (pos >= s) & (pos <= s + size)
            if sel.any():
                off = pts[sel] @ v
                if float(off.max() - off.min()) > 0.7 * across:
                    mid = mid + (float(off.min()) + float(off.max())) / 2 * v
            out.append(_rect(mid, u, v, size / 2, across / 2))
    return out


LINE_SHARE = 0.5
"""A line across a band is an edge covering half of the band's middle 80%: a card's side does,
the ink of an index or pips does not (a court card's picture frame may, and its proposals then
simply do not read)."""


def lines_across(
    edges: Image,
    centre: npt.NDArray[Any],
    u: npt.NDArray[Any],
    v: npt.NDArray[Any],
    lo: float,
    hi: float,
    band: float,
) -> list[float]:
    """Positions (along `u`, from `centre` in `edges`' pixels) of straight edges across the band.

    The band runs along `u` from `lo` to `hi` and is `band` wide along `v`, centred on `centre`.
    """
    h, w = edges.shape
    ps = np.arange(lo, hi + 1.0, 1.0)
    ws = np.linspace(-0.4 * band, 0.4 * band, 16)
    pts = centre[None, None, :] + ps[:, None, None] * u + ws[None, :, None] * v
    xi = np.rint(pts[..., 0]).astype(np.int64)
    yi = np.rint(pts[..., 1]).astype(np.int64)
    ok = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    hits = np.zeros(xi.shape, bool)
    hits[ok] = edges[yi[ok], xi[ok]] > 0
    share = hits.mean(axis=1)
    out: list[float] = []
    gap = max(2, round(0.03 * band))
    # The lines kept so far, in order along the band: the nearest one either side decides
    # (a strong edge is a plateau of tens of positions, each checked against every line kept).
    kept: list[float] = []
    for k in np.argsort(-share).tolist():
        if share[k] < LINE_SHARE:
            break
        p = float(ps[k])
        at = bisect.bisect_left(kept, p)
        if (at == len(kept) or abs(p - kept[at]) > gap) and (
            at == 0 or abs(p - kept[at - 1]) > gap
        ):
            out.append(p)
            kept.insert(at, p)
    return out
