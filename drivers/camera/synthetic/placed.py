"""Firm cards read through outlines placed by hand, as the fit onto the paper's edge did not.

Tests and benches (`bench/cutoff_index.py`) measure what the reader makes of an outline lying
a few percent inside its card: the outline is placed on the drawn card (`inset_quad`) and read
as a firm outline with every check a firm card is read with, but as placed
(`read_as_placed`): the fit would move it back onto the paper's edge.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from unittest.mock import patch

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.detect import card_threshold
from drivers.camera.outline import CardOutline
from drivers.camera.reading import CardReading, ReadingSource
from drivers.camera.recognizer import CardRecognizer


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


def read_as_placed(
    recognizer: CardRecognizer, image: npt.NDArray[Any], quads: Sequence[npt.NDArray[Any]]
) -> list[CardReading | None]:
    """Each of `quads` in the BGR `image` read as a firm, whole outline lying exactly there."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    outlines = [
        CardOutline(q, np.round(q).astype(np.int32).reshape(-1, 1, 2), partial=False) for q in quads
    ]
    with patch("drivers.camera.recognizer.fitted_for_reading", lambda _g, o, _t: list(o)):
        return recognizer._read_many(
            image, gray, card_threshold(gray), outlines, ReadingSource.FIRM
        )
