"""The index sheet: a deck's 52 index crops in one labelled picture, for a technician to check.

`studio calibrate deck` cuts every reference card's index window (the profile's
`index_window`, as the reader cuts it from a frame), reads it back with the learned reader, and
lays the crops out one suit a row and one rank a column. Each cell is labelled with its card's
code; a crop that does not read back as itself is framed in red and labelled with what it read
("AS>8S", or "AS>none"), so a window placed off the index, or a card that fails, shows at a
glance.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from studio.cards import RANK_CHARS, SUIT_CHARS

Image = npt.NDArray[Any]

CELL_HEIGHT = 140
"""Height (pixels) each crop is scaled to: large enough to see an index's strokes."""
LABEL_HEIGHT = 26
GAP = 6
_INK = (40, 40, 40)
_WRONG = (0, 0, 220)
_PAPER = (255, 255, 255)
_EMPTY = (200, 200, 200)


def index_sheet(crops: Mapping[str, Image], reads: Mapping[str, str | None]) -> Image:
    """The sheet (BGR) of `crops` (BGR index crops by card code, any sizes) and their `reads`.

    `reads[code]` is what the reader made of the crop (a code, or None for no read); a code with
    no crop gets a grey cell labelled "missing". Rows are suits (`SUIT_CHARS`), columns ranks
    (`RANK_CHARS`).
    """
    shapes = [c.shape[:2] for c in crops.values() if c.size]
    aspect = float(np.median([w / h for h, w in shapes])) if shapes else 0.7
    cell_w = max(40, round(CELL_HEIGHT * aspect))
    step_x, step_y = cell_w + GAP, CELL_HEIGHT + LABEL_HEIGHT + GAP
    sheet = np.full(
        (GAP + len(SUIT_CHARS) * step_y, GAP + len(RANK_CHARS) * step_x, 3), _PAPER, np.uint8
    )
    for row, suit in enumerate(SUIT_CHARS):
        for col, rank in enumerate(RANK_CHARS):
            code = rank + suit
            x, y = GAP + col * step_x, GAP + row * step_y
            crop = crops.get(code)
            if crop is None or not crop.size:
                sheet[y : y + CELL_HEIGHT, x : x + cell_w] = _EMPTY
                _label(sheet, "missing", x, y, _WRONG)
                continue
            if crop.ndim == 2:
                crop = cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR)
            sheet[y : y + CELL_HEIGHT, x : x + cell_w] = cv2.resize(
                crop, (cell_w, CELL_HEIGHT), interpolation=cv2.INTER_AREA
            )
            read = reads.get(code)
            if read == code:
                _label(sheet, code, x, y, _INK)
            else:
                cv2.rectangle(
                    sheet, (x - 2, y - 2), (x + cell_w + 1, y + CELL_HEIGHT + 1), _WRONG, 2
                )
                _label(sheet, f"{code}>{read or 'none'}", x, y, _WRONG)
    return sheet


def _label(sheet: Image, text: str, x: int, y: int, colour: tuple[int, int, int]) -> None:
    """Write `text` under the cell whose top-left corner is (x, y)."""
    cv2.putText(
        sheet,
        text,
        (x + 2, y + CELL_HEIGHT + LABEL_HEIGHT - 8),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.5,
        colour,
        1,
        cv2.LINE_AA,
    )
