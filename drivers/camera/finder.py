"""Every place in a frame a card may be, deck-agnostic: the finder the recognizer reads from.

`find_candidates` gathers the firm outlines of `detect.detect_cards`, each one moved onto the
edges nearest it, and the row proposals of every bright region that may hold several cards; with
`corners=True` it adds the index corners the learned detector (`corner_net`) finds in those
regions, and the proposals' corners too faintly edged to be read that the detector vouches for
(`confirmed_corners`); every guessed outline also gets copies anchored on the paper's corner
(`anchored`).
Nothing here reads a card: a candidate is only where a reader should look, and which of its
index corners are worth looking at (`CardOutline.support`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.corners import CARD_ASPECT, corner_quads
from drivers.camera.dense_corners import DenseCorners, corner_quad
from drivers.camera.detect import Detection, detect_cards, inside
from drivers.camera.edges import local_edges
from drivers.camera.index_corners import THRESHOLD, IndexCornerDetector, shipped_detector
from drivers.camera.outline import CardOutline, long_side
from drivers.camera.outline_fit import fit_corners
from drivers.camera.proposals import propose, snap_outline
from drivers.camera.tuning import (
    ANCHOR_MOVE,
    CONFIRMED_CORNER,
    DENSE_CORNER,
    DENSE_ON_REGION_PX,
    MIN_CORNER_SUPPORT,
    PERSPECTIVE_OUTLINES,
    REFINE_STEP,
    REFINE_STEPS,
    REFINED_CORNER,
)

Image = npt.NDArray[Any]
Quad = npt.NDArray[Any]


def readable_turns(outline: CardOutline) -> tuple[int, ...]:
    """The turns (0: `corners[0]`, 2: `corners[2]`) of `outline` whose index is worth reading."""
    return tuple(t for t in (0, 2) if outline.support[t] >= MIN_CORNER_SUPPORT)


def anchored(
    gray: Image, outlines: list[CardOutline], paper: float, *, aspect: float = CARD_ASPECT
) -> list[CardOutline]:
    """Copies of `outlines` anchored on the paper's corner at each corner worth reading.

    A guessed outline's corner lies on the rounding or a few pixels inside the paper, and its
    size is the frame's: on most of the harsh envelope's misplaced cards (tuning designs) that
    put the index window 4-9% of the card's height off, more than the reader takes. Each copy
    is read at its first corner only (`support` 1 there), fitted there by
    `outline_fit.fit_corners`; where the fit finds no paper corner, or moves the index window
    less than `tuning.ANCHOR_MOVE` of the card's height, no copy is made. The copies
    are read beside the outlines they come from, not instead: those read many cards slightly
    off that the one anchored place does not (a tight index whose moved cuts take in felt).
    `paper` is the frame's paper threshold (`detect.card_threshold`); `aspect` the deck's
    height over width (`corners.deck_aspect`).
    """
    todo = [(k, turn) for k, o in enumerate(outlines) for turn in readable_turns(o)]
    if not todo:
        return []
    quads = np.array([np.roll(outlines[k].corners, -turn, axis=0) for k, turn in todo])
    moved = fit_corners(gray, quads, paper, aspect=aspect)
    # Every guess's and copy's index window, and each copy's height, measured at once: one
    # at a time they cost a frame's ~60 guesses 1-2 ms.
    sides = np.linalg.norm(moved - np.roll(moved, -1, axis=1), axis=2)
    near = ANCHOR_MOVE * (np.maximum(sides[:, 0] + sides[:, 2], sides[:, 1] + sides[:, 3]) / 2)
    before, after = _windows(quads), _windows(moved)
    stays = np.linalg.norm(before - after, axis=2).max(axis=1) <= near
    out: list[CardOutline] = []
    made: list[int] = []
    for n, (k, _) in enumerate(todo):
        # A guess whose index window the anchoring hardly moves is read as well as its copy,
        # and so is a copy whose window lies that near one made already (a card's many guesses
        # mostly anchor on the same paper corner).
        if stays[n] or (
            made
            and bool((np.linalg.norm(after[made] - after[n], axis=2).max(axis=1) <= near[n]).any())
        ):
            continue
        made.append(n)
        o = outlines[k]
        # A strip's copy stays partial: its corner is read only where it is in view.
        out.append(
            CardOutline(moved[n], o.contour, o.partial, True, (1.0, 0.0, 0.0, 0.0), corner=o.corner)
        )
    return out


_WINDOW_SPAN = np.array([[0.0, 0.0], [0.27, 0.33]])
# The index window's nearest and farthest corner, as shares of the card's width and height.


def _windows(quads: Quad) -> npt.NDArray[Any]:
    """The index window's nearest and farthest corner of each quad of `quads` (N x 2 x 2)."""
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    out: npt.NDArray[Any] = (
        q[:, None, 0]
        + _WINDOW_SPAN[None, :, :1] * (q[:, None, 1] - q[:, None, 0])
        + _WINDOW_SPAN[None, :, 1:] * (q[:, None, 3] - q[:, None, 0])
    )
    return out


def _window_shift(a: Quad, b: Quad) -> float:
    """How far (pixels) the index window at the first corner moves from quad `a` to `b`."""

    def points(q: Quad) -> npt.NDArray[Any]:
        out: npt.NDArray[Any] = (
            q[0] + _WINDOW_SPAN[:, :1] * (q[1] - q[0]) + _WINDOW_SPAN[:, 1:] * (q[3] - q[0])
        )
        return out

    return float(np.linalg.norm(points(a) - points(b), axis=1).max())


def not_read_again(outlines: list[CardOutline], read: Sequence[CardOutline]) -> list[CardOutline]:
    """`outlines` (read at their first corner) without the index windows `read` are read at.

    An outline whose window lies within `SAME_CORNER` of its card's height of one of `read`'s
    (at each corner worth reading, `readable_turns`) is dropped: a dense corner at an index a
    proposal or a rim corner placed would only be the same read again.
    """
    done = [np.roll(o.corners, -t, axis=0) for o in read for t in readable_turns(o)]
    if not outlines or not done:
        return list(outlines)
    quads = np.array([o.corners for o in outlines], np.float64)
    apart = np.linalg.norm(_windows(quads)[:, None] - _windows(np.array(done))[None], axis=3)
    near = SAME_CORNER * np.array([long_side(q) for q in quads])
    hit = (apart.max(axis=2) <= near[:, None]).any(axis=1)
    return [o for o, h in zip(outlines, hit, strict=True) if not h]


def find_candidates(
    frame: Image,
    *,
    min_card_px: float = 80.0,
    expected: Callable[[float, float], float | None] | None = None,
    corners: bool = True,
    aspect: float = CARD_ASPECT,
) -> list[CardOutline]:
    """Every candidate outline in a BGR frame: firm, snapped, proposed, and detected corners.

    `min_card_px`, `expected` and `aspect` (the deck's height over width,
    `corners.deck_aspect`) are as for `detect_cards`. Firm outlines come first; the
    guessed ones' anchored copies (`anchored`) come last.
    """
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    found = detect_cards(
        gray, min_long_px=min_card_px, expected=expected, frame=frame, aspect=aspect
    )
    edge_maps = [local_edges(gray, r.contour) for r in found.regions]
    out = list(found.outlines)
    for o in found.outlines:
        around = [
            m for r, m in zip(found.regions, edge_maps, strict=True) if inside(r.contour, o.contour)
        ]
        out.append(snap_outline(gray, o, around[0] if around else None))
    longs = [long_side(o.corners) for o in found.outlines if not o.partial]
    frame_long = float(np.median(longs)) if longs else None
    for region, maps in zip(found.regions, edge_maps, strict=True):
        (cx, cy), _, _ = cv2.minAreaRect(region.contour)
        want = expected(float(cx), float(cy)) if expected is not None else None
        out.extend(propose(gray, region, want or frame_long, maps, aspect=aspect))
    if corners:
        out.extend(
            confirmed_corners(
                gray,
                [o for o in out if o.speculative and not o.corner],
                paper=found.paper,
                aspect=aspect,
            )
        )
        wanted = (
            [expected(*_centre(r.contour)) for r in found.regions] if expected is not None else None
        )
        out.extend(detected_corners(gray, found, region_heights(found, wanted), aspect=aspect))
    guessed = [o for o in out if o.speculative or o.partial]
    out.extend(anchored(gray, guessed, found.paper, aspect=aspect))
    return out


OUTLINE_SCALE = 1.06
"""Card height over the long side of a firm outline: the paper's edge is cut a little by the
threshold and the edge cut (median 1.06, 5-95% 1.02-1.10 on the tuning designs)."""
SAME_CORNER = 0.04
"""Two detected corners this close (a share of the card height) are one."""


def card_height(found: Detection, expected: float | None = None) -> float | None:
    """The frame's card height: `expected` (the table calibration's), else from firm outlines."""
    if expected is not None:
        return expected
    longs = [long_side(o.corners) for o in found.outlines if not o.partial]
    return OUTLINE_SCALE * float(np.median(longs)) if longs else None


def region_heights(
    found: Detection, expected: Sequence[float | None] | None = None
) -> list[float | None]:
    """The card height at each bright region of `found`, in their order (None: not known).

    `expected` may give the table calibration's height at each region (None where it has
    none), which is taken there. Elsewhere, with `tuning.PERSPECTIVE_OUTLINES` or more whole
    firm outlines, it is a plane through their heights (`OUTLINE_SCALE` times their long
    side) over their centres, at the region's centre, kept within their least and greatest:
    the camera's tilt makes cards up to a quarter larger on one side of the frame than on the
    other, and index-corner hypotheses sized by the frame's median put the index window of a
    pile's cards far from the frame's middle over 4% off (harsh tuning runs). With fewer,
    `card_height` for every region.
    """
    wanted = list(expected) if expected is not None else [None] * len(found.regions)
    whole = [o.corners for o in found.outlines if not o.partial]
    plane: npt.NDArray[Any] | None = None
    low = high = 0.0
    if len(whole) >= PERSPECTIVE_OUTLINES:
        heights = OUTLINE_SCALE * np.array([long_side(q) for q in whole])
        centres = np.array([q.mean(axis=0) for q in whole], np.float64)
        plane, *_ = np.linalg.lstsq(np.c_[np.ones(len(whole)), centres], heights, rcond=None)
        low, high = float(heights.min()), float(heights.max())
    frame = card_height(found)
    out: list[float | None] = []
    for region, want in zip(found.regions, wanted, strict=True):
        if want is not None or plane is None:
            out.append(want if want is not None else frame)
            continue
        out.append(float(np.clip(plane @ [1.0, *_centre(region.contour)], low, high)))
    return out


def corner_hypotheses(
    found: Detection, card_long: float | None, *, aspect: float = CARD_ASPECT
) -> list[tuple[Quad, int]]:
    """Index-corner hypotheses on the rims of the bright regions, with their region's number.

    `card_long` is the card height (`card_height`); None gives no hypotheses. `aspect` is the
    deck's height over width (`corners.deck_aspect`).
    """
    return _hypotheses(found, [card_long] * len(found.regions), aspect)


def _hypotheses(
    found: Detection, heights: Sequence[float | None], aspect: float
) -> list[tuple[Quad, int]]:
    """`corner_hypotheses` with a card height per region (None: none there)."""
    return [
        (quad, k)
        for k, (region, height) in enumerate(zip(found.regions, heights, strict=True))
        if height is not None
        for quad in corner_quads(region.contour, height, aspect=aspect)
    ]


def detected_corners(
    gray: Image,
    found: Detection,
    card_long: float | Sequence[float | None] | None,
    detector: IndexCornerDetector | None = None,
    regions: set[int] | None = None,
    *,
    aspect: float = CARD_ASPECT,
) -> list[CardOutline]:
    """Speculative outlines on the hypotheses the learned detector takes for index corners.

    `card_long` is the card height, or one per bright region (`region_heights`). Each outline
    is read at its first corner only (`support` 1 there, 0 elsewhere); its visible region is
    its bright region's. `detector` defaults to the shipped one; `regions` may limit the search
    to those bright regions (by number in `found.regions`); `aspect` is the deck's height over
    width (`corners.deck_aspect`).
    """
    heights = (
        list(card_long) if isinstance(card_long, Sequence) else [card_long] * len(found.regions)
    )
    if regions is not None:
        heights = [h if k in regions else None for k, h in enumerate(heights)]
    hyps = _hypotheses(found, heights, aspect)
    if not hyps:
        return []
    scores = (detector or shipped_detector()).scores(gray, [q for q, _ in hyps])
    out: list[CardOutline] = []
    for i in np.argsort(-scores):
        if scores[i] < THRESHOLD:
            break
        quad, k = hyps[i]
        tol = SAME_CORNER * long_side(quad)
        if any(float(np.linalg.norm(o.corners[0] - quad[0])) < tol for o in out):
            continue
        out.append(
            CardOutline(
                quad, found.regions[k].contour, True, True, (1.0, 0.0, 0.0, 0.0), corner=True
            )
        )
    return out


def dense_found_corners(
    gray: Image,
    found: Detection,
    heights: Sequence[float | None],
    dense: DenseCorners,
    regions: set[int],
    *,
    aspect: float = CARD_ASPECT,
) -> list[CardOutline]:
    """Outlines at the index corners the dense detector finds on the bright regions `regions`.

    The rim corners (`detected_corners`) are only where a region's outline bends; a card lying
    on a pile shows its index corner inside the region, where the rim makes no hypothesis and a
    blurred proposal's edges place no corner. The dense detector (`dense_corners`) looks at
    every cell of the frame: each peak at least `tuning.DENSE_CORNER` sure within
    `tuning.DENSE_ON_REGION_PX` of one of `regions` (by number in `found.regions`) whose card
    height `heights` knows (`region_heights`) gives an outline at its corner, turned as the
    network says and sized by that height and the deck's `aspect` (`corners.deck_aspect`; the
    network's own height head is 17% off at the median).
    These are not read as they are: like a weakly edged proposal corner (`support` 0 at the
    first corner, the other index corner left out), they go to `confirmed_corners`, which
    anchors each on the paper's corner and keeps only what the index-corner detector vouches
    for, and only where the fit finds the paper's corner (`anchored_only`). The network sees
    an index, not a card's corner: a deck printing an index at all four corners shows, at the
    corner no index is read from, the same glyph mirrored in place, the card's paper running
    on past it where a read corner would have the paper's edge. Taken for an index corner
    there, the outline runs the wrong way over the neighbour (tuning studio, gen-1003: a KS
    read sure on the 5C beside it, the corner 21% of the card's height in from the KS's own).
    The paper's corner is what makes a glyph a card's corner: where the fit finds no paper edge
    along both sides meeting there, the corner is not read. The outline's region is the one
    its corner lies on.
    """
    if not regions:
        return []
    boxes = np.array([cv2.boundingRect(found.regions[k].contour) for k in regions])
    box = (
        int(boxes[:, 0].min()),
        int(boxes[:, 1].min()),
        int((boxes[:, 0] + boxes[:, 2]).max()),
        int((boxes[:, 1] + boxes[:, 3]).max()),
    )
    out: list[CardOutline] = []
    for _, quad in dense.corners_within(gray, box, DENSE_CORNER):
        at = (float(quad[0][0]), float(quad[0][1]))
        for k in sorted(regions):
            height = heights[k]
            contour = found.regions[k].contour
            if height is None or cv2.pointPolygonTest(contour, at, True) < -DENSE_ON_REGION_PX:
                continue
            side = quad[1] - quad[0]
            q = corner_quad(quad[0], float(np.arctan2(side[1], side[0])), height, aspect=aspect)
            out.append(CardOutline(q, contour, True, True, (0.0, 0.0, 1.0, 0.0)))
            break
    return out


def confirmed_corners(
    gray: Image,
    outlines: list[CardOutline],
    detector: IndexCornerDetector | None = None,
    paper: float | None = None,
    *,
    anchored_only: bool = False,
    aspect: float = CARD_ASPECT,
) -> list[CardOutline]:
    """Copies of guessed `outlines` at weakly supported corners the detector calls index corners.

    A guessed corner under `MIN_CORNER_SUPPORT` is not read on its own outline. A card lying
    over another shows the side of its index corner that crosses the card beneath as a faint
    paper-on-paper edge, and that corner lies inside the bright region, where the rim makes no
    corner hypothesis (`corner_hypotheses`): the edge support is low there however well a
    proposal sits. Four of the nine misplaced overlapped cards of the tuning studio run had a
    proposal within 4% of their index held back by that bar alone. The detector, trained on
    index corners in place over other cards as well as on the felt, decides there instead, at
    `tuning.CONFIRMED_CORNER`. Each copy is read at its first corner only (`support` 1 there)
    and is a `corner` outline. Only corners 0 and 2 (a card's index corners) are looked at.
    `detector` defaults to the shipped one.

    With `paper` (the frame's paper threshold, `detect.card_threshold`), each weak corner is
    also anchored on the paper's corner (`outline_fit.fit_corners`, as `anchored` does for
    well supported ones) and that copy offered to the detector too. A proposal's corner
    over another card or blurred takes its place from weak edges and lies 4-12% of the card's
    height off the index (the harsh tuning run's misplaced cards), where the detector scores
    it near 0 and the reader reads nothing; anchored, the same corners of six of them lay
    0.3-5% off, scored 0.93-1.00 and read their card at 0.99-1.00. An anchored copy's two
    sides were found on the paper's edge: it counts as fully supported. Of copies placing
    one window (`SAME_CORNER`), the one whose corner's sides lie best on edges (`support`)
    is kept, the surer on a tie.

    With `anchored_only` (and `paper`), only the anchored copies are offered: a corner the fit
    finds no paper corner at is not read (`dense_found_corners` says why). `aspect` is the
    deck's height over width (`corners.deck_aspect`), for the anchored copies' size check.
    """
    todo = [
        (o, o.corners[TURNED[turn]], o.support[turn])
        for o in outlines
        for turn in (0, 2)
        if o.support[turn] < MIN_CORNER_SUPPORT
    ]
    if not todo:
        return []
    if paper is not None:
        quads = np.array([q for _, q, _ in todo], np.float64)
        moved = fit_corners(gray, quads, paper, aspect=aspect)
        # A corner the fit left where it was (no paper edge found) is scored once, as found.
        copies = [
            (o, m, 1.0)
            for (o, q, _), m in zip(todo, moved, strict=True)
            if not np.array_equal(m, q)
        ]
        todo = copies if anchored_only else todo + copies
        if not todo:
            return []
    scores = (detector or shipped_detector()).scores(gray, [q for _, q, _ in todo])
    # The detector saturates round an index corner: on a tuning studio fan, copies 1.7% and
    # 4.7% of the card's height off one index scored 0.998 and 0.999, and keeping the surer
    # left the card unread. Of the copies it vouches for, those whose sides lie best on the
    # frame's edges go first (`support`), the score only breaking ties.
    vouched = [i for i in range(len(todo)) if scores[i] >= CONFIRMED_CORNER]
    vouched.sort(key=lambda i: (-todo[i][2], -scores[i]))
    out: list[CardOutline] = []
    for i in vouched:
        o, quad, _ = todo[i]
        near = SAME_CORNER * long_side(quad)
        if any(_window_shift(c.corners, quad) <= near for c in out):
            continue
        out.append(CardOutline(quad, o.contour, o.partial, True, (1.0, 0.0, 0.0, 0.0), corner=True))
    return out


def refined_corners(
    gray: Image, leaning: Sequence[CardOutline], detector: IndexCornerDetector | None = None
) -> list[CardOutline]:
    """Guessed index corners placed again where the learned detector is surest, to read again.

    `leaning` are guessed outlines, each rolled to start at an index corner whose read leaned to
    a code under the reader's bar (`IndexRead.hint`). A guessed outline takes its place from
    edges and its size from the frame's other cards, and the reader's confidence falls fast with
    the window's error: on the tuning designs a proposal 2.9% of the card's height off a
    half-covered 9C's index read it at 0.81, a candidate 1.6% off at 0.99998. The detector
    scores each corner moved along the card's sides by up to `tuning.REFINE_STEPS` steps of
    `tuning.REFINE_STEP` of the card's height each way; its surest place, when it is not the
    corner's own, scores at least `tuning.REFINED_CORNER` and more than the corner's own, is a
    `corner` outline read at its first corner only (`support` 1 there), with the visible region
    of the outline it comes from. The detector saturates over a few percent round an index
    corner, so this is a second placement near the first chosen without the reader, not the
    index's measured place; the reader reads it once, under all of its own bars. Of copies
    placing one window (`SAME_CORNER`) only the first is kept. `detector` defaults to the
    shipped one.
    """
    if not leaning:
        return []
    quads = [np.asarray(o.corners, np.float64) for o in leaning]
    steps = np.arange(-REFINE_STEPS, REFINE_STEPS + 1, dtype=np.float64) * REFINE_STEP
    grid = [(du, dv) for du in steps for dv in steps]
    centre = grid.index((0.0, 0.0))
    moved: list[Quad] = []
    for q in quads:
        height = long_side(q)
        across = (q[1] - q[0]) / max(1e-6, float(np.linalg.norm(q[1] - q[0])))
        down = (q[3] - q[0]) / max(1e-6, float(np.linalg.norm(q[3] - q[0])))
        moved.extend(q + height * (du * across + dv * down) for du, dv in grid)
    scores = (detector or shipped_detector()).scores(gray, moved).reshape(len(quads), len(grid))
    out: list[CardOutline] = []
    options = np.array(moved).reshape(len(quads), len(grid), 4, 2)
    for o, row, placed in zip(leaning, scores, options, strict=True):
        best = int(np.argmax(row))
        if best == centre or row[best] < REFINED_CORNER or row[best] <= row[centre]:
            continue
        q = placed[best]
        near = SAME_CORNER * long_side(q)
        if any(_window_shift(c.corners, q) <= near for c in out):
            continue
        out.append(CardOutline(q, o.contour, o.partial, True, (1.0, 0.0, 0.0, 0.0), corner=True))
    return out


TURNED = {0: [0, 1, 2, 3], 2: [2, 3, 0, 1]}
"""The corners' order with the first corner at each index corner's turn (0 and 2: a card's
index corners), for the finder and the recognizer alike."""


def _centre(contour: npt.NDArray[Any]) -> tuple[float, float]:
    """The middle of a bright region (where the card height is looked up)."""
    (cx, cy), _, _ = cv2.minAreaRect(contour)
    return float(cx), float(cy)
