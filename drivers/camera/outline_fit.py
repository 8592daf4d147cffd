"""A card outline moved onto the paper's edge to a fraction of a pixel: straight lines fitted to it.

The finder's outlines come from a thresholded mask cut along edges and opened, so they lie a few
pixels inside the card: on the tuning designs every side of a firm outline sat a median 3% of
the card's height inside the paper's edge (2.5-3%, either envelope), and its corners on the
rounded corners' arcs, which puts the index window 4% of the height off for most cards (the
reader is trained on outlines within about 1.5% of the card). Along each side, the grey profile
across it is sampled; the paper's edge is the outermost step from paper to felt (above the
frame's paper threshold, then below it: a printed border line on the paper further in, or a
neighbour beyond a gap, is not taken for it), placed at its steepest slope, which blur leaves
in place. A straight line is fitted through those points on each side, and the corners are
where the lines meet (the corner of the paper the index is laid out from, not its rounding).
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[Any]
Quad = npt.NDArray[Any]

REACH = 0.06
"""How far (a share of the outline's long side) each side looks for the paper's edge, either
way: twice the finder's usual 3%, so a border line's rectangle (3% of the width in) finds the
edge outside it."""
_STEP = 0.5
# Profiles are sampled every half pixel: the steepest slope is then placed to a tenth of one.
_SAMPLES = np.linspace(0.15, 0.85, 15)
# The middle 70% of a side: the corners' rounding and a neighbour's corner stay out of it.
_MIN_POINTS = 8
# Over half the samples must find the step, as for `edges.refine` (ink never makes a side).
_INLIER_PX = 1.5
# A paper edge is found to a few tenths of a pixel even blurred: steps farther from the fitted
# line are something else (a neighbour's edge, print).
_PASSES = 3
# Two passes put a border-snapped outline on the paper; a third, when a side that lay on the
# border line while its opposite side did not (`detect.out_to_paper_edge` moves sides one by
# one) was first moved only as far as that side.


def fit_outline(gray: Image, quad: Quad, paper: float) -> Quad:
    """`quad` (4 x 2, clockwise in image axes) with each side moved onto the paper's edge.

    `paper` is the frame's grey threshold between felt and paper (`detect.card_threshold`). A
    side where fewer than `_MIN_POINTS` profiles cross from paper to felt on one line (it is
    covered by another card, or lies inside one) moves out as far as the opposite side did and
    turns parallel to it, or stays when that one did not fit either. The fit is repeated (up
    to `_PASSES` times, until no corner moves half a pixel): an outline snapped to a border
    line is skewed, or lies further in on one side than on the other, and its sides' profiles
    reach the paper's edge along only part of a side until a first fit has moved them.
    Returns a new quad.
    """
    q = np.asarray(quad, np.float64).reshape(4, 2)
    for _ in range(_PASSES):
        moved = _fit(gray, q, paper)
        settled = float(np.abs(moved - q).max()) < _STEP
        q = moved
        if settled:
            break
    return q


def _fit(gray: Image, quad: Quad, paper: float) -> Quad:
    """One pass of `fit_outline`."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    d = q[[1, 2, 3, 0]] - q
    lengths = np.linalg.norm(d, axis=1)
    if float(lengths.min()) <= 0:
        return q.copy()
    u = d / lengths[:, None]
    normal = np.stack([u[:, 1], -u[:, 0]], axis=1)
    # Outward is away from the quad's middle, whichever way round its corners go.
    middle = q.mean(axis=0)
    flip = ((q + d / 2 - middle) * normal).sum(axis=1) < 0
    normal[flip] *= -1
    reach = max(4.0, REACH * float(np.sort(lengths)[2:].mean()))
    offs = np.arange(-reach, reach + _STEP / 2, _STEP)
    # (side, sample, offset, xy)
    base = q[:, None, :] + _SAMPLES[None, :, None] * d[:, None, :]
    pts = base[:, :, None, :] + offs[None, None, :, None] * normal[:, None, None, :]
    flat = pts.reshape(-1, len(offs), 2).astype(np.float32)
    profiles = cv2.remap(
        gray, flat[..., 0], flat[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    ).astype(np.float64)
    where = _edge_offsets(profiles, offs, paper).reshape(4, len(_SAMPLES))
    found: list[tuple[npt.NDArray[Any], npt.NDArray[Any]] | None] = []
    for side in range(4):
        ok = np.isfinite(where[side])
        # Too few steps, or steps not on one line: the side is covered by another card, or
        # its steps are another card's or the print's. It is not fitted.
        on = base[side][ok] + where[side][ok, None] * normal[side]
        found.append(_line(on) if int(ok.sum()) >= _MIN_POINTS else None)
    lines: list[tuple[npt.NDArray[Any], npt.NDArray[Any]]] = []
    for side in range(4):
        line = found[side]
        if line is not None:
            lines.append(line)
            continue
        # The finder's outline lies about as far inside the paper on every side: a side not
        # fitted moves out as far as the side opposite it did, and turns parallel to it (a
        # card's opposite sides are nearly so), keeping the card's size.
        mid = q[side] + d[side] / 2
        other = found[(side + 2) % 4]
        if other is None:
            lines.append((mid, u[side]))
            continue
        point, along = other
        opposite = (side + 2) % 4
        at = q[opposite] + d[opposite] / 2
        # The opposite line's offset from that side's middle, measured square to the line.
        square = np.array([along[1], -along[0]])
        moved = float((point - at) @ square) * float(np.sign(square @ normal[opposite]) or 1.0)
        lines.append((mid + moved * normal[side], along))
    out = np.empty((4, 2))
    for k in range(4):
        # Corner k is where side k-1 meets side k.
        (a, da), (b, db) = lines[k - 1], lines[k]
        det = db[0] * da[1] - da[0] * db[1]
        if abs(det) < 1e-6:
            return q.copy()
        r = b - a
        out[k] = a + ((db[0] * r[1] - db[1] * r[0]) / det) * da
    # Lines meeting at a grazing angle (a side fitted to something else) put a corner far off.
    if float(np.linalg.norm(out - q, axis=1).max()) > 3 * reach:
        return q.copy()
    return out


def _line(points: npt.NDArray[Any]) -> tuple[npt.NDArray[Any], npt.NDArray[Any]] | None:
    """A straight line (point, unit direction) through `points`, or None if too few lie on one.

    A robust fit first (Huber), then a least-squares fit through the points within
    `_INLIER_PX` of it, when `_MIN_POINTS` of them are.
    """
    pts = points.astype(np.float32)
    vx, vy, x0, y0 = cv2.fitLine(pts, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    residual = np.abs((points[:, 0] - x0) * vy - (points[:, 1] - y0) * vx)
    near = residual <= _INLIER_PX
    if int(near.sum()) < _MIN_POINTS:
        return None
    vx, vy, x0, y0 = cv2.fitLine(pts[near], cv2.DIST_L2, 0, 0.01, 0.01).ravel()
    return np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)


def _edge_offsets(
    profiles: npt.NDArray[np.float64], offs: npt.NDArray[np.float64], paper: float
) -> npt.NDArray[np.float64]:
    """Per profile (inside to outside), the offset of its outermost paper-to-felt step, or NaN.

    The step is where the profile passes from above `paper` to below it for the last time; it
    is placed at the steepest descent within 2 px of that, to a fraction of a sample (a
    parabola through the slopes around it).
    """
    above = profiles > paper
    down = above[:, :-1] & ~above[:, 1:]
    n, k = down.shape
    has = down.any(axis=1)
    last = k - 1 - np.argmax(down[:, ::-1], axis=1)
    slope = np.diff(profiles, axis=1)
    span = round(2.0 / _STEP)
    idx = np.clip(last[:, None] + np.arange(-span, span + 1)[None, :], 0, k - 1)
    rows = np.arange(n)[:, None]
    best = idx[rows[:, 0], np.argmin(slope[rows, idx], axis=1)]
    lo, hi = np.clip(best - 1, 0, k - 1), np.clip(best + 1, 0, k - 1)
    s0, s1, s2 = slope[rows[:, 0], lo], slope[rows[:, 0], best], slope[rows[:, 0], hi]
    curve = s0 - 2 * s1 + s2
    shift = np.where(np.abs(curve) > 1e-9, 0.5 * (s0 - s2) / np.where(curve == 0, 1, curve), 0.0)
    shift = np.clip(shift, -0.5, 0.5)
    # Slope j lies between samples j and j + 1.
    at = offs[0] + (best + 0.5 + shift) * _STEP
    out: npt.NDArray[np.float64] = np.where(has, at, np.nan)
    return out
