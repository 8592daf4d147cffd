"""A four-index deck's other two index corners, read as the card seen in a mirror.

A four-index deck (`DeckCalibration.four_index`) prints its index upright at the top right too,
and its half turn at the bottom left. The recognizer reads a corner through a quad whose first
corner is the index corner and whose first side runs along the card's top (`finder.TURNED`);
for the top right that is the card's corners taken the other way round (`MIRRORED`): the quad
runs anticlockwise, maps the card mirrored, and the window cut through it (at the deck's
`upper_right_window` mirrored, `mirror_window`) is flipped back to the print as it lies.

Everything that moves an outline about its read corner (the moved cuts, the cut-off guard's
outline moved out toward the card's two edges there) then works at the top right as at the top
left, and a reading made there keeps the recognizer's rule that its first corner is the corner
it was read at: its index windows lie at its first and third corners (`guesses._indices`), the
top right and the bottom left. Only a whole card's firm outline is read there, and only to add
a card its index corners did not read (`CardRecognizer._other_corners`, `_decide`).
"""

from __future__ import annotations

from typing import Any

import numpy.typing as npt

MIRRORED = {1: [1, 0, 3, 2], 3: [3, 2, 1, 0]}
"""The corners' order with the first corner at a four-index deck's other index corners (1: the
top right, 3: the bottom left; its half turn), the first side along the card's top (bottom)."""


def is_mirrored(quad: npt.NDArray[Any]) -> bool:
    """Whether `quad` runs anticlockwise in the image (y down): a `MIRRORED` order.

    The outlines' own order is clockwise (`outline.portrait`); a card lying face up is never
    seen mirrored, so only a quad taken in `MIRRORED` order runs the other way.
    """
    (x0, y0), (x1, y1), (x3, y3) = quad[0], quad[1], quad[3]
    return float((x1 - x0) * (y3 - y0) - (y1 - y0) * (x3 - x0)) < 0.0


def mirror_window(
    window: tuple[float, float, float, float], width: int, height: int
) -> tuple[int, int, int, int]:
    """The top-right index window (`upper_right_window`, shares) in mirrored card pixels.

    Pixels of the card (`width` x `height`, the canonical card) flattened through a `MIRRORED`
    quad: x runs from the right edge, so the window's right edge becomes its left (negative
    when it reaches past the card).
    """
    x0, y0, x1, y1 = window
    return (
        width - round(x1 * width),
        round(y0 * height),
        width - round(x0 * width),
        round(y1 * height),
    )
