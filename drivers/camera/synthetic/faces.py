"""Flat, upright card images (faces and backs) drawn from a `CardDesign`, with rounded corners.

`render_face(card, design, height)` and `render_back(design, height)` return a BGR image and an
alpha mask (255 inside the rounded outline). Results are cached: a scene reuses them every frame.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.synthetic.designs import (
    BGR,
    CARD_HEIGHT_MM,
    CARD_WIDTH_MM,
    CardDesign,
    Design,
)
from studio.cards import Card, Rank, Suit

Image = npt.NDArray[Any]

_CORNER_RADIUS = 3.2 / CARD_HEIGHT_MM
_RED_SUITS = (Suit.DIAMONDS, Suit.HEARTS)
# Standard pip rows (fractions of the pip area) for 2..10; jacks to kings get a picture instead.
PIP_ROWS: dict[int, tuple[tuple[float, float], ...]] = {
    2: ((0.5, 0.0), (0.5, 1.0)),
    3: ((0.5, 0.0), (0.5, 0.5), (0.5, 1.0)),
    4: ((0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)),
    5: ((0.0, 0.0), (1.0, 0.0), (0.5, 0.5), (0.0, 1.0), (1.0, 1.0)),
    6: ((0.0, 0.0), (1.0, 0.0), (0.0, 0.5), (1.0, 0.5), (0.0, 1.0), (1.0, 1.0)),
    7: ((0.0, 0.0), (1.0, 0.0), (0.5, 0.25), (0.0, 0.5), (1.0, 0.5), (0.0, 1.0), (1.0, 1.0)),
    8: (
        (0.0, 0.0), (1.0, 0.0), (0.5, 0.25), (0.0, 0.5), (1.0, 0.5), (0.5, 0.75),
        (0.0, 1.0), (1.0, 1.0),
    ),
    9: (
        (0.0, 0.0), (1.0, 0.0), (0.0, 0.33), (1.0, 0.33), (0.5, 0.5), (0.0, 0.67),
        (1.0, 0.67), (0.0, 1.0), (1.0, 1.0),
    ),
    10: (
        (0.0, 0.0), (1.0, 0.0), (0.5, 0.17), (0.0, 0.33), (1.0, 0.33), (0.0, 0.67),
        (1.0, 0.67), (0.5, 0.83), (0.0, 1.0), (1.0, 1.0),
    ),
}  # fmt: skip


def card_width(height: int, width_mm: float = CARD_WIDTH_MM) -> int:
    """The pixel width of a card `height` pixels tall and `width_mm` wide (poker size: 63 mm)."""
    return round(height * width_mm / CARD_HEIGHT_MM)


def suit_colour(suit: Suit, design: CardDesign) -> BGR:
    """The ink colour of `suit` in `design` (red for diamonds and hearts, else black)."""
    return design.red if suit in _RED_SUITS else design.black


def draw_suit(img: Image, suit: Suit, cx: float, cy: float, size: float, colour: BGR) -> None:
    """Draw the suit symbol `size` pixels tall centred on (cx, cy), upright, anti-aliased."""

    def pt(x: float, y: float) -> tuple[int, int]:
        return round(cx + x * size), round(cy + y * size)

    def disc(x: float, y: float, r: float) -> None:
        cv2.circle(img, pt(x, y), max(1, round(r * size)), colour, -1, cv2.LINE_AA)

    def poly(points: list[tuple[float, float]]) -> None:
        arr = np.array([pt(x, y) for x, y in points], np.int32)
        cv2.fillPoly(img, [arr], colour, cv2.LINE_AA)

    if suit is Suit.DIAMONDS:
        poly([(0, -0.5), (0.36, 0), (0, 0.5), (-0.36, 0)])
    elif suit is Suit.HEARTS:
        disc(-0.22, -0.2, 0.25)
        disc(0.22, -0.2, 0.25)
        poly([(-0.46, -0.1), (0.46, -0.1), (0, 0.5)])
    elif suit is Suit.SPADES:
        disc(-0.22, 0.08, 0.23)
        disc(0.22, 0.08, 0.23)
        poly([(-0.44, 0.0), (0.44, 0.0), (0, -0.5)])
        poly([(0, 0.1), (-0.16, 0.5), (0.16, 0.5)])
    else:
        # A trefoil with clear notches between its lobes, as printed clubs have.
        disc(0, -0.29, 0.2)
        disc(-0.28, 0.07, 0.2)
        disc(0.28, 0.07, 0.2)
        poly([(0, -0.1), (-0.09, 0.1), (0.09, 0.1)])
        poly([(0, 0.0), (-0.15, 0.5), (0.15, 0.5)])


def _rank_text(rank: Rank) -> str:
    return "10" if rank is Rank.TEN else rank.char


def _draw_rank(
    img: Image, text: str, box: tuple[int, int, int, int], design: CardDesign, colour: BGR
) -> None:
    """Fit `text` into box (x, y, w, h): full height, condensed only when it is too wide."""
    x, y, w, h = box
    thick = max(1, round(design.stroke * img.shape[0]))
    (tw, th), base = cv2.getTextSize(text, design.font, 4.0, thick * 2)
    canvas = np.full((th + base + 8 * thick, tw + 8 * thick), 255, np.uint8)
    cv2.putText(
        canvas, text, (4 * thick, th + 4 * thick), design.font, 4.0, 0, thick * 2, cv2.LINE_AA
    )
    ys, xs = np.nonzero(canvas < 128)
    glyph = canvas[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    gw = min(w, round(glyph.shape[1] * h / glyph.shape[0]))
    scaled = cv2.resize(glyph, (gw, h), interpolation=cv2.INTER_AREA)
    ink = (255 - scaled.astype(np.float32)) / 255.0
    x0 = x + (w - gw) // 2
    region = img[y : y + h, x0 : x0 + gw].astype(np.float32)
    colour_arr = np.array(colour, np.float32)
    region = region * (1 - ink[..., None]) + colour_arr * ink[..., None]
    img[y : y + h, x0 : x0 + gw] = region.astype(np.uint8)


def _draw_index(img: Image, card: Card, design: CardDesign, colour: BGR) -> None:
    """Draw the index (rank over suit) at the top-left corner of an upright card image."""
    height, width = img.shape[:2]
    x = round(design.index_left_w * width)
    y = round(design.index_top * height)
    w = round(design.index_box_w * width)
    h = round(design.index_height * height)
    _draw_rank(img, _rank_text(card.rank), (x, y, w, h), design, colour)
    size = design.suit_size * height
    draw_suit(img, card.suit, x + w / 2, y + h + design.gap * height + size / 2, size, colour)


def _draw_centre(img: Image, card: Card, design: CardDesign, colour: BGR) -> None:
    """Pips, one large symbol, or a framed picture for J/Q/K, kept clear of the index columns."""
    height, width = img.shape[:2]
    left, right = 0.3 * width, 0.7 * width
    top, bottom = 0.2 * height, 0.8 * height
    if card.rank in (Rank.JACK, Rank.QUEEN, Rank.KING):
        x0, x1 = round(0.29 * width), round(0.71 * width)
        y0, y1 = round(0.16 * height), round(0.84 * height)
        cv2.rectangle(img, (x0, y0), (x1, y1), (60, 170, 215), -1)
        cv2.rectangle(img, (x0, y0), (x1, y1), colour, max(1, height // 120))
        mid = (y0 + y1) // 2
        cv2.rectangle(
            img, (x0 + 8, mid - height // 40), (x1 - 8, mid + height // 40), (150, 60, 40), -1
        )
        text = card.rank.char
        scale = height / 160
        (tw, th), _ = cv2.getTextSize(text, design.font, scale, max(1, height // 90))
        org = ((x0 + x1 - tw) // 2, (y0 + mid + th) // 2)
        cv2.putText(img, text, org, design.font, scale, colour, max(1, height // 90), cv2.LINE_AA)
        draw_suit(img, card.suit, (x0 + x1) / 2, (mid + y1) / 2, 0.14 * height, colour)
        return
    if card.rank is Rank.ACE or design.centre == "large":
        draw_suit(img, card.suit, width / 2, height / 2, 0.3 * height, colour)
        return
    size = 0.11 * height
    for fx, fy in PIP_ROWS[card.rank.value + 2]:
        draw_suit(
            img, card.suit, left + fx * (right - left), top + fy * (bottom - top), size, colour
        )


def rounded_alpha(height: int, width: int) -> Image:
    """A card's alpha mask, `height` x `width`: 255 inside the rounded-corner outline."""
    alpha = np.zeros((height, width), np.uint8)
    r = max(2, round(_CORNER_RADIUS * height))
    cv2.rectangle(alpha, (r, 0), (width - 1 - r, height - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (width - 1, height - 1 - r), 255, -1)
    for cx, cy in (
        (r, r),
        (width - 1 - r, r),
        (r, height - 1 - r),
        (width - 1 - r, height - 1 - r),
    ):
        cv2.circle(alpha, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return alpha


@lru_cache(maxsize=512)
def render_face(card: Card, design: Design, height: int = 440) -> tuple[Image, Image]:
    """The upright face of `card` in `design`, `height` pixels tall: (BGR image, alpha mask).

    A generated design draws itself (`DrawnDesign.face`); the two hand-set designs are drawn
    here. The returned arrays are shared by the cache: copy before drawing on them.
    """
    if isinstance(design, CardDesign):
        img, alpha = _classic_face(card, design, height)
    else:
        img, alpha = design.face(card, height)
    img.setflags(write=False)
    alpha.setflags(write=False)
    return img, alpha


def _classic_face(card: Card, design: CardDesign, height: int) -> tuple[Image, Image]:
    """A hand-set design's face: the index at the top-left and, turned, at the bottom-right."""
    width = card_width(height, design.width_mm)
    img = np.zeros((height, width, 3), np.uint8)
    img[:] = design.paper
    colour = suit_colour(card.suit, design)
    _draw_centre(img, card, design, colour)
    _draw_index(img, card, design, colour)
    img[:] = np.ascontiguousarray(np.rot90(img, 2))
    _draw_index(img, card, design, colour)
    return img, rounded_alpha(height, width)


@lru_cache(maxsize=64)
def render_back(design: Design, height: int = 440) -> tuple[Image, Image]:
    """The back of a card in `design`, upright: (BGR image, alpha mask), shared by the cache."""
    if isinstance(design, CardDesign):
        img, alpha = _classic_back(design, height)
    else:
        img, alpha = design.back(height)
    img.setflags(write=False)
    alpha.setflags(write=False)
    return img, alpha


def _classic_back(design: CardDesign, height: int) -> tuple[Image, Image]:
    """A hand-set design's back: a white border around a dense coloured pattern."""
    width = card_width(height, design.width_mm)
    img = np.zeros((height, width, 3), np.uint8)
    img[:] = design.paper
    m = round(0.055 * card_width(height))  # a fixed mm in, whatever the card's width
    inner = np.zeros((height - 2 * m, width - 2 * m, 3), np.uint8)
    inner[:] = design.back_colour
    ih, iw = inner.shape[:2]
    light = tuple(min(255, c + 90) for c in design.back_colour)
    step = max(6, height // 22)
    if design.back == "lattice":
        for k in range(-ih, iw + ih, step):
            cv2.line(inner, (k, 0), (k + ih, ih), light, 2, cv2.LINE_AA)
            cv2.line(inner, (k, 0), (k - ih, ih), light, 2, cv2.LINE_AA)
    else:
        for r in range(step, height, step):
            cv2.circle(inner, (iw // 2, ih // 2), r, light, 2, cv2.LINE_AA)
        for yy in range(step // 2, ih, step):
            for xx in range(step // 2, iw, step):
                cv2.circle(inner, (xx, yy), max(1, step // 6), light, -1, cv2.LINE_AA)
    img[m : height - m, m : width - m] = inner
    return img, rounded_alpha(height, width)
