"""Card designs for the synthetic renderer: lettering, index size and placement, colours, back.

Two designs differ where real decks differ: a classic deck with a small Hershey Simplex index and
pips, and a jumbo-index deck with a tall condensed Triplex index and one large centre symbol.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import cv2
import numpy.typing as npt

if TYPE_CHECKING:
    from studio.cards import Card

CARD_WIDTH_MM = 63.0
"""Poker-size card width, every design's unless it states its own (`width_mm`)."""
CARD_HEIGHT_MM = 88.0
"""Every card's height: decks differ in width (bridge size is 57 mm wide), not in height."""

BGR = tuple[int, int, int]
Image = npt.NDArray[Any]
"""A BGR (or single-channel mask) image."""


@dataclass(frozen=True, slots=True)
class CardDesign:
    """How one deck looks. Sizes are fractions of the card's height unless named `_w` (width).

    `index_box_w`/`index_height`: the box the rank is fitted into (condensed when too wide);
    `index_left_w`/`index_top`: the index's top-left corner; `suit_size`: the index suit's size;
    `centre`: "pips" (classic layout) or "large" (one big symbol); `back`: "lattice" or "rings";
    `width_mm`: the card's width (its height is `CARD_HEIGHT_MM`), poker size unless stated.
    """

    name: str
    font: int
    stroke: float
    index_box_w: float
    index_height: float
    index_left_w: float
    index_top: float
    suit_size: float
    gap: float
    red: BGR
    black: BGR
    paper: BGR
    centre: str
    back: str
    back_colour: BGR
    width_mm: float = CARD_WIDTH_MM


CLASSIC = CardDesign(
    name="classic",
    font=cv2.FONT_HERSHEY_SIMPLEX,
    stroke=0.012,
    index_box_w=0.16,
    index_height=0.085,
    index_left_w=0.045,
    index_top=0.045,
    suit_size=0.06,
    gap=0.018,
    red=(38, 30, 205),
    black=(25, 25, 25),
    paper=(246, 248, 250),
    centre="pips",
    back="lattice",
    back_colour=(40, 30, 170),
)

JUMBO = CardDesign(
    name="jumbo",
    font=cv2.FONT_HERSHEY_TRIPLEX,
    stroke=0.02,
    index_box_w=0.2,
    index_height=0.15,
    index_left_w=0.05,
    index_top=0.04,
    suit_size=0.085,
    gap=0.02,
    red=(60, 10, 160),
    black=(45, 25, 10),
    paper=(238, 244, 245),
    centre="large",
    back="rings",
    back_colour=(130, 60, 20),
)

DESIGNS: dict[str, CardDesign] = {d.name: d for d in (CLASSIC, JUMBO)}
"""Every design by name; tests and the bench run over all of them."""


class DrawnDesign(Hashable, Protocol):
    """A design that draws its own cards (the generated decks of `deckgen`): hashable, named.

    `face(card, height)` and `back(height)` return an upright (BGR image, alpha mask) pair
    `height` pixels tall and `card_width(height, width_mm)` wide; `name` is unique among designs.
    """

    @property
    def name(self) -> str:
        """The design's unique name."""
        ...

    @property
    def width_mm(self) -> float:
        """The card's width in mm (its height is `CARD_HEIGHT_MM`): 63 for poker size."""
        ...

    def face(self, card: Card, height: int) -> tuple[Image, Image]:
        """The upright face of `card`, `height` px tall: (BGR image, alpha mask)."""
        ...

    def back(self, height: int) -> tuple[Image, Image]:
        """The upright back, `height` px tall: (BGR image, alpha mask)."""
        ...


Design = CardDesign | DrawnDesign
"""Anything a scene, reference deck or renderer accepts: one of the two hand-set designs
(`CLASSIC`, `JUMBO`) or a generated design (`deckgen.design(seed)`)."""
