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
    # Deeper than VALLEY: 255 (a threshold and an or, where a boolean index cost 5 us a 1,000 px).
    valleys = cv2.threshold(
        cv2.morphologyEx(smooth, cv2.MORPH_BLACKHAT, _VALLEY_KERNEL), VALLEY, 255, cv2.THRESH_BINARY
    )[1]
    edges = cv2.bitwise_or(edges, valleys)
    out: Image = cv2.dilate(edges, cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3)))
    return out


def corner_supports(edges: Image, quad: Quad) -> tuple[float, float, float, float]:
    """How well the two sides meeting at each corner of `quad` lie on edges (0..1, the weaker).

    The stretch read is the index's: from 8% to 40% of each side away from the corner (the
    corner's own rounding is skipped). A point outside `edges` counts as no edge.
    """
    share = corner_supports_all(edges, np.asarray(quad, np.float64).reshape(1, 4, 2))[0]
    return float(share[0]), float(share[1]), float(share[2]), float(share[3])


def corner_supports_all(edges: Image, quads: Quad) -> npt.NDArray[np.float64]:
    """`corner_supports` of every quad of `quads` (N, 4, 2) at once: (N, 4).

    A region's proposals are scored in one pass: per-quad numpy calls cost more than the sums.
    """
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    h, w = edges.shape
    nxt, prv = q[:, [1, 2, 3, 0]] - q, q[:, [3, 0, 1, 2]] - q
    ts = np.linspace(0.08, 0.4, 12)
    # (quad, corner, which side, sample, xy)
    sides = np.stack([nxt, prv], axis=2)
    pts = q[:, :, None, None, :] + ts[None, None, None, :, None] * sides[:, :, :, None, :]
    xi = np.rint(pts[..., 0]).astype(np.int64)
    yi = np.rint(pts[..., 1]).astype(np.int64)
    ok = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    hits = np.zeros(xi.shape, bool)
    hits[ok] = edges[yi[ok], xi[ok]] > 0
    out: npt.NDArray[np.float64] = hits.mean(axis=3).min(axis=2)
    return out


def _half_offsets(
    edges: Image, starts: Quad, ends: Quad, normals: Quad, reach: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """Per segment starts[n, k]-ends[n, k], the offset along normals[n, k] onto edges.

    Offsets are looked for within `reach[n]` pixels; the second array says per segment whether
    some offset puts it mostly on edges (where not, its offset means nothing).
    """
    h, w = edges.shape
    ts = np.linspace(0.0, 1.0, 8)
    top = int(reach.max())
    offs = np.arange(-top, top + 1, dtype=np.float64)
    # (quad, segment, offset, sample), x and y apart: interleaved, each costs a strided copy.
    base = starts[:, :, None, :] + ts[None, None, :, None] * (ends - starts)[:, :, None, :]
    along = offs[None, None, :, None]
    x = base[None, ..., 0].transpose(1, 2, 0, 3) + along * normals[:, :, None, None, 0]
    y = base[None, ..., 1].transpose(1, 2, 0, 3) + along * normals[:, :, None, None, 1]
    xi = np.clip(np.rint(x).astype(np.intp), 0, w - 1)
    yi = np.clip(np.rint(y).astype(np.intp), 0, h - 1)
    hits = np.count_nonzero(edges.ravel()[yi * w + xi], axis=3)
    # A quad's own reach: offsets beyond it never count.
    hits = np.where(np.abs(offs)[None, None, :] > reach[:, None, None], -1, hits)
    best = hits.max(axis=2)
    # The widened edge is a plateau a few offsets wide: its middle is the edge (whole offsets
    # sum exactly, so this is the plateau's mean).
    plateau = hits == best[:, :, None]
    middle = (plateau * offs).sum(axis=2) / plateau.sum(axis=2)
    return middle, best >= _MIN_HITS * len(ts)


def refine(edges: Image, quad: Quad) -> tuple[Quad, Quad]:
    """Move each side of `quad` (clockwise in image axes) onto the nearest straight edge.

    Each half of a side is shifted on its own (the side may turn a little); a half with no edge
    near it follows the other half, or keeps its place. Returns two quads through the moved
    sides: free, and keeping the card's width and height (within SIZE_KEEP), for when a side's
    own edge is covered and it jumped onto a neighbour's. When no side had to be kept, the
    second is the first (the same object).
    """
    free, kept, same = refine_all(edges, np.asarray(quad, np.float64).reshape(1, 4, 2))
    return free[0], free[0] if same[0] else kept[0]


def refine_all(edges: Image, quads: Quad) -> tuple[Quad, Quad, npt.NDArray[np.bool_]]:
    """`refine` of every quad of `quads` (N, 4, 2) at once.

    Returns free (N, 4, 2), kept (N, 4, 2), and per quad whether kept is free (no side had to
    follow its opposite). A region's tens of proposals cost about one this way.
    """
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    d = q[:, [1, 2, 3, 0]] - q
    lengths = np.linalg.norm(d, axis=2)
    flat = lengths.min(axis=1) <= 0
    reach = np.maximum(3, np.rint(SNAP * lengths.max(axis=1))).astype(np.int64)
    u = d / np.where(lengths > 0, lengths, 1.0)[:, :, None]
    normals = np.stack([-u[..., 1], u[..., 0]], axis=2)
    starts = np.concatenate([q + 0.1 * d, q + 0.55 * d], axis=1)
    ends = np.concatenate([q + 0.45 * d, q + 0.9 * d], axis=1)
    offs, found = _half_offsets(edges, starts, ends, np.concatenate([normals, normals], 1), reach)
    o0, o1 = offs[:, :4], offs[:, 4:]
    f0, f1 = found[:, :4], found[:, 4:]
    # A half with no edge follows the other half; a side with neither stays.
    either = f0 | f1
    h0 = np.where(either, np.where(f0, o0, o1), 0.0)
    h1 = np.where(either, np.where(f1, o1, o0), 0.0)
    halves = np.stack([h0, h1], axis=2)
    kept = halves.copy()
    # When two opposite sides would change the card's width or height by more than SIZE_KEEP,
    # the side that moved more follows the other.
    mean = (0.0 + h0 + h1) / 2
    for i in (0, 1):
        j = i + 2
        mi, mj = mean[:, i], mean[:, j]
        far = np.abs(mi + mj) > SIZE_KEEP * lengths[:, (i + 1) % 4]
        first = far & (np.abs(mi) > np.abs(mj))
        second = far & ~(np.abs(mi) > np.abs(mj))
        kept[first, i] = -mj[first, None]
        kept[second, j] = -mi[second, None]
    same = (kept == halves).all(axis=(1, 2)) | flat
    free = _through(q, d, normals, halves, reach)
    kept_q = _through(q, d, normals, kept, reach)
    free[flat] = q[flat]
    kept_q[flat] = q[flat]
    kept_q[same] = free[same]
    return free, kept_q, same


def _through(
    q: Quad, d: Quad, normals: Quad, halves: npt.NDArray[np.float64], reach: npt.NDArray[np.int64]
) -> Quad:
    """The quads through the sides of `q` (N, 4, 2) moved by `halves` (N, 4, 2).

    `halves` holds the offsets of each side's two halves; a quad whose sides meet badly (parallel,
    or at a grazing angle) stays as it was.
    """
    p0 = q + 0.275 * d + halves[:, :, :1] * normals
    p1 = q + 0.725 * d + halves[:, :, 1:] * normals
    # Corner i is where side i-1 meets side i (lines p + s * direction).
    prev = [3, 0, 1, 2]
    a, da = p0[:, prev], (p1 - p0)[:, prev]
    b, db = p0, p1 - p0
    det = db[..., 0] * da[..., 1] - da[..., 0] * db[..., 1]
    parallel = (np.abs(det) < 1e-6).any(axis=1)
    safe = np.where(np.abs(det) < 1e-6, 1.0, det)
    rx, ry = b[..., 0] - a[..., 0], b[..., 1] - a[..., 1]
    out: Quad = a + ((db[..., 0] * ry - db[..., 1] * rx) / safe)[..., None] * da
    # A corner that moved further than twice the reach met a side at a grazing angle.
    moved = np.hypot(out[..., 0] - q[..., 0], out[..., 1] - q[..., 1])
    grazing = (moved > 2 * reach[:, None]).any(axis=1)
    bad = parallel | grazing
    out[bad] = q[bad]
    return out
