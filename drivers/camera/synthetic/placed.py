"""Outlines placed by hand inside a drawn card, as the fit onto the paper's edge left some.

Tests and benches (`bench/cutoff_index.py`) measure what the reader makes of an outline lying
a few percent inside its card: the outline is placed on the drawn card (`inset_quad`) and read
by `CardRecognizer.read_as_placed`, a firm outline read with every check a firm card is read
with but where it lies (the fit would move it back onto the paper's edge).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt


def inset_quad(quad: npt.NDArray[Any], share: float) -> npt.NDArray[Any]:
    """`quad` (a card's corners in order round it) with every side moved `share` in.

    Each side moves parallel to itself by `share` of the card's height: a firm outline the fit
    left inside its card.
    """
    q = np.asarray(quad, np.float64)
    height = (np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2
    out = np.empty_like(q)
    for k in range(4):
        to_next = q[(k + 1) % 4] - q[k]
        to_prev = q[(k - 1) % 4] - q[k]
        out[k] = q[k] + share * height * (
            to_next / np.linalg.norm(to_next) + to_prev / np.linalg.norm(to_prev)
        )
    return out
