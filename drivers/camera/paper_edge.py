"""A firm outline's sides moved out to the paper's edge past a printed border line.

A deck printed with a border line near the edge gives the edge cut a strong edge inside the
card, so the bright region cut there is a card a few percent too small; beyond such a side the
thresholded mask shows the line's thin dark runs, more paper, then felt (`out_to_paper_edges`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from drivers.camera.outline import long_side
from drivers.camera.tuning import PRINTED_LINE

Image = npt.NDArray[Any]
Quad = npt.NDArray[Any]

BORDER_REACH = 0.1
"""How far beyond a firm outline's side (a share of the card's long side) paper is looked for."""
BORDER_SHORT = 0.03
"""A firm outline's side falls this share of the card's long side short of the paper's edge on
a card with no printed line (`finder.OUTLINE_SCALE`, 1.06 over both ends): a side moved past a
printed line stops there too. Moved to the paper's very edge, a double-border tuning design
read 1.8 points fewer cards."""
BORDER_SIDE = 0.6
"""The share of a side's samples that must cross a printed line onto more paper to move it."""


def out_to_paper_edges(quads: Quad, raw: Image) -> Quad:
    """`quads` (N x 4 x 2), each side lying on a printed line inside its card moved out to paper.

    A deck printed with a border line near the edge (a double line especially) gives the edge
    cut a strong edge inside the card: the bright region cut there is card-shaped, and its
    outline is a card a few percent too small, whose index window sits off the index (a 7H
    read as 4H at 0.9468 on the tuning designs; on every double-border tuning design a lone
    card's firm outline covered 70-91% of the card). Beyond such a side, along its normal,
    the thresholded mask `raw` shows thin dark runs (the line, `PRINTED_LINE`) and paper, then
    felt to the end of the reach (`BORDER_REACH`). A side is moved out to the paper's last
    pixel when `BORDER_SIDE` of its samples (seven, on its middle 60%) show that; beyond a
    side on the card's own edge the felt starts at once, and beyond a neighbour's edge the
    paper goes on.

    All sides of all quads are sampled at once: one side at a time, the sampling cost a frame's
    firm outlines about 2 ms. Returns new quads.
    """
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    out = q.copy()
    if not len(q):
        return out
    heights = [long_side(x) for x in q]
    reaches = np.array([max(6, int(np.ceil(BORDER_REACH * height))) for height in heights])
    widest = [max(3, round(PRINTED_LINE * height)) for height in heights]
    centre = q.mean(axis=1)
    h, w = raw.shape[:2]
    steps = np.arange(1, int(reaches.max()) + 1, dtype=np.float64)
    along = q[:, [1, 2, 3, 0]] - q
    normal = np.stack([along[..., 1], -along[..., 0]], axis=2)
    for m in range(len(q)):
        for k in range(4):
            normal[m, k] /= max(1e-9, float(np.linalg.norm(along[m, k])))
            if float(np.dot((q[m, k] + q[m, (k + 1) % 4]) / 2 - centre[m], normal[m, k])) < 0:
                normal[m, k] = -normal[m, k]
    # (quad, side, sample row, step, xy)
    rows = np.linspace(0.2, 0.8, 7)
    starts = q[:, :, None, :] + rows[None, None, :, None] * along[:, :, None, :]
    pts = starts[..., None, :] + steps[None, None, None, :, None] * normal[:, :, None, None, :]
    xs = np.clip(np.round(pts[..., 0]).astype(int), 0, w - 1)
    ys = np.clip(np.round(pts[..., 1]).astype(int), 0, h - 1)
    # A quad's rows stop at its own reach: nothing beyond counts as paper.
    bright = (raw[ys, xs] > 0) & (steps[None, None, None, :] <= reaches[:, None, None, None])
    for m in range(len(q)):
        for k in range(4):
            moved = _paper_beyond(bright[m, k], widest[m], int(reaches[m]))
            if len(moved) >= BORDER_SIDE * len(rows):
                # To where the finder puts a side on a card with no printed line, a little
                # short of the paper's edge (`BORDER_SHORT`): the reader reads best through
                # such outlines.
                shift = max(0.0, float(np.median(moved)) - BORDER_SHORT * heights[m])
                out[m, k] += shift * normal[m, k]
                out[m, (k + 1) % 4] += shift * normal[m, k]
    return out


def _paper_beyond(
    bright: npt.NDArray[np.bool_], widest: int, reach: int | None = None
) -> list[float]:
    """Per sample row of `bright` (paper along a side's normal, outward), where the paper ends.

    A row counts when its last paper pixel lies short of the reach's last three (felt follows:
    not paper to the end), some dark lies before it, and every dark run before it is at most
    `widest` long (a printed line, not felt between two bright things); it gives that last
    pixel's distance. `reach` is the rows' length (`bright`'s width by default; the rows may
    be padded with dark beyond it). All rows are measured at once: one at a time, they cost a
    firm outline a millisecond.
    """
    width = bright.shape[1]
    reach = width if reach is None else reach
    at = np.arange(width)
    any_on = bright.any(axis=1)
    last = width - 1 - np.argmax(bright[:, ::-1], axis=1)
    dark = ~bright & (at[None, :] < last[:, None])
    # The length of the dark run ending at each pixel: its distance from the last paper before.
    since = np.maximum.accumulate(np.where(dark, -1, at[None, :]), axis=1)
    runs = np.where(dark, at[None, :] - since, 0).max(axis=1, initial=0)
    ok = any_on & (last < reach - 3) & dark.any(axis=1) & (runs <= widest)
    return [float(v + 1) for v in last[ok]]
