"""A four-index deck's cards are read at their top-right and bottom-left indices too.

A card whose top-left and bottom-right indices are covered (here by chips; on a row or a fan by
the cards over it) still shows its index at the other two corners on a four-index deck. The
profile knows the deck prints them (`DeckCalibration.four_index`), and the recognizer reads a
whole card's firm outline there through the corners taken the other way round
(`other_corners.MIRRORED`) when its index corners read nothing and both other corners agree.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from camera_support import generated_profile
from hypothesis import given
from hypothesis import strategies as st

from drivers.camera.finder import TURNED
from drivers.camera.other_corners import MIRRORED, is_mirrored
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.designs import CARD_HEIGHT_MM, CARD_WIDTH_MM
from drivers.camera.synthetic.scene import Chip, PlacedCard, Scene, render_scene
from studio.cards import Card

FOUR_INDEX = 1031
"""A tuning design printing four indices (regular size, inset: a chip covers an index whole
without reaching the card's edge)."""
CODES = ("7H", "KS", "3D", "QC", "9S", "AH")


def _covered_frame() -> tuple[Any, list[str]]:
    """A sharp frame of `CODES` lying upright in a row apart, each with a chip on its top-left
    and bottom-right indices: only the top-right and bottom-left ones are in view."""
    design = deckgen.design(FOUR_INDEX)
    x0, y0, x1, y1 = design.index_boxes(1000)[0]
    width = round(1000 * CARD_WIDTH_MM / CARD_HEIGHT_MM)
    dx = ((x0 + x1) / 2 / width - 0.5) * CARD_WIDTH_MM
    dy = ((y0 + y1) / 2 / 1000 - 0.5) * CARD_HEIGHT_MM
    cards, chips = [], []
    for k, code in enumerate(CODES):
        x = -240 + 85 * k
        cards.append(PlacedCard(Card.parse(code), x, 0, 0.0))
        chips += [Chip(x + dx, dy, 7.5, (40, 40, 160)), Chip(x - dx, -dy, 7.5, (40, 40, 160))]
    view = np.array([[3.2, 0, 960], [0, 3.2, 540], [0, 0, 1.0]])
    scene = Scene(
        width=1920, height=1080, table_to_image=view, design=design, cards=cards, chips=chips
    )
    return render_scene(scene).image, list(CODES)


def test_cards_showing_only_their_other_indices_are_read_on_a_four_index_deck() -> None:
    profile, templates = generated_profile(FOUR_INDEX)
    assert profile.deck is not None and profile.deck.four_index
    image, codes = _covered_frame()
    read = [r.code for r in CardRecognizer(profile, templates).recognize(image) if r.code]
    assert not set(read) - set(codes)
    assert len(read) >= len(codes) - 1
    # The same deck read as a two-index deck (a profile from before it knew) reads none.
    two = profile.deck.model_copy(update={"four_index": False, "upper_right_window": None})
    before = CardRecognizer(profile.model_copy(update={"deck": two}), templates)
    assert [r.code for r in before.recognize(image) if r.code] == []


@given(
    st.floats(-500, 500),
    st.floats(-500, 500),
    st.floats(20, 300),
    st.floats(-3.2, 3.2),
)
def test_only_the_other_corners_orders_run_mirrored(x: float, y: float, h: float, a: float) -> None:
    # A card as outlines give it (clockwise in the image, first side short), anywhere, turned
    # any way: its index corners' orders run clockwise, its other corners' the other way.
    base = np.array([[0, 0], [0.715, 0], [0.715, 1], [0, 1]]) * h
    turn = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    quad = base @ turn.T + [x, y]
    assert not any(is_mirrored(quad[order]) for order in TURNED.values())
    assert all(is_mirrored(quad[order]) for order in MIRRORED.values())
