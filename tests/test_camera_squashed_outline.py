"""An outline squashed shorter than a card can look is not read: its index window is cut wrong.

Fitting a firm outline onto the paper's edge, or snapping a guess onto edges, may pull one end
of the outline onto a line inside the card (index ink, a border line, the next card's edge).
The index window, cut at fixed shares of the outline, then starts below the top of the index,
and the reader names what is left of it: on the tuning designs (studio, at scale) a 7H read as
JH on a firm outline of aspect 1.16, a 9D as QH on proposals of aspect 1.07-1.19.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from camera_support import generated_profile

from drivers.camera.detect import card_threshold
from drivers.camera.outline import CardOutline
from drivers.camera.reading import ReadingSource
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.scene import PlacedCard, Scene, render_scene
from studio.cards import Card

JUMBO_INSET = 1000
"""The tuning design (a jumbo index, inset) on which squashed outlines read wrong at scale."""
CODES = ("9H", "9S", "AC", "9D", "6H", "7C")


def _outline(quad: Any) -> CardOutline:
    return CardOutline(quad, np.round(quad).astype(np.int32).reshape(-1, 1, 2), partial=False)


def test_a_firm_outline_squashed_at_its_read_end_names_no_wrong_card() -> None:
    # Sharp upright cards, each read on its true outline and on outlines whose index end is
    # moved 15% and 18% of the card's height into the card (aspect 1.19 and 1.15, under the
    # least a card's outline shows, `tuning.READ_ASPECT`). Before, 9H read as QH on both
    # squashed outlines (and 9S as QS, AC as AS, 0.91-1.0).
    profile, templates = generated_profile(JUMBO_INSET)
    rec = CardRecognizer(profile, templates)
    design = deckgen.design(JUMBO_INSET)
    view = np.array([[2.2, 0, 960], [0, 2.2, 540], [0, 0, 1.0]])
    cards = [
        PlacedCard(Card.parse(code), -150 + 60 * k, 0, 4.0 * (k % 3) - 4)
        for k, code in enumerate(CODES)
    ]
    frame = render_scene(
        Scene(width=1920, height=1080, table_to_image=view, design=design, cards=cards)
    )
    gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
    thr = card_threshold(gray)
    wrong, right = [], 0
    for truth in frame.cards:
        q = truth.corners.astype(np.float64)
        (whole,) = rec._read_many(frame.image, gray, thr, [_outline(q)], ReadingSource.FIRM)
        right += whole is not None and whole.code == truth.code
        for cut in (0.15, 0.18):
            squashed = q.copy()
            squashed[0] = q[0] + cut * (q[3] - q[0])
            squashed[1] = q[1] + cut * (q[2] - q[1])
            (read,) = rec._read_many(
                frame.image, gray, thr, [_outline(squashed)], ReadingSource.FIRM
            )
            if read is not None and read.code is not None and read.code != truth.code:
                wrong.append((truth.code, cut, read.code, read.confidence))
    assert wrong == []
    assert right >= len(CODES) - 1  # the cards themselves read on their own outlines
