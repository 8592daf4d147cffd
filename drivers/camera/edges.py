"""Edge evidence for a proposed card outline: do its sides lie on edges, and where exactly.

A proposal drawn from a bright region's shape is only roughly placed (blur, a neighbour's
shadow, a chip touching it), and an index warp needs its corner within a few pixels. Each side
is moved onto the straight edge nearest it (`refine`), and a corner is trusted only when the two
sides meeting there lie on edges (`corner_supports`).
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[Any]
Quad = npt.NDArray[Any]

SNAP = 0.07
"""How far (a share of the card's long side) a side may move onto an edge."""
SIZE_KEEP = 0.04
"""How much (a share of the side across) refining may change a card's width or height."""
_MIN_HITS = 0.5
# A half side moves only onto an edge that covers half its samples: ink and pips never do.


def local_edges(gray: Image, points: npt.NDArray[Any], pad: int = 24) -> tuple[Image, Quad]:
    """The edge map of the frame around `points` (a contour or quad), and its origin.

    Edges only where they are needed: a whole-frame Canny would cost more than the rest.
    """
    x, y, w, h = cv2.boundingRect(np.asarray(points, np.float32).reshape(-1, 1, 2))
    x0, y0 = max(0, x - pad), max(0, y - pad)
    origin: Quad = np.array([x0, y0], np.float64)
    return edge_map(gray[y0 : y + h + pad, x0 : x + w + pad]), origin


VALLEY = 5
"""Least depth (grey levels) of a thin dark line: the shade between two overlapping white cards."""
_VALLEY_KERNEL = cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5))


def edge_map(gray: Image) -> Image:
    """Card sides in a grey crop, widened 1 px.

    Steps (Canny on a lightly smoothed crop) and thin dark lines (the shade where one white card
    lies on another, too faint for Canny under blur).
    """
    smooth = cv2.GaussianBlur(gray, (5, 5), 1.0)
    edges = cv2.Canny(smooth, 20, 50)
    valleys = cv2.morphologyEx(smooth, cv2.MORPH_BLACKHAT, _VALLEY_KERNEL) > VALLEY
    edges[valleys] = 255
    out: Image = cv2.dilate(edges, cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3)))
    return out


def corner_supports(edges: Image, quad: Quad) -> tuple[float, float, float, float]:
    """How well the two sides meeting at each corner of `quad` lie on edges (0..1, the weaker).

    The stretch read is the index's: from 8% to 40% of each side away from the corner (the
    corner's own rounding is skipped). A point outside `edges` counts as no edge.
    """
    q = np.asarray(quad, np.float64).reshape(4, 2)
    h, w = edges.shape
    nxt, prv = q[[1, 2, 3, 0]] - q, q[[3, 0, 1, 2]] - q
    ts = np.linspace(0.08, 0.4, 12)
    # (corner, which side, sample, xy)
    sides = np.stack([nxt, prv], axis=1)
    pts = q[:, None, None, :] + ts[None, None, :, None] * sides[:, :, None, :]
    xi = np.rint(pts[..., 0]).astype(np.int64)
    yi = np.rint(pts[..., 1]).astype(np.int64)
    ok = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    hits = np.zeros(xi.shape, bool)
    hits[ok] = edges[yi[ok], xi[ok]] > 0
    share = hits.mean(axis=2).min(axis=1)
    return float(share[0]), float(share[1]), float(share[2]), float(share[3])


def _half_offsets(
    edges: Image, starts: Quad, ends: Quad, normals: Quad, reach: int
) -> list[float | None]:
    """Per segment starts[k]-ends[k], the offset along normals[k] that puts most of it on edges.

    None for a segment that no offset puts mostly on edges.
    """
    h, w = edges.shape
    ts = np.linspace(0.0, 1.0, 8)
    offs = np.arange(-reach, reach + 1, dtype=np.float64)
    # (segment, offset, sample, xy)
    base = starts[:, None, :] + ts[None, :, None] * (ends - starts)[:, None, :]
    pts = base[:, None, :, :] + offs[None, :, None, None] * normals[:, None, None, :]
    xi = np.clip(np.rint(pts[..., 0]).astype(np.int64), 0, w - 1)
    yi = np.clip(np.rint(pts[..., 1]).astype(np.int64), 0, h - 1)
    hits = (edges[yi, xi] > 0).sum(axis=2)
    best = hits.max(axis=1)
    # The widened edge is a plateau a few offsets wide: its middle is the edge (whole offsets
    # sum exactly, so this is the plateau's mean).
    plateau = hits == best[:, None]
    middle = (plateau * offs).sum(axis=1) / plateau.sum(axis=1)
    return [
        float(m) if b >= _MIN_HITS * len(ts) else None for m, b in zip(middle, best, strict=True)
    ]


def refine(edges: Image, quad: Quad) -> tuple[Quad, Quad]:
    """Move each side of `quad` (clockwise in image axes) onto the nearest straight edge.

    Each half of a side is shifted on its own (the side may turn a little); a half with no edge
    near it follows the other half, or keeps its place. Returns two quads through the moved
    sides: free, and keeping the card's width and height (within SIZE_KEEP), for when a side's
    own edge is covered and it jumped onto a neighbour's.
    """
    q = np.asarray(quad, np.float64).reshape(4, 2)
    d = q[[1, 2, 3, 0]] - q
    lengths = np.linalg.norm(d, axis=1)
    if float(lengths.min()) <= 0:
        return q, q
    reach = max(3, round(SNAP * float(lengths.max())))
    u = d / lengths[:, None]
    normals = np.stack([-u[:, 1], u[:, 0]], axis=1)
    starts = np.concatenate([q + 0.1 * d, q + 0.55 * d])
    ends = np.concatenate([q + 0.45 * d, q + 0.9 * d])
    offs = _half_offsets(edges, starts, ends, np.concatenate([normals, normals]), reach)
    halves: list[tuple[float, float]] = []
    for i in range(4):
        o0, o1 = offs[i], offs[i + 4]
        o0, o1 = (o0 if o0 is not None else o1), (o1 if o1 is not None else o0)
        halves.append((0.0, 0.0) if o0 is None or o1 is None else (o0, o1))
    kept = list(halves)
    # When two opposite sides would change the card's width or height by more than SIZE_KEEP,
    # the side that moved more follows the other.
    for i in (0, 1):
        j = i + 2
        mi, mj = sum(halves[i]) / 2, sum(halves[j]) / 2
        if abs(mi + mj) > SIZE_KEEP * float(lengths[(i + 1) % 4]):
            if abs(mi) > abs(mj):
                kept[i] = (-mj, -mj)
            else:
                kept[j] = (-mi, -mi)
    free = _through(q, d, normals, halves, reach)
    return free, free if kept == halves else _through(q, d, normals, kept, reach)


def _through(
    q: Quad, d: Quad, normals: Quad, halves: list[tuple[float, float]], reach: int
) -> Quad:
    """The quad through the sides of `q` moved by `halves` (offsets of each side's two halves)."""
    offs = np.array(halves, np.float64)
    p0 = q + 0.275 * d + offs[:, :1] * normals
    p1 = q + 0.725 * d + offs[:, 1:] * normals
    # Corner i is where side i-1 meets side i (lines p + s * direction).
    a, da = p0[[3, 0, 1, 2]], (p1 - p0)[[3, 0, 1, 2]]
    b, db = p0, p1 - p0
    det = db[:, 0] * da[:, 1] - da[:, 0] * db[:, 1]
    if bool((np.abs(det) < 1e-6).any()):
        return q
    rx, ry = b[:, 0] - a[:, 0], b[:, 1] - a[:, 1]
    out: Quad = a + ((db[:, 0] * ry - db[:, 1] * rx) / det)[:, None] * da
    # A corner that moved further than twice the reach met a side at a grazing angle.
    if bool((np.hypot(*(out - q).T) > 2 * reach).any()):
        return q
    return out
