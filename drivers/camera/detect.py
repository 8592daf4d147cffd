"""Card outlines in a frame: bright, card-shaped regions, including cards partly under others.

A card is a bright, low-ink rectangle with its deck's aspect (`detect_cards`' `aspect`; poker,
88/63, unless the deck was measured otherwise). A region that is a clean
strip of a card (its neighbour lies on the rest) is extended to the full card toward the side
where the occluding card is; anything else (chips, printed boxes, text, glare) is dropped here.
Whole cards' outlines are moved out past a printed border line (`paper_edge`); the bright
regions big enough to hold cards are handed on with them, for proposals (`proposals.propose`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.bright_parts import SolidRegion, bright_parts
from drivers.camera.corners import CARD_ASPECT
from drivers.camera.outline import OUTLINE_ASPECT, CardOutline, grid_points, paper_share, portrait
from drivers.camera.outline import long_side as card_height
from drivers.camera.paper_edge import out_to_paper_edges
from drivers.camera.quad import card_quad
from drivers.camera.tuning import FELT_IN_REST, PAPER_SHARE_FACE_UP, RING_SIZE

Image = npt.NDArray[Any]
Quad = npt.NDArray[Any]

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


def _ring_backs(
    regions: list[SolidRegion],
    outlined: list[npt.NDArray[Any]],
    expected: Callable[[float, float], float | None] | None,
    frame: Image | None,
) -> list[tuple[Quad, npt.NDArray[Any], float, float, bool]]:
    """Small backs whose paper margin the edge cut broke, found as their bright region.

    A back's margin is a ring 5.5% of its width wide (6-8 px on a 150-200 px card): the edge
    cut takes its inner and outer pixels and the opening breaks what is left, so no piece
    outlines it. Its closed region (`SolidRegion`, not cut) is one card. A region is taken as
    a card here when no piece outline lies in it, its rectangle has a whole card's shape at
    the height the table calibration expects there (`RING_SIZE`), and no felt shows inside it
    (a printed box on the felt): without a frame or a calibrated height nothing is taken. Its
    outline stands for a card only when read face down (`CardOutline.back_only`): the region
    closes over print as over paper, so whether it is a back is the face-down test's to say.
    """
    if frame is None or expected is None:
        return []
    out = []
    means: list[tuple[float, float]] | None = None
    for region in regions:
        contour = region.part.contour
        rect = cv2.minAreaRect(contour)
        (cx, cy), (rw, rh), _ = rect
        long_side, short_side = max(rw, rh), min(rw, rh)
        want = expected(float(cx), float(cy))
        if short_side < 4 or want is None:
            continue
        if not OUTLINE_ASPECT[0] <= long_side / short_side <= OUTLINE_ASPECT[1]:
            continue
        if abs(long_side / want - 1.0) > RING_SIZE:
            continue
        if cv2.contourArea(contour) / (rw * rh) < _MIN_FILL:
            continue
        means = means if means is not None else [_mean_point(c) for c in outlined]
        if any(_holds(contour, m) for m in means) or _felt_inside(frame, contour):
            continue
        out.append((cv2.boxPoints(rect).astype(np.float64), contour, long_side, short_side, True))
    return out


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


@dataclass(frozen=True, slots=True)
class FeltAround:
    """A bright region's solid inside (a crop of the frame) and the felt seen just outside it."""

    solid: Image
    """1 inside the region, over the crop at `origin`."""
    origin: tuple[int, int]
    felt: npt.NDArray[Any]
    """The felt's mean colour (BGR) 6-12 px out of the region: a blurred card's halo lies nearer."""
    spread: npt.NDArray[Any]
    """Its standard deviation per channel (the felt's noise and pattern)."""

    def felt_share(self, frame: Image, quad: Quad) -> float:
        """Share of a 9 x 9 grid over `quad` that shows this felt.

        A point shows it outside the region, where it has the felt's colour (`_FELT_MATCH`: a
        chip or a back differs); points outside the frame are not counted (0.0 if none is in).
        """
        pts = grid_points(quad)
        h, w = frame.shape[:2]
        pts = pts[(pts[:, 0] >= 0) & (pts[:, 0] < w) & (pts[:, 1] >= 0) & (pts[:, 1] < h)]
        if not len(pts):
            return 0.0
        ox, oy = self.origin
        sh, sw = self.solid.shape
        lx, ly = pts[:, 0] - ox, pts[:, 1] - oy
        held = (lx >= 0) & (lx < sw) & (ly >= 0) & (ly < sh)
        inside = np.zeros(len(pts), bool)
        inside[held] = self.solid[ly[held], lx[held]] > 0
        colour = frame[pts[:, 1], pts[:, 0]].astype(np.float64)
        felt = np.abs(colour - self.felt[None, :]).max(axis=1) < _FELT_MATCH
        return float((felt & ~inside).mean())


def felt_around(frame: Image, region: npt.NDArray[Any]) -> FeltAround | None:
    """`region`'s solid inside and the felt's colour just outside it (None: no felt in view)."""
    x, y, w, h = cv2.boundingRect(region)
    pad = 14
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(frame.shape[1], x + w + pad), min(frame.shape[0], y + h + pad)
    solid = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(solid, [region - np.array([x0, y0])], -1, 1, -1)
    ring = cv2.subtract(cv2.dilate(solid, _RING_OUT), cv2.dilate(solid, _RING_IN))
    if not cv2.countNonZero(ring):
        return None
    # By OpenCV over the mask (indexing the crop by a boolean mask cost a region 4 ms).
    felt, spread = (v.ravel() for v in cv2.meanStdDev(frame[y0:y1, x0:x1], mask=ring))
    return FeltAround(solid, (x0, y0), felt, spread)


def _felt_holes(
    frame: Image, around: FeltAround, holes: list[npt.NDArray[Any]]
) -> tuple[npt.NDArray[Any], ...]:
    """The `holes` (inside the region `around` measured) that show the felt seen around it.

    A printed box touching a card encloses felt; a card back's dark middle does not (its
    print differs from the felt in colour or pattern), and stays part of its row. The felt's
    colour and noise are the region's whatever the hole: measured once (a region of several
    cards has a hole between each two).
    """
    x0, y0 = around.origin
    shape = around.solid.shape
    roi = frame[y0 : y0 + shape[0], x0 : x0 + shape[1]]
    felt, spread = around.felt, around.spread
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


SAMPLE_STEP = 4
"""Every this many rows and columns of a frame measure its paper (level and colour): enough
pixels for Otsu's split and a median, a sixteenth of the work."""


def card_threshold(gray: Image) -> float:
    """The grey level between felt and card paper (Otsu on a subsample, clamped to 90..200)."""
    return sampled_threshold(gray[::SAMPLE_STEP, ::SAMPLE_STEP])


def sampled_threshold(sample: Image) -> float:
    """`card_threshold` of a frame, from its grey subsample (every `SAMPLE_STEP`-th pixel)."""
    sample = np.ascontiguousarray(sample)
    thr, _ = cv2.threshold(sample, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return float(min(200.0, max(90.0, thr)))


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


@dataclass(slots=True)
class StripView:
    """What an extension looks at.

    The bright mask, and the BGR frame and the strip's bright region, to tell where the felt
    seen around that region shows (no frame or region: felt is never seen). The felt is
    measured once, when a side first asks.
    """

    mask: Image
    frame: Image | None = None
    region: npt.NDArray[Any] | None = None
    _around: FeltAround | None = field(default=None, init=False)
    _measured: bool = field(default=False, init=False)

    def around(self) -> FeltAround | None:
        """`felt_around` the region, measured on the first call (None: no felt known)."""
        if self.frame is None or self.region is None:
            return None
        if not self._measured:
            self._around, self._measured = felt_around(self.frame, self.region), True
        return self._around

    def felt_share(self, quad: Quad) -> float:
        """`FeltAround.felt_share` of `quad` (0.0 when the felt is not known)."""
        around = self.around()
        return 0.0 if around is None or self.frame is None else around.felt_share(self.frame, quad)


def _extend(
    rect_pts: Quad, view: StripView, short_to: float, along_long: bool = False, sized: bool = True
) -> Quad | None:
    """Grow a strip's short side (its long side with `along_long`) to `short_to` pixels.

    The strip grows toward the side where another card lies over its rest (paper beyond the
    side and over the rest's area); None if neither side shows that. Unless `sized` (the
    card's size known from the table or the frame's whole cards, and the strip's side checked
    against it), None too if the paper goes on beyond either end of the side the strip keeps
    (`_whole_side`): that side's length is then all that says how big the card is.
    """
    mask = view.mask
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
    # Nor does the felt show there: a strip at a fan's edge grown across the felt onto a back
    # beyond it found paper enough over the rest's area (the fan's next card, the back's border
    # and its pale print), and was an unknown card where none lay (`FELT_IN_REST`).
    right = _band_brightness(mask, q[1], q[2], unit), paper_share(mask, right_rest)
    left = _band_brightness(mask, q[0], q[3], -unit), paper_share(mask, left_rest)
    sides = [
        (band, grown)
        for (band, paper), rest, grown in (
            (right, right_rest, np.array([q[0], q[1] + grow, q[2] + grow, q[3]])),
            (left, left_rest, np.array([q[0] - grow, q[1], q[2], q[3] - grow])),
        )
        if band >= 0.5 and paper >= PAPER_SHARE_FACE_UP and view.felt_share(rest) <= FELT_IN_REST
    ]
    if not sides:
        return None
    # Both sides paper (a strip in the middle of a row): the brighter band, the right one on a
    # tie, as before; taking the side with more paper over the rest's area instead sent four
    # strips of the studio tuning frames the wrong way (five cards of gen-1000 unread).
    best: Quad = max(sides, key=lambda side: side[0])[1]
    return best


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
    paper: float
    """The grey level between felt and paper they were found at (`card_threshold`): the readers
    and fits after the finder take it from here rather than measure the frame again."""


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
    aspect: float = CARD_ASPECT,
    paper: float | None = None,
) -> Detection:
    """Find card outlines in a grey frame, and the bright regions that may hold more cards.

    `min_long_px` is the smallest card height accepted; `expected(x, y)` may give the card height
    in pixels at an image point (from the table calibration) to check sizes and complete strips.
    `frame` (the BGR frame) lets a hollow bright outline count as a card back when its inside
    differs from the felt around it; without it, hollow outlines are dropped. `aspect` is the
    deck's height over width (`corners.deck_aspect`): a strip is grown to its card's shape.
    `paper` is the grey level between felt and paper when `gray` is a part of a frame: the
    whole frame's (`card_threshold`), measured on `gray` itself when None.
    """
    thr = card_threshold(gray) if paper is None else paper
    min_area = 0.12 * min_long_px * min_long_px / aspect
    parts = bright_parts(gray, thr, min_area)
    raw = parts.raw
    found: list[tuple[Quad, npt.NDArray[Any], float, float, bool]] = []
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
                False,
            )
        )
    found += _ring_backs(parts.regions, [f[1] for f in found], expected, frame)
    full_longs = [
        f[2]
        for f in found
        if OUTLINE_ASPECT[0] <= f[2] / f[3] <= OUTLINE_ASPECT[1] and f[2] >= min_long_px
    ]
    frame_long = float(np.median(full_longs)) if full_longs else None
    out: list[CardOutline] = []
    whole: list[int] = []
    views: dict[int, StripView] = {}

    def region_view(k: int) -> StripView:
        # The felt around bright region k (-1: none), measured once, where a strip's side or
        # the region's holes first ask.
        if k not in views:
            views[k] = StripView(raw, frame, parts.regions[k].part.contour if k >= 0 else None)
        return views[k]

    def strip_view(contour: npt.NDArray[Any]) -> StripView:
        if frame is None:
            return StripView(raw)
        k = next((n for n, r in enumerate(parts.regions) if inside(r.part.contour, contour)), -1)
        return region_view(k)

    for box, contour, long_side, short_side, back_only in found:
        ratio = long_side / short_side
        cx, cy = box.mean(axis=0)
        want = expected(float(cx), float(cy)) if expected is not None else None
        want = want or frame_long
        if OUTLINE_ASPECT[0] <= ratio <= OUTLINE_ASPECT[1]:
            if long_side < min_long_px or (
                want is not None and not 0.8 <= long_side / want <= 1.25
            ):
                continue
            quad = card_quad(cv2.convexHull(contour), box, raw)
            # Moved onto the paper below, all of them at once.
            whole.append(len(out))
            out.append(CardOutline(quad, contour, False, back_only=back_only))
            continue
        height = want if want is not None else long_side
        if ratio > OUTLINE_ASPECT[1] and 0.85 <= long_side / height <= 1.18:
            grown = _extend(box, strip_view(contour), long_side / aspect, sized=want is not None)
        elif (
            want is not None
            and 0.85 <= short_side * aspect / want <= 1.18
            and long_side < 0.9 * want
        ):
            grown = _extend(box, strip_view(contour), want, along_long=True)
        elif want is not None and 0.85 <= long_side * aspect / want <= 1.18:
            grown = _extend(box, strip_view(contour), want)
        else:
            grown = None
        # A strip grown to a card smaller than the smallest card looked for is no card: with
        # no size from the table or the frame's whole cards, a chip's light mark was grown to
        # a 45 px "card" by its own length.
        if grown is not None and card_height(grown) >= min_long_px:
            out.append(CardOutline(portrait(grown), contour, True))
    if whole:
        moved = out_to_paper_edges(np.array([out[n].corners for n in whole]), raw)
        for n, quad in zip(whole, moved, strict=True):
            out[n] = replace(out[n], corners=portrait(quad))
    pieces = [p.contour for p in parts.pieces]
    means = [_mean_point(p) for p in pieces]
    regions: list[BrightRegion] = []
    for k, bright in enumerate(parts.regions):
        region = bright.part.contour
        # A region of several cards is looked into for more cards unless it is mostly dark
        # inside (a printed box, a row of backs): face-up cards are mostly paper even where a
        # back lies among them. Only a hole the size of a card's middle can be a box's felt.
        if bright.part.bright_share() < _HOLLOW_REGION:
            continue
        holes = list(bright.holes)
        around = region_view(k).around() if holes else None
        felt = _felt_holes(frame, around, holes) if around is not None and frame is not None else ()
        in_region = tuple(p for p, m in zip(pieces, means, strict=True) if _holds(region, m))
        regions.append(BrightRegion(region, in_region, felt))
    return Detection(out, regions, thr)


def inside(region: npt.NDArray[Any], contour: npt.NDArray[Any]) -> bool:
    """True when the mean point of `contour` lies inside `region` (both image contours)."""
    return _holds(region, _mean_point(contour))


def _mean_point(contour: npt.NDArray[Any]) -> tuple[float, float]:
    px, py = (float(v) for v in contour.reshape(-1, 2).mean(axis=0))
    return px, py


def _holds(region: npt.NDArray[Any], point: tuple[float, float]) -> bool:
    return cv2.pointPolygonTest(region, point, False) >= 0
