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

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.corners import CARD_ASPECT
from drivers.camera.outline import CardOutline
from drivers.camera.tuning import PAPER_PAST_LINE, PRINTED_LINE

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
# border line while its opposite side did not (`paper_edge.out_to_paper_edges` moves sides one by
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
    out: Quad = fit_outlines(gray, np.asarray(quad, np.float64).reshape(1, 4, 2), paper)[0]
    return out


def fitted_for_reading(
    gray: Image, outlines: Sequence[CardOutline], paper: float, *, aspect: float = CARD_ASPECT
) -> list[CardOutline]:
    """`outlines` placed as the reader reads them: firm ones moved onto the paper's edge.

    A firm outline lies a few pixels inside the paper: it is fitted (`fit_outlines`, all at
    once; one at a time they cost 0.3-0.5 ms each) before its windows are cut. A strip's
    extended outline is not fitted whole (its grown side lies on the card over it, its sides
    inside the card on print): it is anchored on the paper's corner at its first index corner
    (0, else 2) where both sides meeting there find the paper's edge (`fit_corners`, which
    also measures its far sides where they lie on the paper's edge), and left as found where
    neither does. As found, its sides lay about 3% of the card's height inside the paper (on
    a border line, 4-5%), and both index windows with them: on a deck whose index is tight to
    the edge the window cut the index's top off (tuning designs: a row's 6 read nothing; 36 of
    the 48 firm readings whose read corner lay 2%+ inside the card were strips). Guessed
    outlines were moved onto edges already (`proposals.snap_outline`). The recognizer and the
    benches that explain its misses place candidates with this one rule. `aspect` is the deck's
    height over width (`corners.deck_aspect`), for the strips' size check.
    """
    out = list(outlines)
    firm = [n for n, o in enumerate(out) if not (o.speculative or o.partial)]
    if firm:
        fitted = fit_outlines(gray, np.array([out[n].corners for n in firm]), paper)
        for n, quad in zip(firm, fitted, strict=True):
            out[n] = replace(out[n], corners=quad.copy())
    strips = [n for n, o in enumerate(out) if o.partial and not o.speculative]
    if strips:
        # Both index corners of every strip anchored in one pass; `fit_corners` returns a quad
        # it could not anchor as it was.
        turned = np.array([np.roll(out[n].corners, -t, axis=0) for n in strips for t in (0, 2)])
        moved = fit_corners(gray, turned, paper, aspect=aspect)
        for j, n in enumerate(strips):
            for k, t in enumerate((0, 2)):
                if not np.array_equal(moved[2 * j + k], turned[2 * j + k]):
                    out[n] = replace(out[n], corners=np.roll(moved[2 * j + k], t, axis=0))
                    break
    return out


def fit_outlines(gray: Image, quads: Quad, paper: float) -> Quad:
    """`fit_outline` of each quad of `quads` (N x 4 x 2), all fitted together.

    Each quad comes out exactly as `fit_outline` alone would give it (its profiles are sampled
    on its own grid of offsets); a frame's firm outlines are sampled in one pass per round of
    fitting, where one at a time they cost 0.3-0.5 ms each. Returns new quads (N x 4 x 2).
    """
    q = np.array(quads, np.float64).reshape(-1, 4, 2)
    todo = np.arange(len(q))
    for _ in range(_PASSES):
        if not len(todo):
            break
        moved = _fit(gray, q[todo], paper)
        settled = np.abs(moved - q[todo]).max(axis=(1, 2)) < _STEP
        q[todo] = moved
        todo = todo[~settled]
    return q


def _fit(gray: Image, quads: Quad, paper: float) -> Quad:
    """One round of `fit_outlines` on every quad of `quads` (N x 4 x 2)."""
    d, u, normal = _outward(quads)
    lengths = np.linalg.norm(d, axis=2)
    out = quads.copy()
    fitted = np.flatnonzero(lengths.min(axis=1) > 0)
    if not len(fitted):
        return out
    reach = np.maximum(4.0, REACH * np.sort(lengths[fitted], axis=1)[:, 2:].mean(axis=1))
    lines = _side_lines(
        gray,
        paper,
        quads[fitted],
        normal[fitted],
        np.tile(_SAMPLES, (4, 1)),
        reach,
        own_grid=True,
        lines_inside=True,
    )
    for m, found, r in zip(fitted.tolist(), lines, reach.tolist(), strict=True):
        moved = _corners(quads[m], d[m], u[m], normal[m], found, r)
        if moved is not None:
            out[m] = moved
    return out


def _corners(
    q: Quad, d: Quad, u: Quad, normal: Quad, found: list[Line | None], reach: float
) -> Quad | None:
    """Where quad `q`'s fitted side lines `found` meet, or None when they do not make it."""
    lines: list[Line] = []
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
            return None
        r = b - a
        out[k] = a + ((db[0] * r[1] - db[1] * r[0]) / det) * da
    # Lines meeting at a grazing angle (a side fitted to something else) put a corner far off.
    if float(np.linalg.norm(out - q, axis=1).max()) > 3 * reach:
        return None
    return out


def _outward(q: Quad) -> tuple[Quad, Quad, Quad]:
    """Per side of each quad of `q` (4 x 2, or N x 4 x 2): vector, direction, outward normal.

    Each is the same shape as `q`; the direction and normal are unit vectors.
    """
    d = q[..., [1, 2, 3, 0], :] - q
    u = d / np.maximum(np.linalg.norm(d, axis=-1), 1e-9)[..., None]
    normal = np.stack([u[..., 1], -u[..., 0]], axis=-1)
    # Outward is away from the quad's middle, whichever way round its corners go.
    flip = ((q + d / 2 - q.mean(axis=-2, keepdims=True)) * normal).sum(axis=-1) < 0
    normal[flip] *= -1
    return d, u, normal


Line = tuple[npt.NDArray[Any], npt.NDArray[Any]]


def _side_lines(
    gray: Image,
    paper: float,
    q: Quad,
    normal: Quad,
    samples: npt.NDArray[Any],
    reach: float | npt.NDArray[Any],
    *,
    own_grid: bool = False,
    together: bool = False,
    lines_inside: bool = False,
) -> list[list[Line | None]]:
    """Per quad of `q` (N x 4 x 2) and side, the line fitted on the paper's edge, or None.

    `samples` (4 x n) holds where along each side (a share of it from its first corner) its
    profiles are taken; a row of NaN leaves that side out. Profiles reach `reach` pixels (per
    quad, or per quad and side: N x 4) either way along the side's outward `normal`. All the
    quads' profiles are sampled, and their lines fitted, at once: a frame's tens of guesses
    cost about one. The offsets run every `_STEP` from minus the greatest reach; with
    `own_grid`, from minus each quad's own greatest, so that each quad's lines are exactly
    those it gets alone. With `together`, a quad whose sampled sides do not all find a line
    gets none: its lines are no use to a caller that needs them all (`fit_corners`' two near
    sides), and the robust fits (`_line`) that would find the others are skipped. With
    `lines_inside` (a firm outline, whose profiles reach `REACH` of its long side), a step
    followed by a printed line's width of dark and then paper to the profile's end is not
    taken (`tuning.PRINTED_LINE`): it is a border line on a card lying on a neighbour.
    """
    n_quads = len(q)
    d = q[:, [1, 2, 3, 0]] - q
    reaches = np.broadcast_to(
        np.asarray(reach, np.float64).reshape(n_quads, -1), (n_quads, 4)
    ).astype(np.float64)
    sides = [k for k in range(4) if np.isfinite(samples[k]).all()]
    found: list[list[Line | None]] = [[None] * 4 for _ in range(n_quads)]
    if not sides or not n_quads:
        return found
    tops = reaches[:, sides].max(axis=1) if own_grid else np.full(n_quads, reaches[:, sides].max())
    # Each quad's offsets are `np.arange(-top, top + _STEP / 2, _STEP)`: numpy makes
    # ceil((stop - start) / step) of them, -top + j * _STEP; the same numbers here, padded to
    # the longest.
    counts = np.ceil(((tops + _STEP / 2) - (-tops)) / _STEP).astype(np.int64)
    grid = -tops[:, None] + np.arange(int(counts.max()))[None, :] * _STEP
    t = samples[sides]
    per_quad = len(sides) * t.shape[1]
    # (quad, side, sample, xy)
    base = q[:, sides, None, :] + t[None, :, :, None] * d[:, sides, None, :]
    real = np.arange(grid.shape[1])[None, None, :] < counts[:, None, None]
    own = reaches[:, sides, None]
    # `np.searchsorted` on each quad's own offsets, for all quads at once.
    first = ((grid[:, None, :] < -own - 1e-9) & real).sum(axis=2)
    last = ((grid[:, None, :] <= own + 1e-9) & real).sum(axis=2) - 1
    # Beyond its own reach (or its quad's offsets) a profile holds its last value there: no
    # step is found beyond. Each side's offsets are clipped to its own before sampling, which
    # samples there exactly what its last offset samples; the offsets times the side's normal
    # are made once per side, not per profile (cutting the profiles after sampling, and the
    # products per profile, cost a frame's anchoring ~2 ms).
    rows = np.arange(n_quads)[:, None]
    offsets = np.clip(grid[:, None, :], grid[rows, first][..., None], grid[rows, last][..., None])
    along = normal[:, sides][:, :, None, None, :]
    out_x = offsets[:, :, None, :] * along[..., 0]
    out_y = offsets[:, :, None, :] * along[..., 1]
    # One profile per row, the x and y maps apart: interleaved, they cost a copy each.
    xs = _map(base[..., :1], out_x).reshape(n_quads * per_quad, -1)
    ys = _map(base[..., 1:], out_y).reshape(n_quads * per_quad, -1)
    profiles = cv2.remap(gray, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    # A printed line's widest dark run and the paper past it, in samples, per profile (its
    # quad's long side is its reach over `REACH`).
    line = (
        (
            np.repeat(np.maximum(3.0, PRINTED_LINE * tops / REACH) / _STEP, per_quad),
            np.repeat(PAPER_PAST_LINE * tops / REACH / _STEP, per_quad),
        )
        if lines_inside
        else None
    )
    where = _edge_offsets(
        profiles,
        np.repeat(grid[:, 0], per_quad),
        np.repeat(counts - 1, per_quad),
        paper,
        line,
    ).reshape(n_quads, len(sides), t.shape[1])
    ok = np.isfinite(where)
    # Too few steps, or steps not on one line: the side is covered by another card, or its
    # steps are another card's or the print's. It is not fitted.
    enough = ok.sum(axis=2) >= _MIN_POINTS
    if together:
        # A quad with a side too short of steps gets no line on any side: none is fitted.
        enough &= enough.all(axis=1, keepdims=True)
    mm, nn = np.nonzero(enough)
    if not len(mm):
        return found
    on = (base + np.where(ok, where, 0.0)[..., None] * normal[:, sides, None, :])[mm, nn]
    held = ok[mm, nn]
    lines = _lines(on, held)
    failed: set[int] = set()
    for j, (m, n) in enumerate(zip(mm.tolist(), nn.tolist(), strict=True)):
        if m in failed:
            continue
        line = lines[j]
        if line is None:
            line = _line(on[j][held[j]])
            if line is None and together:
                # Its other sides' robust fits are skipped, and their lines taken back.
                failed.add(m)
                found[m] = [None] * 4
                continue
        found[m][sides[n]] = line
    return found


def _map(start: npt.NDArray[Any], out: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
    """`start + out` (broadcast), in single precision as `cv2.remap` takes it.

    Each sum is taken in double precision and rounded to single as it is written: the values
    of adding, then `astype`, without the double-precision array between (a frame's anchoring
    ~1 ms less).
    """
    shape = np.broadcast_shapes(start.shape, out.shape)
    into: npt.NDArray[np.float32] = np.empty(shape, np.float32)
    np.add(start, out, out=into, casting="unsafe")
    return into


def _lines(points: npt.NDArray[Any], held: npt.NDArray[np.bool_]) -> list[Line | None]:
    """Per row of `points` (M x n x 2, only where `held`), its least-squares line, or None.

    The line is `cv2.fitLine`'s (DIST_L2: the points' mean and principal direction, from sums
    of the single-precision points and their single-precision products), computed for all
    rows at once; it is kept when every point lies within `_INLIER_PX` of it (`_line`'s first
    test). None where some point does not: `_line` fits that row robustly. Called one row at a
    time, `cv2.fitLine` and the test cost a frame's fits 3 ms.
    """
    p = points.astype(np.float32)
    x, y = p[..., 0], p[..., 1]
    count = held.sum(axis=1).astype(np.float64)

    def mean(v: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
        out: npt.NDArray[np.float64] = np.where(held, v.astype(np.float64), 0.0).sum(axis=1)
        out /= count
        return out

    mx, my = mean(x), mean(y)
    dx2 = mean(x * x) - mx * mx
    dy2 = mean(y * y) - my * my
    dxy = mean(x * y) - mx * my
    turn = (np.arctan2(2 * dxy, dx2 - dy2).astype(np.float32) / np.float32(2)).astype(np.float64)
    vx, vy = np.cos(turn).astype(np.float32), np.sin(turn).astype(np.float32)
    x0, y0 = mx.astype(np.float32), my.astype(np.float32)
    residual = np.abs(
        (points[..., 0] - x0[:, None]) * vy[:, None] - (points[..., 1] - y0[:, None]) * vx[:, None]
    )
    near: npt.NDArray[np.bool_] = np.all((residual <= _INLIER_PX) | ~held, axis=1)
    return [
        (np.array([x0[j], y0[j]], np.float64), np.array([vx[j], vy[j]], np.float64))
        if near[j]
        else None
        for j in range(len(points))
    ]


CORNER_SAMPLES = np.linspace(0.1, 0.4, 15)
"""Where a guessed outline's corner is fitted: the stretch of each side beside the index (as
`edges.corner_supports` reads it), past the corner's rounding."""


def fit_corner(gray: Image, quad: Quad, paper: float) -> Quad:
    """`quad` (4 x 2) anchored on the paper's corner at its first corner (`fit_corners`)."""
    out: Quad = fit_corners(gray, np.asarray(quad, np.float64).reshape(1, 4, 2), paper)[0]
    return out


def fit_corners(gray: Image, quads: Quad, paper: float, *, aspect: float = CARD_ASPECT) -> Quad:
    """Each quad of `quads` (N x 4 x 2) anchored on the paper's corner at its first corner.

    The two sides meeting at a quad's first corner are fitted onto the paper's edge along the
    stretch beside the index (`CORNER_SAMPLES`): the corner is where the fitted lines meet and
    the sides run along them. The width and height are the quad's (a guessed outline's size
    is the frame's), each measured again where its far side lies on the paper's edge
    (`SIZE_RANGE`, and `ASPECT_RANGE` round the deck's `aspect`). When either near side finds
    no paper edge on one line, or the corner would move further than twice the profiles'
    reach, that quad is returned as it was. Returns new quads (N x 4 x 2).
    """
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    out = q.copy()
    if not len(q):
        return out
    d, u, normal = _outward(q)
    lengths = np.linalg.norm(d, axis=2)
    reach = np.maximum(4.0, REACH * np.sort(lengths, axis=1)[:, 2:].mean(axis=1))
    samples = np.full((4, len(CORNER_SAMPLES)), np.nan)
    samples[0] = CORNER_SAMPLES
    # Side 3 runs from corner 3 to corner 0: its stretch beside corner 0 is its end.
    samples[3] = 1.0 - CORNER_SAMPLES
    ok = lengths.min(axis=1) > 0
    found = _side_lines(gray, paper, q, normal, samples, reach, together=True)
    anchors: list[tuple[int, npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]] = []
    for m in range(len(q)):
        top, left = found[m][0], found[m][3]
        if not ok[m] or top is None or left is None:
            continue
        corner = _meet(left, top)
        if corner is None or float(np.linalg.norm(corner - q[m, 0])) > 2 * reach[m]:
            continue
        across = top[1] if float(top[1] @ u[m, 0]) > 0 else -top[1]
        down = left[1] if float(left[1] @ u[m, 3]) < 0 else -left[1]
        anchors.append((m, corner, across, down))
    if not anchors:
        return out
    rows = [m for m, _, _, _ in anchors]
    sizes = _far_sides(gray, paper, anchors, lengths[rows][:, [0, 3]], aspect)
    for (m, corner, across, down), (width, height) in zip(anchors, sizes, strict=True):
        out[m, 0] = corner
        out[m, 1] = corner + width * across
        out[m, 3] = corner + height * down
        out[m, 2] = out[m, 1] + out[m, 3] - corner
    return out


def _meet(a: Line, b: Line) -> npt.NDArray[Any] | None:
    """Where lines `a` and `b` (point, direction) meet, or None when they are parallel."""
    (p, dp), (r, dr) = a, b
    det = dr[0] * dp[1] - dp[0] * dr[1]
    if abs(det) < 1e-6:
        return None
    w = r - p
    out: npt.NDArray[Any] = p + ((dr[0] * w[1] - dr[1] * w[0]) / det) * dp
    return out


SIZE_RANGE = (0.75, 1.33)
"""A guessed outline's far side fitted this far from where its size put it (a share of that
size) is taken; further, it is another card's edge or print. The size of a guess is the frame's
card size, and the harsh camera's perspective makes cards differ by up to a quarter."""
ASPECT_RANGE = (0.85, 1.18)
"""A guessed outline's width over height, once its far sides are measured, stays within this share
of the deck's card's (1 / its aspect, `corners.deck_aspect`; the harsh camera's perspective
changes it by up to about a seventh, where it changes the size by a quarter). Else its far
sides were another card's: a row's card whose far long side lies under its neighbour measures
the neighbour's, a quarter of a width or more too wide, and a proposal turned a quarter measures
the card's width as its height (a 10H read as 5H at 0.996 on its index seen sideways, tuning
designs). It keeps the guessed size."""


def _far_sides(
    gray: Image,
    paper: float,
    anchors: list[tuple[int, npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]],
    sizes: npt.NDArray[Any],
    card_aspect: float,
) -> list[tuple[float, float]]:
    """The width and height of each anchored outline (its index, corner, across, down).

    `sizes` (N x 2) holds each guess's width and height. Each is measured to its far side
    where that lies on the paper's edge within `SIZE_RANGE` of the given one; where only one
    is, the other is scaled with it. A size whose aspect falls outside `ASPECT_RANGE` of the
    deck's card's (`card_aspect`, its height over width) is not taken: the given one is.
    """
    corner = np.array([a[1] for a in anchors])
    across = np.array([a[2] for a in anchors])
    down = np.array([a[3] for a in anchors])
    width, height = sizes[:, :1], sizes[:, 1:]
    q = np.stack(
        [corner, corner + width * across, corner + width * across + height * down,
         corner + height * down], axis=1,
    )  # fmt: skip
    _, _, normal = _outward(q)
    samples = np.full((4, len(_SAMPLES)), np.nan)
    samples[1] = _SAMPLES
    samples[2] = _SAMPLES
    margin = SIZE_RANGE[1] - 1
    reach = np.zeros((len(q), 4))
    reach[:, 1] = margin * sizes[:, 0]
    reach[:, 2] = margin * sizes[:, 1]
    found = _side_lines(gray, paper, q, normal, samples, reach)
    out: list[tuple[float, float]] = []
    for m in range(len(q)):
        given = [float(sizes[m, 0]), float(sizes[m, 1])]
        scale: list[float | None] = [None, None]
        for n, (side, ray) in enumerate(((1, across[m]), (2, down[m]))):
            line = found[m][side]
            at = None if line is None else _meet((corner[m], ray), line)
            if at is None:
                continue
            size = float((at - corner[m]) @ ray) / given[n]
            if SIZE_RANGE[0] <= size <= SIZE_RANGE[1]:
                scale[n] = size
        # One far side measured scales the other with it: perspective changes a card's size
        # across the frame far more than its aspect.
        sw, sh = scale
        sw = sh if sw is None else sw
        sh = sw if sh is None else sh
        got = [given[0] * (sw or 1.0), given[1] * (sh or 1.0)]
        aspect = got[0] / got[1] * card_aspect
        out.append(
            (got[0], got[1])
            if ASPECT_RANGE[0] <= aspect <= ASPECT_RANGE[1]
            else (float(sizes[m, 0]), float(sizes[m, 1]))
        )
    return out


def _line(points: npt.NDArray[Any]) -> tuple[npt.NDArray[Any], npt.NDArray[Any]] | None:
    """A straight line (point, unit direction) through `points`, or None if too few lie on one.

    A robust fit first (Huber), then a least-squares fit through the points within
    `_INLIER_PX` of it, when `_MIN_POINTS` of them are. Points that all lie that near a
    least-squares line through them all are that line already: the robust fit, which costs
    a hundred times more (0.02-0.15 ms), is only run when some do not.
    """
    pts = points.astype(np.float32)
    vx, vy, x0, y0 = cv2.fitLine(pts, cv2.DIST_L2, 0, 0.01, 0.01).ravel()
    residual = np.abs((points[:, 0] - x0) * vy - (points[:, 1] - y0) * vx)
    if len(points) >= _MIN_POINTS and bool((residual <= _INLIER_PX).all()):
        return np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)
    vx, vy, x0, y0 = cv2.fitLine(pts, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    residual = np.abs((points[:, 0] - x0) * vy - (points[:, 1] - y0) * vx)
    near = residual <= _INLIER_PX
    if int(near.sum()) < _MIN_POINTS:
        return None
    vx, vy, x0, y0 = cv2.fitLine(pts[near], cv2.DIST_L2, 0, 0.01, 0.01).ravel()
    return np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)


def _edge_offsets(
    profiles: npt.NDArray[Any],
    first: npt.NDArray[np.float64],
    slopes: npt.NDArray[np.int64],
    paper: float,
    line: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] | None = None,
) -> npt.NDArray[np.float64]:
    """Per profile (inside to outside), the offset of its outermost paper-to-felt step, or NaN.

    `first` holds each profile's first offset; its samples lie `_STEP` apart, and only its
    first `slopes` + 1 samples are its own (the rest repeat the last: a shorter profile padded
    to its batch's length). Slopes are looked at within the profile's own length, as alone.

    The step is where the profile passes from above `paper` to below it for the last time; it
    is placed at the steepest descent within 2 px of that, to a fraction of a sample (a
    parabola through the slopes around it). With `line` (two lengths in samples, per
    profile), a step after which the profile is below `paper` for at most the first and then
    above it to its end for at least the second is none (NaN): a printed line with more paper
    beyond it than the card's own margin, not the paper's edge. The profiles
    are whole grey levels (`cv2.remap` of a grey frame): their slopes are taken in small
    integers.
    """
    # A whole grey level is above `paper` when it is above its floor.
    above = profiles > int(np.floor(paper))
    down = above[:, :-1] & ~above[:, 1:]
    n, k = down.shape
    has = down.any(axis=1)
    last = k - 1 - np.argmax(down[:, ::-1], axis=1)
    if line is not None:
        # After the last step down the profile is dark, then (when it ends on paper) paper to
        # its end: the dark run is the samples below `paper` after the step.
        widest, past = line
        ends = np.minimum(slopes, k)
        dark = (~above & (np.arange(k + 1)[None, :] > last[:, None])).sum(axis=1)
        on_paper = above[np.arange(n), ends]
        paper_past = ends - (last + dark)
        has &= ~(on_paper & (dark <= widest) & (paper_past >= past))
    span = round(2.0 / _STEP)
    end = np.minimum(slopes, k) - 1
    idx = np.clip(last[:, None] + np.arange(-span, span + 1)[None, :], 0, end[:, None])
    rows = np.arange(n)

    def slope(j: npt.NDArray[np.int64]) -> npt.NDArray[np.int16]:
        # Slope j (between samples j and j + 1) of each profile, at the few places looked at
        # only: the whole profiles' differences cost a frame's anchoring ~1 ms.
        r = rows.reshape((-1,) + (1,) * (j.ndim - 1))
        out: npt.NDArray[np.int16] = profiles[r, j + 1].astype(np.int16) - profiles[r, j]
        return out

    best = idx[rows, np.argmin(slope(idx), axis=1)]
    lo, hi = np.clip(best - 1, 0, end), np.clip(best + 1, 0, end)
    s0, s1, s2 = (slope(j).astype(np.float64) for j in (lo, best, hi))
    curve = s0 - 2 * s1 + s2
    shift = np.where(np.abs(curve) > 1e-9, 0.5 * (s0 - s2) / np.where(curve == 0, 1, curve), 0.0)
    shift = np.clip(shift, -0.5, 0.5)
    # Slope j lies between samples j and j + 1.
    at = first + (best + 0.5 + shift) * _STEP
    out: npt.NDArray[np.float64] = np.where(has, at, np.nan)
    return out
