"""Deck calibration: learn the index window and rank/suit templates from 52 reference images.

Each reference is one flat, upright card, either cropped to its edges or lying on a plain
contrasting background, in a file named by its code (`AS.png`, `TD.jpg`). The index corner is
found on each card (decks differ: small or jumbo indices, other fonts), and the window that holds
every card's index becomes the profile's `index_window`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.corner_training import references_digest, train_index_model
from calibration.errors import DeckCalibrationError
from calibration.face_ink import PAPER_GROUND, Symbol, find_face_ink, same_layout, symbol
from calibration.glyphs import Image, IndexInk, aspect, find_index, normalise, standardise
from calibration.index_model import weights_digest
from calibration.profile import DeckCalibration, DeckTemplates, IndexModelInfo
from studio.cards import DECK, RANK_CHARS, SUIT_CHARS

CANON_SIZE = (200, 280)
"""Width and height, in pixels, of a card flattened for reading (63 x 88 mm at ~3.2 px/mm)."""
RANK_SIZE = (24, 32)
SUIT_SIZE = (24, 24)
_EXTENSIONS = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")
# Where an index may sit on any deck: the top-left 40% x 45% of the card.
_SEARCH = (0.4, 0.45)
_INSET = 3
_SEEN_HEIGHTS = (90, 110, 130, 155, 180, 215, 260)
LAYOUT_FIT = 0.7
"""Least correlation of a face's ink shape, either way up, with its own suit's crisp index
template to count as one of the card's printed symbols (a pip's shape differs a little from
the index suit's: the face reader's own bar, 0.85, is for telling suits apart)."""
# Card heights (px) whose look is learned: the bench's smallest cards are 120 px at 1080p and
# 90 px at 720p, and each level is compared only with indices of about its own sharpness.


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
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    _, mask = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    border = np.concatenate([mask[0], mask[-1], mask[:, 0], mask[:, -1]])
    h, w = gray.shape
    if float((border > 0).mean()) > 0.6:
        if w > h:
            raise DeckCalibrationError(f"{name}: the card lies sideways; photograph it upright")
        flat: Image = cv2.resize(image, CANON_SIZE, interpolation=cv2.INTER_AREA)
        return flat
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
    cw, ch = CANON_SIZE
    dst = np.array([[0, 0], [cw - 1, 0], [cw - 1, ch - 1], [0, ch - 1]], np.float32)
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    warped: Image = cv2.warpPerspective(image, m, CANON_SIZE, flags=cv2.INTER_AREA)
    return warped


def locate_index(card: Image, name: str = "card") -> IndexInk:
    """Find the index on a flattened card; boxes are in card pixels. Raises if none is found."""
    cw, ch = CANON_SIZE
    x1, y1 = round(_SEARCH[0] * cw), round(_SEARCH[1] * ch)
    region = card[_INSET:y1, _INSET:x1]
    ink = find_index(region)
    if ink is None:
        raise DeckCalibrationError(f"{name}: no rank-over-suit index found in the top-left corner")

    def shift(box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        return box[0] + _INSET, box[1] + _INSET, box[2], box[3]

    return IndexInk(
        ink.rank, ink.suit, shift(ink.rank_box), shift(ink.suit_box), ink.red, ink.sharpness
    )


def _as_seen(flat: Image, name: str) -> list[IndexInk]:
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
            out.append(locate_index(soft, name))
        except DeckCalibrationError:
            out.append(None)
    found: list[IndexInk] = []
    fallback = locate_index(flat, name)
    for ink in reversed(out):
        fallback = ink if ink is not None else fallback
        found.append(fallback)
    return found[::-1]


def reference_images(directory: Path) -> dict[str, Path]:
    """Map each of the 52 card codes to its image file in `directory`.

    Raises `DeckCalibrationError` naming missing cards or a card given twice.
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
        code = path.stem.upper()
        if len(code) == 3 and code.startswith("10"):
            code = "T" + code[2]
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
    """Read one reference image; raise `DeckCalibrationError` when it cannot be decoded."""
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise DeckCalibrationError(f"card image {path} is unreadable")
    out: Image = image.astype(np.uint8)
    return out


def learn_deck(
    cards: Mapping[str, Image], *, model_cache: Path | None = None
) -> tuple[DeckCalibration, DeckTemplates]:
    """Learn the deck from 52 flat upright card images keyed by code (`AS`...).

    Returns the deck geometry and its templates, with the learned index reader trained from the
    same cards (`calibration.corner_training`; a few seconds, cached per process by the
    references' hash, and across processes in `model_cache` when given). Raises
    `DeckCalibrationError` for a missing card or a card whose index cannot be located.
    """
    missing = [c.code for c in DECK if c.code not in cards]
    if missing:
        raise DeckCalibrationError(f"deck lacks {len(missing)} card(s): {' '.join(missing)}")
    inks: dict[str, IndexInk] = {}
    seen: dict[str, list[IndexInk]] = {}
    flats: dict[str, Image] = {}
    for card in DECK:
        flat = flatten_card(cards[card.code], card.code)
        flats[card.code] = flat
        inks[card.code] = locate_index(flat, card.code)
        seen[card.code] = [inks[card.code], *_as_seen(flat, card.code)]
    cw, ch = CANON_SIZE
    boxes = [b for ink in inks.values() for b in (ink.rank_box, ink.suit_box)]
    x0 = min(b[0] for b in boxes)
    y0 = min(b[1] for b in boxes)
    x1 = max(b[0] + b[2] for b in boxes)
    y1 = max(b[1] + b[3] for b in boxes)
    # A margin of a third of the glyph height absorbs a corner located a few pixels off.
    margin = 0.35 * float(np.median([ink.rank_box[3] for ink in inks.values()]))
    window = (
        max(0.0, (x0 - margin) / cw),
        max(0.0, (y0 - margin) / ch),
        min(0.5, (x1 + margin) / cw),
        min(0.5, (y1 + margin) / ch),
    )
    levels = len(_SEEN_HEIGHTS) + 1
    ranks = {
        r: [
            np.mean([normalise(seen[r + s][k].rank, RANK_SIZE) for s in SUIT_CHARS], axis=0)
            for k in range(levels)
        ]
        for r in RANK_CHARS
    }
    suits = {
        s: [
            np.mean([normalise(seen[r + s][k].suit, SUIT_SIZE) for r in RANK_CHARS], axis=0)
            for k in range(levels)
        ]
        for s in SUIT_CHARS
    }
    # Each level's typical index sharpness: a corner is compared with the levels nearest its own.
    level_sharpness = [
        round(float(np.median([seen[c.code][k].sharpness for c in DECK])), 3) for k in range(levels)
    ]
    red = [s for s in SUIT_CHARS if sum(inks[r + s].red for r in RANK_CHARS) > len(RANK_CHARS) / 2]
    window_px = (
        round(window[0] * cw),
        round(window[1] * ch),
        round(window[2] * cw),
        round(window[3] * ch),
    )
    model, samples = train_index_model(
        flats, window_px, list(RANK_CHARS), list(SUIT_CHARS), cache_dir=model_cache
    )
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
            r: float(np.mean([aspect(inks[r + s].rank_box) for s in SUIT_CHARS]))
            for r in RANK_CHARS
        },
        suit_aspect={
            s: float(np.mean([aspect(inks[r + s].suit_box) for r in RANK_CHARS]))
            for s in SUIT_CHARS
        },
        cards_used=len(inks),
        index_model=model_info,
        face_layouts=face_layouts(flats, window, {s: t[0] for s, t in suits.items()}),
    )
    templates = DeckTemplates(
        {k: [t.astype(np.float32) for t in v] for k, v in ranks.items()},
        {k: [t.astype(np.float32) for t in v] for k, v in suits.items()},
        model,
    )
    return deck, templates


def face_layouts(
    flats: Mapping[str, Image],
    window: tuple[float, float, float, float],
    suits: Mapping[str, npt.NDArray[Any]],
) -> dict[str, list[Symbol]]:
    """Where each rank prints its suit symbols (`calibration.face_ink.Symbol`), from the flats.

    A symbol is an ink shape of the face fitting its own suit's crisp template (`suits`, one
    per suit) at `LAYOUT_FIT` either way up. A rank is left out when its four suits do not print
    the same symbols in the same places, or print one off the paper (a court picture's symbol on
    its panel, which decides no black suit: `PAPER_GROUND`), so that only another card's pip
    could fill its place: no layout, no face read on a proposal.
    """
    templates = {suit: standardise(suits[suit]) for suit in SUIT_CHARS}
    out: dict[str, list[Symbol]] = {}
    for rank in RANK_CHARS:
        printed = []
        panel = False
        for suit, template in templates.items():
            flat = flats[rank + suit]
            found = []
            for ink in find_face_ink(flat, window):
                sample = normalise(ink.glyph, SUIT_SIZE)
                fit = max(float(standardise(g) @ template) for g in (sample, sample[::-1, ::-1]))
                if fit >= LAYOUT_FIT:
                    found.append(symbol(ink, flat.shape))
                    panel = panel or ink.ground > PAPER_GROUND
            printed.append(sorted(found))
        if not panel and printed[0] and all(same_layout(p, printed[0]) for p in printed[1:]):
            out[rank] = [(round(x, 4), round(y, 4), round(h, 4)) for x, y, h in printed[0]]
    return out


def calibrate_deck(
    directory: Path, *, model_cache: Path | None = None
) -> tuple[DeckCalibration, DeckTemplates]:
    """Learn the deck from the 52 image files in `directory` (see `reference_images`).

    `model_cache` is passed to `learn_deck`.
    """
    paths = reference_images(directory)
    cards = {code: read_reference(path) for code, path in paths.items()}
    return learn_deck(cards, model_cache=model_cache)
