"""Card outlines in a frame: bright, card-shaped regions, including cards partly under others.

A card is a bright, low-ink rectangle with the poker aspect (88/63). A region that is a clean
strip of a card (its neighbour lies on the rest) is extended to the full card toward the side
where the occluding card is; anything else (chips, printed boxes, text, glare) is dropped here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.bright_parts import bright_parts
from drivers.camera.corners import CARD_ASPECT
from drivers.camera.edges import corner_supports_all, local_edges, refine_all
from drivers.camera.merged import row_proposals
from drivers.camera.tuning import PAPER_SHARE_FACE_UP

Image = npt.NDArray[Any]
Quad = npt.NDArray[Any]

_ASPECT_RANGE = (1.2, 1.65)
# Moderate perspective changes the outline's aspect by up to ~15% either way.
_MIN_FILL = 0.84
_MIN_AREA_FILL = 0.5
# A card's convex hull (even with a corner bitten off by a neighbour) fills >84% of its bounding
# rectangle while a chip's fills pi/4 = 78.5%; the region itself may lose ink and pips cut out by
# the edge cut, but a printed box outline keeps only a few percent and falls below one half.
_RING_IN = cv2.getStructuringElement(cv2.MORPH_RECT, (13, 13))
_RING_OUT = cv2.getStructuringElement(cv2.MORPH_RECT, (25, 25))
# Printed boxes that survive the opening (`bright_parts`) are hollow with felt inside, and are
# dropped by `_felt_inside`.
_HOLLOW = 0.55
_FELT_MATCH = 30.0
# A face-up card's region is mostly bright even after its ink is cut out; a back or a printed
# box outline is a bright ring around a dark inside.
_HOLLOW_REGION = 0.4
# A region of several cards is looked into for more cards unless it is mostly dark inside (a
# printed box, a row of backs): face-up cards are mostly paper even where a back lies among them.


def _felt_inside(frame: Image, contour: npt.NDArray[Any]) -> bool:
    """True when the middle of a hollow outline has the colour of the felt just outside it."""
    x, y, w, h = cv2.boundingRect(contour)
    pad = max(4, min(w, h) // 8)
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(frame.shape[1], x + w + pad), min(frame.shape[0], y + h + pad)
    solid = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(solid, [contour - np.array([x0, y0])], -1, 1, -1)
    k = max(3, (min(w, h) // 3) | 1)
    core = cv2.erode(solid, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    ring = 1 - cv2.dilate(solid, cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5)))
    if not cv2.countNonZero(core) or not cv2.countNonZero(ring):
        return True
    # Means over masks by OpenCV: indexing the crop by a boolean mask cost a large hollow
    # outline (a back) 5 ms.
    roi = frame[y0:y1, x0:x1]
    inner = np.array(cv2.mean(roi, mask=core)[:3])
    outer = np.array(cv2.mean(roi, mask=ring)[:3])
    # Felt seen through a printed box differs from the felt outside only by lighting (<~20
    # levels); a back's print is a different, saturated colour or pattern.
    return float(np.abs(inner - outer).max()) < _FELT_MATCH


def _felt_holes(
    frame: Image, region: npt.NDArray[Any], holes: list[npt.NDArray[Any]]
) -> tuple[npt.NDArray[Any], ...]:
    """The `holes` (inside `region`) that show the felt seen just outside the region.

    A printed box touching a card encloses felt; a card back's dark middle does not (its
    print differs from the felt in colour or pattern), and stays part of its row.
    """
    x, y, w, h = cv2.boundingRect(region)
    pad = 14
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(frame.shape[1], x + w + pad), min(frame.shape[0], y + h + pad)
    shape = (y1 - y0, x1 - x0)
    solid = np.zeros(shape, np.uint8)
    cv2.drawContours(solid, [region - np.array([x0, y0])], -1, 1, -1)
    # The felt 6-12 px out: a blurred card's halo lies nearer.
    ring = cv2.subtract(cv2.dilate(solid, _RING_OUT), cv2.dilate(solid, _RING_IN))
    if not cv2.countNonZero(ring):
        return ()
    roi = frame[y0:y1, x0:x1]
    # The felt's colour and noise are the region's whatever the hole: measured once (a region
    # of several cards has a hole between each two), by OpenCV over the mask (indexing the crop
    # by a boolean mask cost a region 4 ms).
    felt, spread = (v.ravel() for v in cv2.meanStdDev(roi, mask=ring))
    out = []
    reach = _RING_IN.shape[0] // 2 + 1
    for hole in holes:
        # The hole's own box, widened by the erosion's reach or to the region's crop: the same
        # core as eroding the whole crop, at the cost of the hole's size.
        hx, hy, hw, hh = cv2.boundingRect(hole)
        cx0, cy0 = max(0, hx - x0 - reach), max(0, hy - y0 - reach)
        cx1, cy1 = min(shape[1], hx - x0 + hw + reach), min(shape[0], hy - y0 + hh + reach)
        hole_mask = np.zeros((cy1 - cy0, cx1 - cx0), np.uint8)
        cv2.drawContours(hole_mask, [hole - np.array([x0 + cx0, y0 + cy0])], -1, 1, -1)
        core = cv2.erode(hole_mask, _RING_IN)
        if not cv2.countNonZero(core):
            continue
        inner, varies = (v.ravel() for v in cv2.meanStdDev(roi[cy0:cy1, cx0:cx1], mask=core))
        # A back's pattern varies inside; felt is flat (noise only) and of the felt's colour.
        same = float(np.abs(inner - felt).max()) < _FELT_MATCH
        if same and float(varies.max()) < 2 * float(spread.max()) + 4:
            out.append(hole)
    return tuple(out)


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


def card_threshold(gray: Image) -> float:
    """The grey level between felt and card paper (Otsu on a subsample, clamped to 90..200)."""
    sample = np.ascontiguousarray(gray[::4, ::4])
    thr, _ = cv2.threshold(sample, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return float(min(200.0, max(90.0, thr)))


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


def _band_brightness(mask: Image, a: Quad, b: Quad, outward: Quad) -> float:
    """Share of bright pixels in a band 4..12 px outside the side a-b (middle 60% of it)."""
    h, w = mask.shape
    hits = total = 0
    for t in np.linspace(0.2, 0.8, 7):
        p = a + t * (b - a)
        for d in (4.0, 7.0, 10.0, 12.0):
            x, y = p + d * outward
            xi, yi = round(x), round(y)
            if 0 <= xi < w and 0 <= yi < h:
                total += 1
                hits += int(mask[yi, xi] > 0)
    return hits / total if total else 0.0


def _extend(
    rect_pts: Quad, mask: Image, short_to: float, along_long: bool = False, sized: bool = True
) -> Quad | None:
    """Grow a strip's short side (its long side with `along_long`) to `short_to` pixels.

    The strip grows toward the side where another card lies over its rest (paper beyond the
    side and over the rest's area); None if neither side shows that. Unless `sized` (the
    card's size known from the table or the frame's whole cards, and the strip's side checked
    against it), None too if the paper goes on beyond either end of the side the strip keeps
    (`_whole_side`): that side's length is then all that says how big the card is.
    """
    q = portrait(rect_pts)
    if along_long:
        q = np.roll(q, -1, axis=0)
    across = q[1] - q[0]
    length = float(np.linalg.norm(across))
    if length <= 0:
        return None
    unit = across / length
    if not sized and not _whole_side(mask, q):
        return None
    grow = (short_to - length) * unit
    # The card's rest lies under the card beside the strip: paper right beyond the side, and
    # paper over the whole area the rest takes (`PAPER_SHARE_FACE_UP`: a face, court cards
    # included, shows more). A 12 px band alone took a strip at a fan's edge, between the
    # next card's edge and its own border line, for a card lying beyond its own margin, and
    # grew it over the felt (two unknown cards where none lay on the studio tuning frames).
    right_rest = np.array([q[1], q[1] + grow, q[2] + grow, q[2]])
    left_rest = np.array([q[0] - grow, q[0], q[3], q[3] - grow])
    right = _band_brightness(mask, q[1], q[2], unit), _paper_share(mask, right_rest)
    left = _band_brightness(mask, q[0], q[3], -unit), _paper_share(mask, left_rest)
    sides = [
        (band, grown)
        for (band, rest), grown in (
            (right, np.array([q[0], q[1] + grow, q[2] + grow, q[3]])),
            (left, np.array([q[0] - grow, q[1], q[2], q[3] - grow])),
        )
        if band >= 0.5 and rest >= PAPER_SHARE_FACE_UP
    ]
    if not sides:
        return None
    # Both sides paper (a strip in the middle of a row): the brighter band, the right one on a
    # tie, as before; taking the side with more paper over the rest's area instead sent four
    # strips of the studio tuning frames the wrong way (five cards of gen-1000 unread).
    best: Quad = max(sides, key=lambda side: side[0])[1]
    return best


def _paper_share(mask: Image, quad: Quad) -> float:
    """Share of bright pixels of `mask` at a 9 x 9 grid over `quad`.

    Points outside the frame are not counted; 0.0 when none is inside.
    """
    t = np.linspace(0.05, 0.95, 9)
    u, v = np.meshgrid(t, t)
    top = quad[0][None, None] + u[..., None] * (quad[1] - quad[0])[None, None]
    bottom = quad[3][None, None] + u[..., None] * (quad[2] - quad[3])[None, None]
    pts = np.round(top + v[..., None] * (bottom - top)).astype(int).reshape(-1, 2)
    h, w = mask.shape
    held = (pts[:, 0] >= 0) & (pts[:, 0] < w) & (pts[:, 1] >= 0) & (pts[:, 1] < h)
    if not held.any():
        return 0.0
    return float((mask[pts[held, 1], pts[held, 0]] > 0).mean())


def _whole_side(mask: Image, q: Quad) -> bool:
    """Whether the strip `q`'s side q[1]-q[2] (and q[0]-q[3]) can be a whole side of its card.

    Extended, the strip keeps that side as its card's height (or width): the card's paper
    must stop at both its ends, as it stops beyond a card's corners. Where the paper goes on
    beyond an end (the same bar `_extend` sees another card with), the strip is a piece of a
    longer side, cut off by the edge cut: a blurred back's border cut where its pattern's
    rings touch it, extended to a card of the piece's length, was an unknown card where none
    lay (a harsh tuning frame, with no whole card to give the card's size).
    """
    along = q[3] - q[0]
    norm = float(np.linalg.norm(along))
    if norm <= 0:
        return False
    out = along / norm
    return (
        max(_band_brightness(mask, q[1], q[0], -out), _band_brightness(mask, q[3], q[2], out)) < 0.5
    )


@dataclass(frozen=True, slots=True)
class BrightRegion:
    """One connected bright region of the frame and the pieces the edge cut splits it into."""

    contour: npt.NDArray[Any]
    pieces: tuple[npt.NDArray[Any], ...]
    holes: tuple[npt.NDArray[Any], ...] = ()
    """Felt enclosed by the region (a printed box touching a card): not part of it."""


@dataclass(frozen=True, slots=True)
class Detection:
    """Firm card outlines, and the bright regions big enough to hold cards (for proposals)."""

    outlines: list[CardOutline]
    regions: list[BrightRegion]


def find_outlines(
    gray: Image,
    *,
    min_long_px: float = 60.0,
    expected: Callable[[float, float], float | None] | None = None,
    frame: Image | None = None,
) -> list[CardOutline]:
    """Find card outlines in a grey frame (the firm outlines of `detect_cards`)."""
    return detect_cards(gray, min_long_px=min_long_px, expected=expected, frame=frame).outlines


def detect_cards(
    gray: Image,
    *,
    min_long_px: float = 60.0,
    expected: Callable[[float, float], float | None] | None = None,
    frame: Image | None = None,
) -> Detection:
    """Find card outlines in a grey frame, and the bright regions that may hold more cards.

    `min_long_px` is the smallest card height accepted; `expected(x, y)` may give the card height
    in pixels at an image point (from the table calibration) to check sizes and complete strips.
    `frame` (the BGR frame) lets a hollow bright outline count as a card back when its inside
    differs from the felt around it; without it, hollow outlines are dropped.
    """
    thr = card_threshold(gray)
    min_area = 0.12 * min_long_px * min_long_px / CARD_ASPECT
    parts = bright_parts(gray, thr, min_area)
    raw = parts.raw
    found: list[tuple[Quad, npt.NDArray[Any], float, float]] = []
    for piece in parts.pieces:
        contour = piece.contour
        area = float(cv2.contourArea(contour))
        (cx, cy), (rw, rh), _ = cv2.minAreaRect(contour)
        long_side, short_side = max(rw, rh), min(rw, rh)
        if short_side < 4 or area / (rw * rh) < _MIN_AREA_FILL:
            continue
        if cv2.contourArea(cv2.convexHull(contour)) / (rw * rh) < _MIN_FILL:
            continue
        if piece.bright_share() < _HOLLOW and (frame is None or _felt_inside(frame, contour)):
            continue
        found.append(
            (
                cv2.boxPoints(cv2.minAreaRect(contour)).astype(np.float64),
                contour,
                long_side,
                short_side,
            )
        )
    full_longs = [
        f[2]
        for f in found
        if _ASPECT_RANGE[0] <= f[2] / f[3] <= _ASPECT_RANGE[1] and f[2] >= min_long_px
    ]
    frame_long = float(np.median(full_longs)) if full_longs else None
    out: list[CardOutline] = []
    whole: list[int] = []
    for box, contour, long_side, short_side in found:
        ratio = long_side / short_side
        cx, cy = box.mean(axis=0)
        want = expected(float(cx), float(cy)) if expected is not None else None
        want = want or frame_long
        if _ASPECT_RANGE[0] <= ratio <= _ASPECT_RANGE[1]:
            if long_side < min_long_px or (
                want is not None and not 0.8 <= long_side / want <= 1.25
            ):
                continue
            hull = cv2.convexHull(contour)
            approx = cv2.approxPolyDP(hull, 0.03 * cv2.arcLength(hull, True), True)
            quad = approx.reshape(-1, 2).astype(np.float64) if len(approx) == 4 else box
            # Moved onto the paper below, all of them at once.
            whole.append(len(out))
            out.append(CardOutline(quad, contour, False))
            continue
        height = want if want is not None else long_side
        if ratio > _ASPECT_RANGE[1] and 0.85 <= long_side / height <= 1.18:
            grown = _extend(box, raw, long_side / CARD_ASPECT, sized=want is not None)
        elif (
            want is not None
            and 0.85 <= short_side * CARD_ASPECT / want <= 1.18
            and long_side < 0.9 * want
        ):
            grown = _extend(box, raw, want, along_long=True)
        elif want is not None and 0.85 <= long_side * CARD_ASPECT / want <= 1.18:
            grown = _extend(box, raw, want)
        else:
            grown = None
        if grown is not None:
            out.append(CardOutline(portrait(grown), contour, True))
    if whole:
        moved = out_to_paper_edges(np.array([out[n].corners for n in whole]), raw)
        for n, quad in zip(whole, moved, strict=True):
            out[n] = CardOutline(portrait(quad), out[n].contour, False)
    pieces = [p.contour for p in parts.pieces]
    means = [_mean_point(p) for p in pieces]
    regions: list[BrightRegion] = []
    for bright in parts.regions:
        region = bright.part.contour
        # A region of several cards is looked into for more cards unless it is mostly dark
        # inside (a printed box, a row of backs): face-up cards are mostly paper even where a
        # back lies among them. Only a hole the size of a card's middle can be a box's felt.
        if bright.part.bright_share() < _HOLLOW_REGION:
            continue
        holes = list(bright.holes)
        felt = _felt_holes(frame, region, holes) if holes and frame is not None else ()
        in_region = tuple(p for p, m in zip(pieces, means, strict=True) if _holds(region, m))
        regions.append(BrightRegion(region, in_region, felt))
    return Detection(out, regions)


BORDER_REACH = 0.1
"""How far beyond a firm outline's side (a share of the card's long side) paper is looked for."""
BORDER_LINE = 0.025
"""The widest dark run (a share of the card's long side, at least 3 px) a printed border line
with its gaps makes; a wider one is felt between two bright things."""
BORDER_SHORT = 0.03
"""A firm outline's side falls this share of the card's long side short of the paper's edge on
a card with no printed line (`finder.OUTLINE_SCALE`, 1.06 over both ends): a side moved past a
printed line stops there too. Moved to the paper's very edge, a double-border tuning design
read 1.8 points fewer cards."""
BORDER_SIDE = 0.6
"""The share of a side's samples that must cross a printed line onto more paper to move it."""


def out_to_paper_edge(quad: Quad, raw: Image) -> Quad:
    """`quad` with each side lying on a printed line inside the card moved out to the paper.

    A deck printed with a border line near the edge (a double line especially) gives the edge
    cut a strong edge inside the card: the bright region cut there is card-shaped, and its
    outline is a card a few percent too small, whose index window sits off the index (a 7H
    read as 4H at 0.9468 on the tuning designs; on every double-border tuning design a lone
    card's firm outline covered 70-91% of the card). Beyond such a side, along its normal,
    the thresholded mask `raw` shows thin dark runs (the line, `BORDER_LINE`) and paper, then
    felt to the end of the reach (`BORDER_REACH`). A side is moved out to the paper's last
    pixel when `BORDER_SIDE` of its samples (seven, on its middle 60%) show that; beyond a
    side on the card's own edge the felt starts at once, and beyond a neighbour's edge the
    paper goes on.
    """
    out: Quad = out_to_paper_edges(np.asarray(quad, np.float64).reshape(1, 4, 2), raw)[0]
    return out


def out_to_paper_edges(quads: Quad, raw: Image) -> Quad:
    """`out_to_paper_edge` of each quad of `quads` (N x 4 x 2), all sides sampled at once.

    One side at a time, the sampling cost a frame's firm outlines about 2 ms. Returns new quads.
    """
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    out = q.copy()
    if not len(q):
        return out
    heights = [long_side(x) for x in q]
    reaches = np.array([max(6, int(np.ceil(BORDER_REACH * height))) for height in heights])
    widest = [max(3, round(BORDER_LINE * height)) for height in heights]
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


def long_side(quad: npt.NDArray[Any]) -> float:
    """The mean length of a quad's two longer opposite sides: a card outline's height."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    sides = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
    return float(max(sides[0] + sides[2], sides[1] + sides[3]) / 2)


def inside(region: npt.NDArray[Any], contour: npt.NDArray[Any]) -> bool:
    """True when the mean point of `contour` lies inside `region` (both image contours)."""
    return _holds(region, _mean_point(contour))


def _mean_point(contour: npt.NDArray[Any]) -> tuple[float, float]:
    px, py = (float(v) for v in contour.reshape(-1, 2).mean(axis=0))
    return px, py


def _holds(region: npt.NDArray[Any], point: tuple[float, float]) -> bool:
    return cv2.pointPolygonTest(region, point, False) >= 0


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
) -> list[CardOutline]:
    """Speculative card outlines inside a bright region that firm outlines did not explain.

    Row proposals (`merged.row_proposals`) and, when the region has a card's shape itself, its
    own rectangle (a lone card the edge cut broke up under noise). `card_long` is the card height
    in pixels when known; `edges` may give the edge map around the region and its origin
    (`edges.local_edges`). Each proposal has its sides moved onto the nearest edges and carries
    its corners' edge support.
    """
    body = _body(region.contour, region.holes)
    _, (rw, rh), _ = cv2.minAreaRect(body)
    edge_map, origin = edges if edges is not None else local_edges(gray, region.contour)
    quads = row_proposals(body, list(region.pieces), card_long, edge_map, origin)
    long_side, short_side = max(rw, rh), min(rw, rh)
    shaped = short_side > 0 and _ASPECT_RANGE[0] <= long_side / short_side <= _ASPECT_RANGE[1]
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
    tol = [0.01 * float(np.linalg.norm(a[2] - a[1]) + np.linalg.norm(a[1] - a[0])) for a in quads]
    # far[i, j]: the farthest corner of quad j from the same corner of quad i.
    far = np.sqrt(((q[None, :] - q[:, None]) ** 2).sum(axis=3)).max(axis=2)
    near = (far <= np.array(tol)[:, None]).tolist()
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
