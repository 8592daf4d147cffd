"""The measured cue for light card backs (`paper.own_paper`; not used by the recognizer).

gen-1001's back is light rings on a pale green-grey ground: nearly all of it is brighter than the
felt and grey enough to count as paper, so the face-down test (paper brighter than the felt
inside the border) calls it an unreadable face and the table waits on every dealer's back. Its
own border's paper tells it from a face (`docs/camera.md`, "Light backs read as backs").
"""

from __future__ import annotations

import cv2
import numpy as np

from drivers.camera.detect import detect_cards
from drivers.camera.paper import own_paper, paper_shares
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.felt import Felt, FeltLayout, FeltSource
from drivers.camera.tuning import PAPER_SHARE_FACE_UP
from studio.cards import DECK, Card
from studio.games import get_rules
from studio.runtime.camera import position_rows

LIGHT_BACK = 1001
"""A tuning design whose back is light rings on a mid-grey ground (`deckgen._back`)."""
LEVEL, TINT, BAR = 0.85, 20, 0.08
"""The cue as measured (`bench/card_backs.py`): a pixel is the border's paper at 0.85 of its
grey and within 20 of its tint; a card under 8% such paper inside would be a back."""


def _felt(design: int) -> tuple[FeltLayout, list[str]]:
    rules = get_rules("caribbean-stud")
    layout = FeltLayout.build(position_rows(rules.positions), deckgen.design(design))
    return layout, list(rules.positions)


def _frame(layout: FeltLayout, cards: dict[str, tuple[Card, bool]], seed: int) -> np.ndarray:
    felt = Felt(seed)
    for zone, (card, up) in cards.items():
        felt.place(zone, card, face_up=up)
    image: np.ndarray = FeltSource(felt, layout).read().image
    return image


def test_a_light_back_is_not_its_borders_paper_though_brighter_than_the_felt() -> None:
    layout, zones = _felt(LIGHT_BACK)
    image = _frame(layout, {z: (DECK[n], False) for n, z in enumerate(zones)}, 3)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    found = detect_cards(gray, frame=image)
    assert found.outlines
    for outline in found.outlines:
        # The felt threshold sees paper; the card's own border says its light rings are print:
        # as bright as the paper, but of the ground's tint.
        assert paper_shares(image, gray, found.paper, outline.contour).inner >= PAPER_SHARE_FACE_UP
        own = own_paper(image, gray, found.paper, outline.contour, LEVEL, TINT)
        assert own.tint < own.own / 2
        assert own.tint < 0.15


def test_court_cards_of_the_light_back_deck_stay_face_up() -> None:
    layout, zones = _felt(LIGHT_BACK)
    courts = [c for c in DECK if c.rank.char in "JQK"]
    image = _frame(layout, {z: (c, True) for z, c in zip(zones, courts, strict=False)}, 5)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    found = detect_cards(gray, frame=image)
    assert found.outlines
    for outline in found.outlines:
        assert paper_shares(image, gray, found.paper, outline.contour).inner >= PAPER_SHARE_FACE_UP
        assert own_paper(image, gray, found.paper, outline.contour, LEVEL, TINT).tint >= BAR
