"""Generated deck designs: `design(seed)` draws one distinct, deterministic deck from parameters.

A design fixes the index typeface (a real font from a Debian font package, rendered with Pillow),
the index size (regular, or jumbo reaching ~45% down the card), its placement (tight, inset, low),
two or four indices, the pip outline of each suit, court art (procedural figure, panel or frames,
in several colours), paper tint, border lines and the back. Every card is drawn here from those
parameters; no card art is taken from elsewhere. A design prints its suits in its own red and
near-black; `with_inks` prints it in another of the ink sets of `INKS` (a four-colour deck, a
dark blue "black", an orange "red"), as `with_aspect` prints it on cards of another shape.
`FONTS` lists the typefaces; a missing font file raises `MissingFontError` naming the Debian
package to install.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image as PILImage
from PIL import ImageDraw, ImageFont

from drivers.camera.synthetic.designs import BGR, CARD_HEIGHT_MM, CARD_WIDTH_MM, Image
from drivers.camera.synthetic.faces import PIP_ROWS, card_width, draw_suit, rounded_alpha
from studio.cards import Card, Rank, Suit

_TT = Path("/usr/share/fonts/truetype")
_OT = Path("/usr/share/fonts/opentype")


@dataclass(frozen=True, slots=True)
class Font:
    """One index typeface: its file, the Debian package holding it, and its kind."""

    path: Path
    package: str
    kind: str  # "serif", "sans", "condensed", "bold", "mono"


def _f(rel: str, package: str, kind: str) -> Font:
    root = _OT if rel.endswith(".otf") else _TT
    return Font(root / rel, package, kind)


FONTS: tuple[Font, ...] = (
    _f("dejavu/DejaVuSans.ttf", "fonts-dejavu-core", "sans"),
    _f("dejavu/DejaVuSans-Bold.ttf", "fonts-dejavu-core", "bold"),
    _f("dejavu/DejaVuSerif.ttf", "fonts-dejavu-core", "serif"),
    _f("dejavu/DejaVuSerif-Bold.ttf", "fonts-dejavu-core", "bold"),
    _f("dejavu/DejaVuSansCondensed-Bold.ttf", "fonts-dejavu-extra", "condensed"),
    _f("dejavu/DejaVuSerifCondensed.ttf", "fonts-dejavu-extra", "condensed"),
    _f("liberation2/LiberationSans-Regular.ttf", "fonts-liberation2", "sans"),
    _f("liberation2/LiberationSans-Bold.ttf", "fonts-liberation2", "bold"),
    _f("liberation2/LiberationSerif-Regular.ttf", "fonts-liberation2", "serif"),
    _f("liberation2/LiberationSerif-Bold.ttf", "fonts-liberation2", "bold"),
    _f("liberation2/LiberationMono-Bold.ttf", "fonts-liberation2", "mono"),
    _f("freefont/FreeSans.ttf", "fonts-freefont-ttf", "sans"),
    _f("freefont/FreeSerifBold.ttf", "fonts-freefont-ttf", "bold"),
    _f("freefont/FreeSerif.ttf", "fonts-freefont-ttf", "serif"),
    _f("crosextra/Carlito-Regular.ttf", "fonts-crosextra-carlito", "sans"),
    _f("crosextra/Carlito-Bold.ttf", "fonts-crosextra-carlito", "bold"),
    _f("crosextra/Caladea-Bold.ttf", "fonts-crosextra-caladea", "serif"),
    _f("noto/NotoSans-Bold.ttf", "fonts-noto-core", "bold"),
    _f("noto/NotoSerif-Regular.ttf", "fonts-noto-core", "serif"),
    _f("noto/NotoSansDisplay-Regular.ttf", "fonts-noto-core", "sans"),
    _f("urw-base35/NimbusSansNarrow-Bold.otf", "fonts-urw-base35", "condensed"),
    _f("urw-base35/NimbusSansNarrow-Regular.otf", "fonts-urw-base35", "condensed"),
    _f("urw-base35/NimbusRoman-Bold.otf", "fonts-urw-base35", "serif"),
    _f("urw-base35/C059-Bold.otf", "fonts-urw-base35", "serif"),
    _f("urw-base35/P052-Roman.otf", "fonts-urw-base35", "serif"),
    _f("urw-base35/URWGothic-Demi.otf", "fonts-urw-base35", "bold"),
    _f("urw-base35/URWBookman-Demi.otf", "fonts-urw-base35", "serif"),
)
"""The index typefaces a design draws from (27: serif, sans, condensed, bold, mono)."""

PIP_SOURCES: tuple[str, ...] = (
    "drawn",
    "drawn-slim",
    "dejavu/DejaVuSans.ttf",
    "freefont/FreeSerif.ttf",
    "freefont/FreeSans.ttf",
)
"""Suit outlines: two drawn shapes and the suit glyphs of three fonts (each suit differs)."""

SIZES = ("regular", "large", "jumbo")
PLACEMENTS = ("tight", "inset", "low")
COURTS = ("figure", "panel", "frames")
BACKS = ("lattice", "rings", "stripes", "dots")

TWO_COLOUR = "two-colour"
INKS: dict[str, dict[Suit, BGR]] = {
    TWO_COLOUR: {},
    # The common four-colour deck: clubs green, diamonds blue; hearts and spades keep the
    # design's red and near-black.
    "four-colour": {Suit.CLUBS: (50, 125, 0), Suit.DIAMONDS: (180, 80, 0)},
    # Two-colour decks sold with a dark navy or a dark brown for black, or an orange or a pink
    # for red (each a plausible printed ink, BGR).
    "blue-black": {Suit.CLUBS: (95, 45, 25), Suit.SPADES: (95, 45, 25)},
    "brown-black": {Suit.CLUBS: (20, 45, 80), Suit.SPADES: (20, 45, 80)},
    "orange-red": {Suit.DIAMONDS: (25, 110, 240), Suit.HEARTS: (25, 110, 240)},
    "pink-red": {Suit.DIAMONDS: (125, 65, 225), Suit.HEARTS: (125, 65, 225)},
}
"""Named suit ink sets (`with_inks`): each suit it names is printed in that ink (BGR), the others
in the design's own red (diamonds, hearts) or near-black (clubs, spades). `TWO_COLOUR`, every
design's own, names none."""


class MissingFontError(FileNotFoundError):
    """A typeface file is not installed; the message names the Debian package."""


@dataclass(frozen=True, slots=True)
class GeneratedDesign:
    """One generated deck. Fractions are of the card's height, or of its width when `_w`.

    The index is the box (`index_left_w`, `index_top`, `index_box_w`, `index_bottom - index_top`):
    the rank fills `rank_height`, the suit `suit_size` below it after `gap`. `width_mm` is the
    card's width (poker size, 63 mm, unless `with_aspect` gave it another shape); `inks` names
    the set of `INKS` its suits are printed in (the design's own red and black unless
    `with_inks` gave it another).
    """

    seed: int
    font: Font
    size: str
    placement: str
    four_index: bool
    rank_height: float
    index_box_w: float
    index_left_w: float
    index_top: float
    suit_size: float
    gap: float
    pips: str
    court: str
    court_colours: tuple[BGR, BGR, BGR]
    red: BGR
    black: BGR
    paper: BGR
    border: int
    border_colour: BGR
    back_pattern: str
    back_colour: BGR
    width_mm: float = CARD_WIDTH_MM
    inks: str = TWO_COLOUR

    @property
    def name(self) -> str:
        """A unique name: `gen-<seed>`, then `-a<aspect>`, `-<inks>` where not the design's own."""
        name = f"gen-{self.seed}"
        if self.width_mm != CARD_WIDTH_MM:
            name += f"-a{self.aspect:.3f}"
        return name if self.inks == TWO_COLOUR else f"{name}-{self.inks}"

    def ink(self, suit: Suit) -> BGR:
        """The ink `suit` is printed in: the ink set's, else the design's red or near-black."""
        own = self.red if suit in (Suit.DIAMONDS, Suit.HEARTS) else self.black
        return INKS[self.inks].get(suit, own)

    @property
    def aspect(self) -> float:
        """The card's height over its width: 1.397 poker size, 1.544 bridge size."""
        return CARD_HEIGHT_MM / self.width_mm

    @property
    def index_bottom(self) -> float:
        """How far down the card (fraction of its height) the top-left index reaches."""
        return self.index_top + self.rank_height + self.gap + self.suit_size

    def index_boxes(self, height: int) -> tuple[tuple[int, int, int, int], ...]:
        """Pixel boxes (x0, y0, x1, y1) of every index on an upright card `height` px tall."""
        width = card_width(height, self.width_mm)
        x0 = round(self.index_left_w * width)
        x1 = x0 + round(self.index_box_w * width)
        y0 = round(self.index_top * height)
        y1 = round(self.index_bottom * height) + 1
        boxes = [(x0, y0, x1, y1), (width - x1, height - y1, width - x0, height - y0)]
        if self.four_index:
            boxes += [(width - x1, y0, width - x0, y1), (x0, height - y1, x1, height - y0)]
        return tuple(boxes)

    def face(self, card: Card, height: int) -> tuple[Image, Image]:
        """The upright face of `card`, `height` px tall: (BGR image, alpha mask)."""
        return _face(self, card, height)

    def back(self, height: int) -> tuple[Image, Image]:
        """The back of a card, `height` px tall: (BGR image, alpha mask)."""
        return _back(self, height)


def _colour(rng: np.random.Generator, low: int, high: int) -> BGR:
    b, g, r = (int(v) for v in rng.integers(low, high, 3))
    return b, g, r


def with_aspect(design: GeneratedDesign, aspect: float) -> GeneratedDesign:
    """`design` printed on cards of another shape, `aspect` their height over their width.

    The height stays `CARD_HEIGHT_MM`; the width is `CARD_HEIGHT_MM / aspect` (88/57 for bridge
    size), and every drawn part keeps its share of the height or the width.
    """
    return replace(design, width_mm=CARD_HEIGHT_MM / aspect)


def with_inks(design: GeneratedDesign, inks: str) -> GeneratedDesign:
    """`design` with its suits printed in the ink set `inks` of `INKS` (e.g. "four-colour").

    Everything else (paper, court art, borders, back) stays the design's own.
    """
    if inks not in INKS:
        raise ValueError(f"no ink set {inks!r}: one of {', '.join(INKS)}")
    return replace(design, inks=inks)


def design(seed: int) -> GeneratedDesign:
    """The deck design drawn from `seed`: the same seed always gives the same design."""
    rng = np.random.default_rng([0xDEC, seed])
    size = SIZES[int(rng.integers(len(SIZES)))]
    placement = PLACEMENTS[int(rng.integers(len(PLACEMENTS)))]
    rank_height = {"regular": (0.065, 0.095), "large": (0.1, 0.15), "jumbo": (0.2, 0.27)}[size]
    rank_h = float(rng.uniform(*rank_height))
    suit_size = (
        float(rng.uniform(0.5, 0.75) * rank_h) if size != "jumbo" else float(rng.uniform(0.1, 0.14))
    )
    left, top = {
        "tight": ((0.025, 0.04), (0.02, 0.035)),
        "inset": ((0.06, 0.09), (0.05, 0.07)),
        "low": ((0.035, 0.06), (0.09, 0.13)),
    }[placement]
    top_f = float(rng.uniform(*top))
    if size == "jumbo":
        top_f = min(top_f, 0.05)
    box_w = float(rng.uniform(0.13, 0.17) if size == "regular" else rng.uniform(0.17, 0.22))
    red = (int(rng.integers(10, 70)), int(rng.integers(0, 50)), int(rng.integers(150, 225)))
    black = _colour(rng, 0, 55)
    paper = (
        int(rng.integers(215, 252)),
        int(rng.integers(228, 253)),
        int(rng.integers(238, 256)),
    )
    return GeneratedDesign(
        seed=seed,
        font=FONTS[int(rng.integers(len(FONTS)))],
        size=size,
        placement=placement,
        four_index=bool(rng.random() < 0.3),
        rank_height=rank_h,
        index_box_w=box_w,
        index_left_w=float(rng.uniform(*left)),
        index_top=top_f,
        suit_size=suit_size,
        gap=float(rng.uniform(0.008, 0.025)),
        pips=PIP_SOURCES[int(rng.integers(len(PIP_SOURCES)))],
        court=COURTS[int(rng.integers(len(COURTS)))],
        court_colours=(_colour(rng, 30, 230), _colour(rng, 30, 230), _colour(rng, 30, 230)),
        red=red,
        black=black,
        paper=paper,
        border=int(rng.integers(0, 3)),
        border_colour=_colour(rng, 20, 200),
        back_pattern=BACKS[int(rng.integers(len(BACKS)))],
        back_colour=_colour(rng, 20, 170),
    )


@lru_cache(maxsize=4096)
def _glyph(font_path: Path, text: str) -> Image:
    """The ink (0..1 float) of `text` in the font, cropped to its bounding box, ~200 px tall."""
    if not font_path.is_file():
        raise MissingFontError(f"font {font_path} is not installed (apt-get install its package)")
    font = ImageFont.truetype(str(font_path), 200)
    left, top, right, bottom = (int(v) for v in font.getbbox(text))
    canvas = PILImage.new("L", (right - left + 20, bottom - top + 20), 0)
    ImageDraw.Draw(canvas).text((10 - left, 10 - top), text, fill=255, font=font)
    ink = np.asarray(canvas, np.float32) / 255.0
    ys, xs = np.nonzero(ink > 0.05)
    out: Image = ink[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    return out


def _stamp(img: Image, ink: Image, x: float, y: float, w: int, h: int, colour: BGR) -> None:
    """Blend `ink` resized to (w, h) with its top-left at (x, y) into `img`, clipped."""
    if w < 1 or h < 1:
        return
    scaled = cv2.resize(ink, (w, h), interpolation=cv2.INTER_AREA)[..., None]
    x0, y0 = round(x), round(y)
    x1, y1 = min(img.shape[1], x0 + w), min(img.shape[0], y0 + h)
    if x0 < 0 or y0 < 0 or x1 <= x0 or y1 <= y0:
        return
    a = scaled[: y1 - y0, : x1 - x0]
    region = img[y0:y1, x0:x1].astype(np.float32)
    img[y0:y1, x0:x1] = (region * (1 - a) + np.array(colour, np.float32) * a).astype(np.uint8)


_SUIT_CHARS = {
    Suit.SPADES: "\u2660",
    Suit.HEARTS: "\u2665",
    Suit.DIAMONDS: "\u2666",
    Suit.CLUBS: "\u2663",
}


def _suit(img: Image, d: GeneratedDesign, suit: Suit, cx: float, cy: float, size: float) -> None:
    """A suit symbol `size` px tall centred on (cx, cy), in the design's pip outline."""
    colour = d.ink(suit)
    if d.pips == "drawn":
        draw_suit(img, suit, cx, cy, size, colour)
        return
    if d.pips == "drawn-slim":
        # The drawn outline, narrowed: a slimmer diamond, taller heart and spade.
        layer = np.zeros((round(size * 1.2) + 4, round(size * 1.2) + 4, 3), np.uint8)
        draw_suit(layer, suit, layer.shape[1] / 2, layer.shape[0] / 2, size, (255, 255, 255))
        ink = layer[..., 0].astype(np.float32) / 255.0
        ys, xs = np.nonzero(ink > 0.05)
        ink = ink[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
        w = max(1, round(ink.shape[1] * 0.8))
        _stamp(img, ink, cx - w / 2, cy - ink.shape[0] / 2, w, ink.shape[0], colour)
        return
    ink = _glyph(_TT / d.pips, _SUIT_CHARS[suit])
    h = max(1, round(size))
    w = max(1, round(ink.shape[1] * h / ink.shape[0]))
    _stamp(img, ink, cx - w / 2, cy - h / 2, w, h, colour)


def _index(img: Image, d: GeneratedDesign, card: Card, x0: int, y0: int) -> None:
    """Rank over suit, the box's top-left at (x0, y0), on an upright card image."""
    height, width = img.shape[:2]
    colour = d.ink(card.suit)
    text = "10" if card.rank is Rank.TEN else card.rank.char
    ink = _glyph(d.font.path, text)
    box_w = round(d.index_box_w * width)
    h = max(2, round(d.rank_height * height))
    w = min(box_w, max(1, round(ink.shape[1] * h / ink.shape[0])))
    _stamp(img, ink, x0 + (box_w - w) / 2, y0, w, h, colour)
    size = d.suit_size * height
    cy = y0 + h + d.gap * height + size / 2
    _suit(img, d, card.suit, x0 + box_w / 2, cy, size)


def _court(img: Image, d: GeneratedDesign, card: Card, box: tuple[int, int, int, int]) -> None:
    """Court art inside box (x0, y0, x1, y1): a figure, a panel, or nested frames."""
    x0, y0, x1, y1 = box
    height = img.shape[0]
    colour = d.ink(card.suit)
    c0, c1, c2 = d.court_colours
    line = max(1, height // 150)
    rng = np.random.default_rng([d.seed, *card.code.encode()])
    cx, mid = (x0 + x1) // 2, (y0 + y1) // 2
    if d.court == "panel":
        cv2.rectangle(img, (x0, y0), (x1, y1), c0, -1)
        cv2.rectangle(img, (x0, mid - height // 30), (x1, mid + height // 30), c1, -1)
    elif d.court == "frames":
        for k, c in enumerate((c0, c1, c2)):
            inset = k * max(2, height // 60)
            cv2.rectangle(img, (x0 + inset, y0 + inset), (x1 - inset, y1 - inset), c, line * 2)
    else:
        cv2.rectangle(img, (x0, y0), (x1, y1), c2, -1)
        for top, sign in ((y0, 1), (y1, -1)):
            # A figure from each end, mirrored as court cards are: head, shoulders, crown.
            head = top + sign * (y1 - y0) // 6
            r = max(2, (x1 - x0) // 8)
            cv2.ellipse(img, (cx, head), (r, round(r * 1.2)), 0, 0, 360, c0, -1, cv2.LINE_AA)
            body = np.array(
                [[x0 + line * 3, mid], [x1 - line * 3, mid],
                 [cx + r * 2, head + sign * r], [cx - r * 2, head + sign * r]], np.int32
            )  # fmt: skip
            cv2.fillPoly(img, [body], c1, cv2.LINE_AA)
            for _ in range(3):
                px = int(rng.integers(x0 + line * 4, x1 - line * 4))
                py = int(rng.integers(min(head, mid), max(head, mid) + 1))
                cv2.circle(img, (px, py), max(1, r // 3), c0, -1, cv2.LINE_AA)
    cv2.rectangle(img, (x0, y0), (x1, y1), colour, line)
    ink = _glyph(d.font.path, card.rank.char)
    h = max(2, round(0.1 * height))
    w = max(1, round(ink.shape[1] * h / ink.shape[0]))
    _stamp(img, ink, x0 + line * 3, y0 + line * 3, w, h, colour)
    _suit(
        img,
        d,
        card.suit,
        x1 - line * 3 - 0.05 * height,
        y1 - line * 3 - 0.05 * height,
        0.09 * height,
    )


def _face(d: GeneratedDesign, card: Card, height: int) -> tuple[Image, Image]:
    width = card_width(height, d.width_mm)
    img = np.zeros((height, width, 3), np.uint8)
    img[:] = d.paper
    if d.border:
        # Border lines and the back's paper ring lie a fixed distance (mm) in from the edge,
        # a share of a poker card's width: on a narrower card a share of its own width would
        # raise the top border into a tight index.
        m = round(0.03 * card_width(height))
        cv2.rectangle(
            img, (m, m), (width - 1 - m, height - 1 - m), d.border_colour, max(1, height // 200)
        )
        if d.border == 2:
            m2 = m + max(2, height // 100)
            cv2.rectangle(img, (m2, m2), (width - 1 - m2, height - 1 - m2), d.border_colour, 1)
    # The centre keeps clear of the index columns (and of the four-index deck's upper corners).
    right_of_index = d.index_left_w + d.index_box_w + 0.04
    left, right = max(0.3, right_of_index) * width, min(0.7, 1 - right_of_index) * width
    clear = d.index_bottom + 0.03 if d.four_index else 0.17
    top, bottom = max(0.2, clear) * height, min(0.8, 1 - clear) * height
    boxes = d.index_boxes(height)
    _index(img, d, card, boxes[0][0], boxes[0][1])
    if d.four_index:
        _index(img, d, card, boxes[2][0], boxes[2][1])
    img = np.ascontiguousarray(np.rot90(img, 2))
    _index(img, d, card, boxes[0][0], boxes[0][1])
    if d.four_index:
        _index(img, d, card, boxes[2][0], boxes[2][1])
    # The centre is drawn last, upright, after the half turn that placed the second indices.
    if card.rank in (Rank.JACK, Rank.QUEEN, Rank.KING):
        x0, x1 = round(left - 0.01 * width), round(right + 0.01 * width)
        _court(img, d, card, (x0, round(top - 0.04 * height), x1, round(bottom + 0.04 * height)))
    elif card.rank is Rank.ACE or d.size == "jumbo":
        _suit(img, d, card.suit, width / 2, height / 2, min(0.3 * height, 0.9 * (right - left)))
    else:
        size = min(0.11 * height, (bottom - top) / 4.5, (right - left) / 2.2)
        for fx, fy in PIP_ROWS[card.rank.value + 2]:
            _suit(img, d, card.suit, left + fx * (right - left), top + fy * (bottom - top), size)
    return img, rounded_alpha(height, width)


def _back(d: GeneratedDesign, height: int) -> tuple[Image, Image]:
    width = card_width(height, d.width_mm)
    img = np.zeros((height, width, 3), np.uint8)
    img[:] = d.paper
    m = round(0.055 * card_width(height))  # in mm, as the face's border (`_face`)
    inner = np.zeros((height - 2 * m, width - 2 * m, 3), np.uint8)
    inner[:] = d.back_colour
    ih, iw = inner.shape[:2]
    light = tuple(min(255, c + 90) for c in d.back_colour)
    step = max(6, height // 22)
    if d.back_pattern == "lattice":
        for k in range(-ih, iw + ih, step):
            cv2.line(inner, (k, 0), (k + ih, ih), light, 2, cv2.LINE_AA)
            cv2.line(inner, (k, 0), (k - ih, ih), light, 2, cv2.LINE_AA)
    elif d.back_pattern == "rings":
        for r in range(step, height, step):
            cv2.circle(inner, (iw // 2, ih // 2), r, light, 2, cv2.LINE_AA)
    elif d.back_pattern == "stripes":
        for k in range(0, iw + ih, step):
            cv2.line(inner, (k, 0), (k - ih, ih), light, max(1, step // 3), cv2.LINE_AA)
    else:
        for yy in range(step // 2, ih, step):
            for xx in range(step // 2, iw, step):
                cv2.circle(inner, (xx, yy), max(1, step // 4), light, -1, cv2.LINE_AA)
    img[m : height - m, m : width - m] = inner
    return img, rounded_alpha(height, width)
