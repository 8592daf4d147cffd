"""Whether a deck prints its index at all four corners, from its 52 references.

A four-index deck prints, besides the top-left index and its half turn at the bottom right, the
same index upright at the top right, as far from the right edge as the top-left one is from the
left edge, and its half turn at the bottom left. The profile records it
(`DeckCalibration.four_index`, `upper_right_window`), and the recognizer reads a whole card's
firm outline at those corners too (`drivers.camera.other_corners`).

The top-right index is read through the index window moved right by the index's own mirror
(`upper_right_window`): the index then sits in it where the top-left one sits in the deck's
window, which is what the reader learned. The deck's own learned reader decides, on the flat
references, whether that window holds the card's index: on a four-index deck it does; on a
two-index deck it holds a pip, a court's picture or bare paper, which the reader learned as
"none" or reads as any code but the card's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import cv2
import numpy as np

from calibration.glyphs import IndexInk
from drivers.camera.index_model import Image, IndexModel, window_tensor
from drivers.camera.tuning import PAST_EDGE_INSET

Window = tuple[float, float, float, float]

FOUR_INDEX_SHARE = 0.5
"""The share of the 52 references whose top-right window must read as the card itself. On the
first 8 generated tuning designs the four-index decks read 52, 37, 52 and 51 of 52 there (37: an
inset index in a wide window, whose right part reaches past the card's edge at the top right),
the two-index ones none: half the deck lies far from both."""


def upper_right_window(window: Window, inks: Iterable[IndexInk], width: int) -> Window:
    """The index window (shares of the card) moved to where the top-right index lies.

    `inks` are the located top-left indices (boxes in pixels of a card `width` wide): the index
    spans x0..x1 (medians), so its mirror at the top right spans width - x1..width - x0, and the
    window moves by the difference. The window may reach past the card's right edge (a wide
    window holding a narrow index): it is cut as it lies, as the top-left one is.
    """
    spans = [
        (
            min(i.rank_box[0], i.suit_box[0]),
            max(i.rank_box[0] + i.rank_box[2], i.suit_box[0] + i.suit_box[2]),
        )
        for i in inks
    ]
    x0 = float(np.median([a for a, _ in spans]))
    x1 = float(np.median([b for _, b in spans]))
    shift = (width - x1 - x0) / width
    return window[0] + shift, window[1], window[2] + shift, window[3]


def cut(card: Image, window: Window) -> Image:
    """`window` (shares) cut from a flat upright `card`.

    A window reaching past the card's right edge shows the paper `PAST_EDGE_INSET` inside the
    edge repeated there.
    """
    h, w = card.shape[:2]
    x0, y0 = round(window[0] * w), round(window[1] * h)
    x1, y1 = round(window[2] * w), round(window[3] * h)
    if x1 <= w:
        out: Image = card[y0:y1, x0:x1]
        return out
    end = w - round(PAST_EDGE_INSET * w)
    inside = card[y0:y1, x0:end]
    padded: Image = cv2.copyMakeBorder(inside, 0, 0, 0, x1 - end, cv2.BORDER_REPLICATE)
    return padded


def own_reads(flats: Mapping[str, Image], window: Window, network: IndexModel) -> int:
    """How many of `flats` (flat upright cards by code) read as their own code through `window`.

    `window` is in shares of the card; `network` reads each cut once (its best rank and suit,
    no bar: the count decides, not one read).
    """
    codes = list(flats)
    tensors = [window_tensor(cut(flats[c], window)) for c in codes]
    kept = [(c, t) for c, t in zip(codes, tensors, strict=True) if t is not None]
    if not kept:
        return 0
    pr, ps = network.probabilities(np.stack([t for _, t in kept]))
    named = (
        network.ranks[int(r.argmax())] + network.suits[int(s.argmax())]
        for r, s in zip(pr, ps, strict=True)
    )
    return sum(code == name for (code, _), name in zip(kept, named, strict=True))


def four_index_window(
    flats: Mapping[str, Image], window: Window, inks: Iterable[IndexInk], network: IndexModel
) -> Window | None:
    """The top-right index window of a four-index deck (`upper_right_window`), else None.

    None when the deck of `flats` does not print its index there (`FOUR_INDEX_SHARE`).
    """
    if not flats:
        return None
    width = next(iter(flats.values())).shape[1]
    right = upper_right_window(window, inks, width)
    return right if own_reads(flats, right, network) >= FOUR_INDEX_SHARE * len(flats) else None
