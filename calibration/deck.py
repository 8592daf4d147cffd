"""Deck calibration: learn the index window and rank/suit templates from 52 reference images.

Each reference is one flat, upright card, either cropped to its edges or lying on a plain
contrasting background, in a file named by its code (`AS.png`, `TD.jpg`). The index corner is
found on each card (decks differ: small or jumbo indices, other fonts), and the window that holds
every card's index becomes the profile's `index_window`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.corner_training import references_digest
from calibration.errors import DeckCalibrationError
from calibration.four_index import four_index_window
from calibration.glyphs import IndexInk, aspect, find_index, normalise
from calibration.profile import DeckCalibration, DeckTemplates, IndexModelInfo
from calibration.reader_pair import SEEDS, train_reader
from drivers.camera.index_model import Image, weights_digest, window_tensor
from drivers.camera.tuning import GROUND_STEP, REFERENCE_CUTOUT, REFERENCE_OPAQUE
from studio.cards import DECK, RANK_CHARS, SUIT_CHARS

Progress = Callable[[str, int, int], None]
"""`progress(stage, done, total)`: how far a stage of calibration ("render", "train") is."""

CANON_SIZE = (200, 280)
"""Width and height, in pixels, of a card flattened for reading (63 x 88 mm at ~3.2 px/mm)."""
RANK_SIZE = (24, 32)
SUIT_SIZE = (24, 24)
_EXTENSIONS = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")
# Where an index may sit on any deck: the top-left 45% x 60% of the card (a jumbo index
# reaches about 45% down; its suit must end inside the search to be found).
_SEARCH = (0.45, 0.6)
LINE_SHARE = 0.7
"""A straight dark run this long a share of the search region's width (or height) is a printed
border line, not index ink: a tight index printed across the line would otherwise merge with it."""
_INSET = 3
SEARCH_TOPS = 4
"""How many of the highest pieces of ink a reference's corner tries as the rank: a pip of a two
or a court's frame may reach above a low-set index."""
PLACE_TOLERANCE = 0.5
"""How far (a share of the deck's median rank height) a card's located rank may sit from the
other cards' before it is taken for a pip or a smudge rather than the index."""
SEARCH_INK_PERCENTILE = 0.5
"""The darkest share (percent) of the search region taken as the index's ink level: a small
index covers under 2% of the region, so the corner window's 2% would measure the paper."""
# Card heights (px) whose look is learned: the bench's smallest cards are 120 px at 1080p and
# 90 px at 720p, and each level is compared only with indices of about its own sharpness.
_SEEN_HEIGHTS = (90, 110, 130, 155, 180, 215, 260)


def order_corners(quad: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """Order four points as top-left, top-right, bottom-right, bottom-left (image axes)."""
    s = quad.sum(axis=1)
    d = quad[:, 1] - quad[:, 0]
    return np.array(
        [quad[np.argmin(s)], quad[np.argmin(d)], quad[np.argmax(s)], quad[np.argmax(d)]]
    )


def flatten_card(image: Image, name: str = "card") -> Image:
    """Return the card in `image` warped flat to `CANON_SIZE`, upright as photographed.

    Raises `DeckCalibrationError` when no card outline is found or the card lies sideways.
    """
    outline = _card_outline(image, name)
    if outline is None:
        flat: Image = cv2.resize(image, CANON_SIZE, interpolation=cv2.INTER_AREA)
        return flat
    cw, ch = CANON_SIZE
    dst = np.array([[0, 0], [cw - 1, 0], [cw - 1, ch - 1], [0, ch - 1]], np.float32)
    m = cv2.getPerspectiveTransform(outline[0].astype(np.float32), dst)
    warped: Image = cv2.warpPerspective(image, m, CANON_SIZE, flags=cv2.INTER_AREA)
    return warped


def card_aspect(image: Image, name: str = "card") -> float:
    """The card's height over its width in `image`: 88/63 (1.397) poker size, 88/57 bridge size.

    `image` is a scan cropped to the card or a photograph of it on a plain background, as
    `flatten_card` takes; raises as it does.
    """
    outline = _card_outline(image, name)
    if outline is None:
        return float(image.shape[0] / image.shape[1])
    # The whole outline's least rectangle: the four-point fit that flattens the card cuts its
    # rounded corners, which would add ~0.02 to a card's aspect.
    (_, _), (a, b), _ = cv2.minAreaRect(outline[1])
    return float(max(a, b) / min(a, b))


def _card_outline(image: Image, name: str) -> tuple[npt.NDArray[Any], npt.NDArray[Any]] | None:
    """The card's corners in `image` (TL, TR, BR, BL) and its outline; None for a cropped scan.

    The outline is the card's whole contour; a scan cropped to the card's edges has none to
    find. Raises when no outline is found or the card lies sideways.
    """
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    _, mask = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    border = np.concatenate([mask[0], mask[-1], mask[:, 0], mask[:, -1]])
    h, w = gray.shape
    if float((border > 0).mean()) > 0.6:
        found = _ground_outline(image)
        if found is None:
            if w > h:
                raise DeckCalibrationError(f"{name}: the card lies sideways; photograph it upright")
            return None
        # A card laid on a light ground is scanned or exported flat, with no perspective: its
        # least rectangle is its edge, rounded corners included, as a cropped scan's would be.
        biggest = found
        approx = cv2.boxPoints(cv2.minAreaRect(biggest)).reshape(4, 1, 2)
    else:
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if not contours:
            raise DeckCalibrationError(f"{name}: no card found on the background")
        biggest = max(contours, key=cv2.contourArea)
        if cv2.contourArea(biggest) < 0.05 * h * w:
            raise DeckCalibrationError(f"{name}: no card found on the background")
        hull = cv2.convexHull(biggest)
        approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True)
        if len(approx) != 4:
            box = cv2.boxPoints(cv2.minAreaRect(biggest))
            approx = box.reshape(4, 1, 2)
    quad = order_corners(approx.reshape(4, 2).astype(np.float64))
    if np.linalg.norm(quad[1] - quad[0]) > np.linalg.norm(quad[3] - quad[0]):
        raise DeckCalibrationError(f"{name}: the card lies sideways; photograph it upright")
    return quad, biggest


def _ground_outline(image: Image) -> npt.NDArray[Any] | None:
    """The card's outline on a plain light ground; None when `image` is a scan cropped to it.

    A light ground is a white margin round an exported card, a scanner's lid, a light or
    textured table. Otsu's split of grey levels takes both the ground and the paper for paper,
    so the card is told from the ground by colour: the ground is the median of the image's
    outermost pixels, and the card the largest region differing from it by `GROUND_STEP` more
    than the outermost pixels do (a textured ground varies). It is a card on a ground only when
    nothing else differs from the ground outside it, and the paper just inside its edge (past
    any printed line) differs from the ground by `GROUND_STEP` or more. In a scan cropped to the
    card the outermost pixels are its own paper, so the region found is ink: with more ink
    outside it (a court's picture), or the same paper just inside it (a printed border line).
    """
    h, w = image.shape[:2]
    soft = cv2.GaussianBlur(image, (0, 0), 1.0).astype(np.float32)
    ring = np.concatenate([soft[0], soft[-1], soft[:, 0], soft[:, -1]])
    ground = np.median(ring, axis=0)
    distance = np.abs(soft - ground).max(axis=2)
    # A textured ground varies along the ring: the card must differ more than the ground does.
    level = float(np.percentile(np.abs(ring - ground).max(axis=1), 99))
    mask = (distance > level + GROUND_STEP).astype(np.uint8)
    step = max(1, round(0.005 * h))
    # Closed across a printed border line or an outline, opened to drop the ground's specks.
    kernel = np.ones((2 * step + 1,) * 2, np.uint8)
    mask = cv2.morphologyEx(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel), cv2.MORPH_OPEN, kernel)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    biggest = max(contours, key=cv2.contourArea)
    if cv2.contourArea(biggest) < 0.3 * h * w:
        return None
    inside = np.zeros((h, w), np.uint8)
    cv2.drawContours(inside, [biggest], -1, 1, -1)
    outside = inside == 0
    if not outside.any() or mask[outside].mean() > 0.002:
        return None
    # The paper just inside the edge, 2.5-6% of the height in: past a drawn outline and a
    # printed border line's pair (2-3% in), short of most of the face's print.
    rim = cv2.erode(inside, np.ones((10 * step + 1,) * 2, np.uint8))
    core = cv2.erode(inside, np.ones((24 * step + 1,) * 2, np.uint8))
    band = (rim > 0) & (core == 0)
    if not band.any():
        return None
    paper = np.median(image[band].astype(np.float32), axis=0)
    if float(np.abs(paper - ground).max()) < GROUND_STEP:
        return None
    out: npt.NDArray[Any] = biggest
    return out


def locate_index(card: Image, name: str = "card", *, darkest: bool = False) -> IndexInk:
    """Find the index on a flattened card; boxes are in card pixels. Raises if none is found.

    With `darkest`, ink is looked for in each pixel's darkest channel (`darkest_channel`) rather
    than its grey; how red the ink is is still measured on the card's colours.
    """
    cw, ch = CANON_SIZE
    x1, y1 = round(_SEARCH[0] * cw), round(_SEARCH[1] * ch)
    colour = card[_INSET:y1, _INSET:x1]
    region = without_lines(darkest_channel(colour) if darkest else colour)
    ink = find_index(
        region,
        tops=SEARCH_TOPS,
        ink_percentile=SEARCH_INK_PERCENTILE,
        colour=colour if darkest else None,
    )
    if ink is None:
        raise DeckCalibrationError(f"{name}: no rank-over-suit index found in the top-left corner")

    def shift(box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        return box[0] + _INSET, box[1] + _INSET, box[2], box[3]

    return IndexInk(
        ink.rank, ink.suit, shift(ink.rank_box), shift(ink.suit_box), ink.red, ink.sharpness
    )


def darkest_channel(image: Image) -> Image:
    """`image` with each pixel's three channels set to its darkest one (its grey is that).

    A light ink (an orange or pink "red": grey 120-140 where black prints under 60) may sit
    nearer the paper's grey than a border line or a court frame does, and a search for ink at
    half the darkest pixels' level then misses it; every printed ink is dark in some channel.
    """
    low = image.min(axis=2)
    out: Image = np.repeat(low[..., None], 3, axis=2)
    return out


def without_lines(region: Image) -> Image:
    """`region` with its straight border lines painted paper.

    A line is a straight dark run along at least `LINE_SHARE` of a row or column of the region
    (a morphological opening with a kernel that long keeps only such runs), so index ink next to
    a court picture's frame is never taken for one. Only for finding the index on a flat
    reference, where the card's border lines run along rows and columns exactly.
    """
    gray = cv2.cvtColor(region, cv2.COLOR_BGR2GRAY)
    paper, ink = np.percentile(gray, (90, 2))
    dark = (gray < (paper + ink) / 2).astype(np.uint8)
    h, w = dark.shape
    across = cv2.getStructuringElement(cv2.MORPH_RECT, (max(1, round(LINE_SHARE * w)), 1))
    down = cv2.getStructuringElement(cv2.MORPH_RECT, (1, max(1, round(LINE_SHARE * h))))
    lines = np.maximum(
        cv2.morphologyEx(dark, cv2.MORPH_OPEN, across),
        cv2.morphologyEx(dark, cv2.MORPH_OPEN, down),
    )
    if not lines.any():
        return region
    # A line's antialiased rim is a pixel either side of its dark core.
    lines = cv2.dilate(lines, np.ones((3, 3), np.uint8)) > 0
    out: Image = region.copy()
    light = dark == 0
    out[lines] = np.median(region[light], axis=0) if light.any() else 255
    return out


def _as_seen(flat: Image, name: str, darkest: bool = False) -> list[IndexInk]:
    """The index as the camera sees it on smaller cards: resampled down, back up, and softened.

    One template level per height in `_SEEN_HEIGHTS`: a blurred glyph's box widens and its
    strokes merge, so a glyph is compared with the levels nearest its own sharpness. Where a
    small index merges into one blob on this card, the next larger height's look stands in.
    """
    out: list[IndexInk | None] = []
    for height in _SEEN_HEIGHTS:
        small = cv2.resize(flat, (round(height / 88 * 63), height), interpolation=cv2.INTER_AREA)
        back = cv2.resize(small, CANON_SIZE, interpolation=cv2.INTER_LINEAR)
        # The camera's optics and the warp blur a small index about this much.
        soft = cv2.GaussianBlur(back, (0, 0), 0.8 * CANON_SIZE[1] / height)
        try:
            out.append(locate_index(soft, name, darkest=darkest))
        except DeckCalibrationError:
            out.append(None)
    found: list[IndexInk] = []
    fallback = locate_index(flat, name, darkest=darkest)
    for ink in reversed(out):
        fallback = ink if ink is not None else fallback
        found.append(fallback)
    return found[::-1]


_NAMED = re.compile(
    r"(ace|[2-9]|10|jack|queen|king)_of_(clubs|diamonds|hearts|spades)\d*", re.IGNORECASE
)
"""A card named in words, as many card packages name their files (`ace_of_spades`,
`10_of_hearts`); trailing digits name an art variant of the same card (`jack_of_hearts2`)."""


def card_code(stem: str) -> str:
    """The card code a reference file's name (without its suffix) gives.

    `AS`, `TH` and `10H` name cards by code; `ace_of_spades` and `10_of_hearts` (any case, and
    an art variant's trailing digits) in words. Any other name is returned upper-cased, and is
    no card.
    """
    named = _NAMED.fullmatch(stem)
    if named is not None:
        rank, suit = named.group(1).lower(), named.group(2).upper()
        return ("T" if rank == "10" else rank[0].upper()) + suit[0]
    code = stem.upper()
    if len(code) == 3 and code.startswith("10"):
        code = "T" + code[2]
    return code


def reference_images(directory: Path) -> dict[str, Path]:
    """Map each of the 52 card codes to its image file in `directory`.

    Files are named by code (`AS.png`, `TH.png`, `10H.png`) or in words (`ace_of_spades.png`,
    `10_of_hearts.png`: `card_code`). Raises `DeckCalibrationError` naming missing cards or a
    card given twice (two files of one code, or two art variants of one card).
    """
    found: dict[str, Path] = {}
    folder = Path(directory)
    if folder.is_file():
        raise DeckCalibrationError(
            f"{folder} is a file: give the directory holding the 52 card images"
        )
    if not folder.is_dir():
        raise DeckCalibrationError(f"deck image directory {folder} does not exist")
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in _EXTENSIONS:
            continue
        code = card_code(path.stem)
        if code in found:
            raise DeckCalibrationError(
                f"card {code} is given twice ({found[code].name}, {path.name})"
            )
        found[code] = path
    missing = [c.code for c in DECK if c.code not in found]
    if missing:
        raise DeckCalibrationError(
            f"deck images in {folder} lack {len(missing)} card(s): {' '.join(missing)}"
        )
    return {c.code: found[c.code] for c in DECK}


def read_reference(path: Path) -> Image:
    """Read one reference image; raise `DeckCalibrationError` when it cannot be decoded.

    An image with an alpha channel (a PNG or TIFF exported from a card package) has its
    transparent margin cropped off and its transparent pixels filled (`without_alpha`): reading
    colour alone would show whatever colour they happen to hold, black or white by exporter.
    """
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise DeckCalibrationError(f"card image {path} is unreadable")
    out: Image = image.astype(np.uint8)
    if path.suffix.lower() in (".png", ".tif", ".tiff"):
        whole = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if whole is not None and whole.ndim == 3 and whole.shape[2] == 4:
            alpha = whole[..., 3].astype(np.float64)
            if whole.dtype == np.uint16:
                alpha = alpha / 257
            if alpha.shape == out.shape[:2]:
                out = without_alpha(out, alpha.round().astype(np.uint8), path.name)
    return out


def without_alpha(image: Image, alpha: Image, name: str = "card") -> Image:
    """`image` with its transparent margin cropped and its transparent pixels filled.

    The crop keeps the pixels at least `REFERENCE_OPAQUE` opaque. A card cropped to its edges
    with transparent rounded corners (at most `REFERENCE_CUTOUT` of the crop transparent) is
    blended over its own paper (the median of the opaque pixels along the crop's edges), so it
    reads as a scan cropped to the card; a cut-out lying askew is blended over black, a
    photograph's dark ground. Raises when the image is wholly transparent.
    """
    opaque = alpha >= REFERENCE_OPAQUE
    if opaque.all():
        return image
    if not opaque.any():
        raise DeckCalibrationError(f"{name}: the image is wholly transparent; no card in it")
    ys, xs = np.nonzero(opaque)
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    card = image[y0:y1, x0:x1].astype(np.float32)
    a = alpha[y0:y1, x0:x1].astype(np.float32)[..., None] / 255.0
    kept = opaque[y0:y1, x0:x1]
    if float((~kept).mean()) <= REFERENCE_CUTOUT:
        band = max(1, round(0.02 * card.shape[0]))
        edge = np.zeros(kept.shape, bool)
        edge[:band], edge[-band:], edge[:, :band], edge[:, -band:] = True, True, True, True
        ground = np.median(card[edge & kept], axis=0)
    else:
        ground = np.zeros(3, np.float32)
    out: Image = np.clip(card * a + ground * (1 - a) + 0.5, 0, 255).astype(np.uint8)
    return out


def learn_deck(
    cards: Mapping[str, Image],
    *,
    model_cache: Path | None = None,
    progress: Progress | None = None,
    reader_seeds: Sequence[int] = SEEDS,
) -> tuple[DeckCalibration, DeckTemplates]:
    """Learn the deck from 52 flat upright card images keyed by code (`AS`...).

    Returns the deck geometry and its templates, with the learned index reader trained from the
    same cards (`calibration.reader_pair`: the mean of one reader per seed of `reader_seeds`,
    each trained by `calibration.corner_training`, cached per process by the references' hash,
    and across processes in `model_cache` when given). `progress(stage, done, total)` hears how
    the trainings' rendering and fitting advance. `reader_seeds` is `SEEDS` for every table; one
    seed alone measures how much a reader owes to its draw (`bench/reader_seeds.py`). Raises
    `DeckCalibrationError` for a missing card or a card whose index cannot be located.
    """
    missing = [c.code for c in DECK if c.code not in cards]
    if missing:
        raise DeckCalibrationError(f"deck lacks {len(missing)} card(s): {' '.join(missing)}")
    flats = {card.code: flatten_card(cards[card.code], card.code) for card in DECK}
    inks, seen, unlocated = _located(flats, darkest=False)
    try:
        _check_located(inks, unlocated)
    except DeckCalibrationError as refused:
        # A light ink missed in grey: the deck's index looked for in each pixel's darkest
        # channel. Only a deck refused in grey is located so; every other locates as before.
        inks, seen, unlocated = _located(flats, darkest=True)
        try:
            _check_located(inks, unlocated)
        except DeckCalibrationError:
            raise refused from None
    window = index_window(inks)
    levels = len(_SEEN_HEIGHTS) + 1
    ranks = {
        r: [
            np.mean([normalise(seen[r + s][k].rank, RANK_SIZE) for s in SUIT_CHARS
                     if r + s in seen], axis=0)
            for k in range(levels)
        ]
        for r in RANK_CHARS
    }  # fmt: skip
    suits = {
        s: [
            np.mean([normalise(seen[r + s][k].suit, SUIT_SIZE) for r in RANK_CHARS
                     if r + s in seen], axis=0)
            for k in range(levels)
        ]
        for s in SUIT_CHARS
    }  # fmt: skip
    # Each level's typical index sharpness: a corner is compared with the levels nearest its own.
    level_sharpness = [
        round(float(np.median([v[k].sharpness for v in seen.values()])), 3) for k in range(levels)
    ]
    red = [
        s
        for s in SUIT_CHARS
        if 2 * sum(inks[r + s].red for r in RANK_CHARS if r + s in inks)
        > sum(r + s in inks for r in RANK_CHARS)
    ]
    window_px = window_pixels(window)
    _check_not_blank(flats, window_px, unlocated)
    model, samples = train_reader(
        flats,
        window_px,
        list(RANK_CHARS),
        list(SUIT_CHARS),
        seeds=reader_seeds,
        cache_dir=model_cache,
        progress=progress,
    )
    # Read by the deck's own reader: the model's cache key and training stay as they were.
    upper_right = four_index_window(flats, window, inks.values(), model)
    model_info = IndexModelInfo(
        sha256=weights_digest(model),
        references_sha256=references_digest(flats, window_px),
        ranks=list(model.ranks),
        suits=list(model.suits),
        samples=samples,
    )
    deck = DeckCalibration(
        index_window=window,
        rank_size=RANK_SIZE,
        suit_size=SUIT_SIZE,
        ranks=list(RANK_CHARS),
        suits=list(SUIT_CHARS),
        levels=levels,
        level_sharpness=level_sharpness,
        red_suits=red,
        rank_aspect={
            r: float(np.mean([aspect(inks[r + s].rank_box) for s in SUIT_CHARS if r + s in inks]))
            for r in RANK_CHARS
        },
        suit_aspect={
            s: float(np.mean([aspect(inks[r + s].suit_box) for r in RANK_CHARS if r + s in inks]))
            for s in SUIT_CHARS
        },
        cards_used=len(inks),
        index_model=model_info,
        card_aspect=round(float(np.median([card_aspect(cards[c.code], c.code) for c in DECK])), 3),
        four_index=upper_right is not None,
        upper_right_window=upper_right,
    )
    templates = DeckTemplates(
        {k: [t.astype(np.float32) for t in v] for k, v in ranks.items()},
        {k: [t.astype(np.float32) for t in v] for k, v in suits.items()},
        model,
    )
    return deck, templates


def index_window(inks: Mapping[str, IndexInk]) -> tuple[float, float, float, float]:
    """The deck's index window (x0, y0, x1, y1 as shares of the card) from its located indices.

    The union of the located rank and suit boxes plus a margin of 0.35 of the median rank height.
    """
    cw, ch = CANON_SIZE
    boxes = [b for ink in inks.values() for b in (ink.rank_box, ink.suit_box)]
    x0 = min(b[0] for b in boxes)
    y0 = min(b[1] for b in boxes)
    x1 = max(b[0] + b[2] for b in boxes)
    y1 = max(b[1] + b[3] for b in boxes)
    # A margin of a third of the glyph height absorbs a corner located a few pixels off.
    margin = 0.35 * float(np.median([ink.rank_box[3] for ink in inks.values()]))
    return (
        max(0.0, (x0 - margin) / cw),
        max(0.0, (y0 - margin) / ch),
        min(0.5, (x1 + margin) / cw),
        min(0.5, (y1 + margin) / ch),
    )


def window_pixels(window: tuple[float, float, float, float]) -> tuple[int, int, int, int]:
    """`window` (shares of the card) in pixels of the flattened card (`CANON_SIZE`)."""
    cw, ch = CANON_SIZE
    return (
        round(window[0] * cw),
        round(window[1] * ch),
        round(window[2] * cw),
        round(window[3] * ch),
    )


def _misplaced(inks: Mapping[str, IndexInk]) -> list[str]:
    """Cards whose located rank is not where the deck's others are: a pip or a smudge, not an index.

    Every card of a deck prints its index in the same place at the same size, so a rank box whose
    top-left corner lies more than `PLACE_TOLERANCE` of the median rank height from the median
    corner, or whose height is off the median by more than that share, was something else.
    """
    if len(inks) < 4:
        return []
    boxes = np.array([ink.rank_box for ink in inks.values()], np.float64)
    x, y, _, h = np.median(boxes, axis=0)
    return [
        code
        for code, ink in inks.items()
        if max(abs(ink.rank_box[0] - x), abs(ink.rank_box[1] - y), abs(ink.rank_box[3] - h))
        > PLACE_TOLERANCE * h
    ]


def _check_not_blank(
    flats: Mapping[str, Image], window: tuple[int, int, int, int], unlocated: Mapping[str, str]
) -> None:
    """Refuse a deck with a card whose index was not found and whose index window is blank.

    Such a card (a blank or washed-out photograph) would teach the learned reader that its code
    looks like bare paper: it is named, with the window looked at in card pixels.
    """
    x0, y0, x1, y1 = window
    for code in unlocated:
        if window_tensor(flats[code][y0:y1, x0:x1]) is None:
            raise DeckCalibrationError(
                f"{code}: no ink in its index window (x {x0}-{x1}, y {y0}-{y1} of the "
                f"{CANON_SIZE[0]}x{CANON_SIZE[1]} flattened card): {unlocated[code]}"
            )


def _located(
    flats: Mapping[str, Image], *, darkest: bool
) -> tuple[dict[str, IndexInk], dict[str, list[IndexInk]], dict[str, str]]:
    """Each flat card's index, its looks on smaller cards, and why the others were not located.

    `locate_index` and `_as_seen` per card (in each pixel's darkest channel with `darkest`);
    cards found off the other cards' place (`_misplaced`) are left out.
    """
    inks: dict[str, IndexInk] = {}
    seen: dict[str, list[IndexInk]] = {}
    unlocated: dict[str, str] = {}
    for code, flat in flats.items():
        try:
            inks[code] = locate_index(flat, code, darkest=darkest)
        except DeckCalibrationError as err:
            # The learned reader trains on every card through the deck's window; only the
            # templates need each card's glyphs, and they are averaged over the cards found.
            unlocated[code] = str(err)
            continue
        seen[code] = [inks[code], *_as_seen(flat, code, darkest)]
    for code in _misplaced(inks):
        box = inks.pop(code).rank_box
        seen.pop(code)
        unlocated[code] = (
            f"{code}: the rank-over-suit ink found at x {box[0]}, y {box[1]} ({box[2]}x{box[3]} px)"
            " is not where the other cards print their index"
        )
    return inks, seen, unlocated


def _check_located(inks: Mapping[str, IndexInk], unlocated: Mapping[str, str]) -> None:
    """Refuse a deck only when a rank or a suit has no card whose index was found at all.

    The templates of a rank (or suit) are the mean of its cards' glyphs: with none there is no
    template. The error names the cards of that rank or suit and why each was not found.
    """
    for chars, pick in ((RANK_CHARS, 0), (SUIT_CHARS, 1)):
        for ch in chars:
            codes = [c.code for c in DECK if c.code[pick] == ch]
            if not any(code in inks for code in codes):
                reasons = "; ".join(unlocated[code] for code in codes if code in unlocated)
                raise DeckCalibrationError(
                    f"no card of {'rank' if pick == 0 else 'suit'} {ch} shows an index this "
                    f"program can find: {reasons}"
                )


def calibrate_deck(
    directory: Path,
    *,
    model_cache: Path | None = None,
    progress: Progress | None = None,
    reader_seeds: Sequence[int] = SEEDS,
) -> tuple[DeckCalibration, DeckTemplates]:
    """Learn the deck from the 52 image files in `directory` (see `reference_images`).

    `model_cache`, `progress` and `reader_seeds` are passed to `learn_deck`.
    """
    paths = reference_images(directory)
    cards = {code: read_reference(path) for code, path in paths.items()}
    return learn_deck(cards, model_cache=model_cache, progress=progress, reader_seeds=reader_seeds)
