"""Decks of another shape: a bridge-size deck (88 x 57 mm) is drawn, calibrated and read.

Every generated design is poker size (88 x 63 mm) unless `deckgen.with_aspect` prints it on
cards of another shape; the poker designs' pixels must not move (the split's frames, references
and shipped models depend on them).
"""

from __future__ import annotations

import numpy as np
import pytest

from calibration.deck import card_aspect, flatten_card, learn_deck
from calibration.profile import CalibrationProfile, DeckCalibration
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.deckgen import FONTS
from drivers.camera.synthetic.designs import CARD_WIDTH_MM
from drivers.camera.synthetic.faces import render_back, render_face
from drivers.camera.synthetic.reference import render_reference
from drivers.camera.synthetic.scene import PlacedCard, Scene, render_scene
from studio.cards import DECK, Card

pytestmark = pytest.mark.skipif(
    not all(f.path.is_file() for f in FONTS), reason="Debian font packages not installed"
)

BRIDGE = 88 / 57
# A design with a double border line and a tight index: the shape most likely to collide.
SEED = 1001


def _side_ratio(quad: np.ndarray) -> float:
    sides = np.hypot(*(np.roll(quad, -1, axis=0) - quad).T)
    return float((sides[1] + sides[3]) / (sides[0] + sides[2]))


def test_a_generated_design_is_poker_size_unless_given_another_shape() -> None:
    poker = deckgen.design(SEED)
    bridge = deckgen.with_aspect(poker, BRIDGE)
    assert poker.width_mm == CARD_WIDTH_MM and poker.name == f"gen-{SEED}"
    assert bridge.name == f"gen-{SEED}-a1.544" and bridge.aspect == pytest.approx(BRIDGE)
    # Everything but the shape is the same design.
    assert deckgen.with_aspect(bridge, 88 / 63).name == poker.name
    face, alpha = render_face(DECK[7], bridge, 440)
    assert face.shape[:2] == alpha.shape == (440, 285)
    assert render_back(bridge, 440)[0].shape[:2] == (440, 285)
    assert render_face(DECK[7], poker, 440)[0].shape[:2] == (440, 315)
    assert render_reference(DECK[7], bridge, "scan").shape[:2] == (600, 389)


def test_a_bridge_size_card_lies_on_the_table_with_its_own_outline() -> None:
    bridge = deckgen.with_aspect(deckgen.design(SEED), BRIDGE)
    view = np.array([[2.5, 0, 960], [0, 2.5, 540], [0, 0, 1.0]])
    scene = Scene(
        width=1920, height=1080, table_to_image=view, design=bridge,
        cards=(PlacedCard(Card.parse("7H"), 0.0, 0.0, 0.0),),
    )  # fmt: skip
    (truth,) = render_scene(scene).cards
    assert _side_ratio(truth.corners) == pytest.approx(BRIDGE, rel=1e-6)


def test_a_bridge_size_deck_calibrates_and_reads_a_lone_card() -> None:
    bridge = deckgen.with_aspect(deckgen.design(SEED), BRIDGE)
    refs = {c.code: render_reference(c, bridge, "scan", i) for i, c in enumerate(DECK)}
    deck, templates = learn_deck(refs)
    assert deck.cards_used == 52
    # The profile states the deck's shape, and an older profile without it loads as poker size.
    assert deck.card_aspect == pytest.approx(BRIDGE, abs=0.005)
    older = deck.model_dump(exclude={"card_aspect"})
    assert DeckCalibration.model_validate(older).card_aspect == pytest.approx(88 / 63)
    recognizer = CardRecognizer(CalibrationProfile(deck=deck), templates)
    view = np.array([[2.2, 0, 960], [0, 2.2, 540], [0, 0, 1.0]])
    for code, angle in (("QD", 20.0), ("5S", 200.0), ("TH", 95.0)):
        scene = Scene(
            width=1920, height=1080, table_to_image=view, design=bridge,
            cards=(PlacedCard(Card.parse(code), 10.0, -5.0, angle),),
        )  # fmt: skip
        read = [r.code for r in recognizer.recognize(render_scene(scene).image)]
        assert read == [code]


@pytest.mark.parametrize("aspect", [88 / 63, 1.47, BRIDGE])
@pytest.mark.parametrize("style", ["scan", "photo"])
def test_calibration_measures_a_reference_cards_shape(aspect: float, style: str) -> None:
    d = deckgen.with_aspect(deckgen.design(1003), aspect)
    images = [render_reference(DECK[i], d, style, seed=i) for i in range(0, 52, 6)]
    # A photograph's corners are found a few pixels off: the deck's figure is the median.
    assert float(np.median([card_aspect(im) for im in images])) == pytest.approx(aspect, abs=0.015)
    assert flatten_card(images[0]).shape[:2] == (280, 200)
