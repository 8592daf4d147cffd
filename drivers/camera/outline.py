"""A card outline as every step of the finder hands it on, and the geometry it is measured by.

`CardOutline` carries a card's four image corners and the region it was seen in; `portrait`
puts four corners in the one order every step reads them in (clockwise, first side short), and
`long_side` gives an outline's height, the scale every tolerance of the finder is a share of;
`paper_share` says how much of a quad the frame's thresholded mask shows as paper.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

Quad = npt.NDArray[Any]

OUTLINE_ASPECT = (1.2, 1.65)
"""The long-over-short ratios a whole card's outline may have: moderate perspective changes the
outline's aspect by up to ~15% either way."""


@dataclass(frozen=True, slots=True)
class CardOutline:
    """A card's four image corners (clockwise, first side short) and its visible region.

    `partial` is True when the outline was extended from a visible strip; `contour` is the visible
    region's outline, so a reader can tell whether an index corner is actually in view.
    `speculative` outlines are proposals inside a region holding several cards: report one only
    when it reads. `support` says, per corner, how well the two sides meeting there lie on image
    edges (0..1): a proposal's corner is read only when it is well supported. `corner` outlines
    come from the learned index-corner detector (`finder.detected_corners`).
    """

    corners: Quad
    contour: npt.NDArray[Any]
    partial: bool
    speculative: bool = False
    support: tuple[float, float, float, float] = (1.0, 1.0, 1.0, 1.0)
    corner: bool = False
    """True for an outline built on an index corner the learned detector found."""
    back_only: bool = False
    """True for a small back found as its bright region (`detect._ring_backs`): it stands for
    a card only when it is read face down."""


def portrait(quad: Quad) -> Quad:
    """Reorder four cyclic corners clockwise (image axes) with the first side a short side."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    nxt = q[[1, 2, 3, 0]]
    if float((q[:, 0] * nxt[:, 1] - nxt[:, 0] * q[:, 1]).sum()) < 0:
        q = q[::-1]
    top = int(np.argmin(q[:, 0] + q[:, 1]))
    order = [(top + k) % 4 for k in range(4)]
    d = q[[order[1], order[2]]] - q[[order[0], order[1]]]
    if float(d[0] @ d[0]) > float(d[1] @ d[1]):
        order = order[1:] + order[:1]
    out: Quad = q[order]
    return out


def portraits(quads: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """`portrait` of every quad of `quads` (N, 4, 2) at once (a region's proposals in one pass)."""
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    nxt = q[:, [1, 2, 3, 0]]
    ccw = (q[..., 0] * nxt[..., 1] - nxt[..., 0] * q[..., 1]).sum(axis=1) < 0
    q = np.where(ccw[:, None, None], q[:, ::-1], q)
    top = np.argmin(q[..., 0] + q[..., 1], axis=1)
    order = (top[:, None] + np.arange(4)[None, :]) % 4
    rows = np.arange(len(q))[:, None]
    d0 = q[rows[:, 0], order[:, 1]] - q[rows[:, 0], order[:, 0]]
    d1 = q[rows[:, 0], order[:, 2]] - q[rows[:, 0], order[:, 1]]
    long_first = (d0 * d0).sum(axis=1) > (d1 * d1).sum(axis=1)
    order = np.where(long_first[:, None], np.roll(order, -1, axis=1), order)
    out: npt.NDArray[Any] = q[rows, order]
    return out


def lengths(d: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The length of each 2-vector of `d` (N x 2), equal to the bit to `np.linalg.norm` of it.

    `np.linalg.norm` of one vector is the square root of its dot product with itself, which
    numpy's dot kernel may sum with a fused multiply-add: a batched matrix product runs that
    kernel too (an elementwise sum of squares differs in the last bit for 8% of vectors).
    """
    out: npt.NDArray[np.float64] = np.sqrt((d[:, None, :] @ d[:, :, None])[:, 0, 0])
    return out


_NEXT = [1, 2, 3, 0]


def side_pairs(quad: npt.NDArray[Any]) -> tuple[float, float]:
    """The summed lengths of a quad's opposite sides: first and third, second and fourth.

    Each length is the square root of the sum of the two squared differences, as
    `np.linalg.norm(..., axis=1)` computes it, to the bit; without its and `np.roll`'s checks
    it costs half (~80 calls a frame).
    """
    q = np.asarray(quad, np.float64).reshape(4, 2)
    d = q - q[_NEXT]
    sides = np.sqrt((d * d).sum(axis=1))
    return float(sides[0] + sides[2]), float(sides[1] + sides[3])


def long_side(quad: npt.NDArray[Any]) -> float:
    """The mean length of a quad's two longer opposite sides: a card outline's height."""
    return max(side_pairs(quad)) / 2


def paper_share(mask: npt.NDArray[Any], quad: Quad) -> float:
    """Share of bright pixels of `mask` at a 9 x 9 grid over `quad`.

    Points outside the frame are not counted; 0.0 when none is inside.
    """
    pts = grid_points(quad)
    h, w = mask.shape
    held = (pts[:, 0] >= 0) & (pts[:, 0] < w) & (pts[:, 1] >= 0) & (pts[:, 1] < h)
    if not held.any():
        return 0.0
    return float((mask[pts[held, 1], pts[held, 0]] > 0).mean())


def grid_points(quad: Quad) -> npt.NDArray[Any]:
    """A 9 x 9 grid of whole pixel points over `quad`, 5% in from its sides."""
    t = np.linspace(0.05, 0.95, 9)
    u, v = np.meshgrid(t, t)
    top = quad[0][None, None] + u[..., None] * (quad[1] - quad[0])[None, None]
    bottom = quad[3][None, None] + u[..., None] * (quad[2] - quad[3])[None, None]
    return np.asarray(np.round(top + v[..., None] * (bottom - top)).astype(int).reshape(-1, 2))
