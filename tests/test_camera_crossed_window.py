"""An index against the edge of a card lying over it reads though one moved cut loses a symbol.

Each corner is read on its own cut and on cuts moved by 2% of the window's height; any cut naming
something else refuses the code. On a fan the middle card's index lies tight against the edge of
the card over it, and a cut moved by a few pixels can lose the suit to that edge (its head says
"none"). Where a card's found outline crosses the window (`visible.crossed_window`), one such
moved cut is left out of the vote; a moved cut naming another code still refuses.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from camera_support import generated_profile

from drivers.camera.classify import IndexClassifier
from drivers.camera.index_model import NONE
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.scene import PlacedCard, Scene, render_scene
from drivers.camera.visible import crossed_window
from studio.cards import Card

FOUR_INDEX = 1003
"""A tuning design (large sans index, four indices); the fan is drawn from its cached studio
frame 41 of seed 20261216, where the ace was missed (`moved`)."""
VIEW = np.array([[2.2139, -0.11747, 960.0], [0.26676, 2.08486, 540.0], [1.68568e-4, 6.069e-5, 1.0]])
"""That frame's camera: the table (mm) to the image, tilted."""
FAN = (("8H", 66.71, -91.76, 174.27), ("AD", 50.58, -92.38, 190.14), ("4C", 35.23, -97.39, 206.01))
"""The fan: code, table position (mm) and turn (degrees), each card over the one before."""


def test_the_middle_card_of_a_fan_reads_against_the_edge_of_the_card_over_it() -> None:
    # Before, the ace's index (about a quarter of the card in view) read AD on its own cut and
    # on four moved cuts, but the cut moved toward the 4C's edge named no suit: the ace went
    # unread in every one of these frames.
    profile, templates = generated_profile(FOUR_INDEX)
    rec = CardRecognizer(profile, templates)
    design = deckgen.design(FOUR_INDEX)
    for seed, dx in ((1, 0.0), (2, 3.0)):
        cards = [PlacedCard(Card.parse(c), x + dx, y, a) for c, x, y, a in FAN]
        frame = render_scene(
            Scene(width=1920, height=1080, table_to_image=VIEW, design=design, cards=cards,
                  felt=(35, 35, 120), blur_sigma=0.54, motion=1.32, motion_angle=161.8,
                  noise=3.0, jpeg_quality=87, seed=seed)
        )  # fmt: skip
        assert [t.readable for t in frame.cards] == [True, True, True]
        codes = sorted(r.code for r in rec.recognize(frame.image) if r.code is not None)
        assert codes == ["4C", "8H", "AD"], (seed, dx)


def test_a_window_is_crossed_only_by_a_card_over_part_of_it() -> None:
    window = np.array([[0, 0], [40, 0], [40, 60], [0, 60]], np.float64)
    over_edge = np.array([[30, -50], [130, -50], [130, 150], [30, 150]], np.float64)
    beneath = np.array([[-20, -20], [200, -20], [200, 300], [-20, 300]], np.float64)
    touching = np.array([[39.5, -50], [140, -50], [140, 150], [39.5, 150]], np.float64)
    assert crossed_window(window, [over_edge])
    # The window's own card, or one beneath it, holds the window's centre: not crossing it.
    assert not crossed_window(window, [beneath])
    # A card touching the window's rim (under 3% of its area) is no card over the index.
    assert not crossed_window(window, [touching])
    assert not crossed_window(window, [])
    assert crossed_window(window, [beneath, touching, over_edge])


def _cuts(
    ranks: list[str], suits: list[str], names: list[tuple[str, str]]
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Probabilities of cuts (own cut first), each sure of the (rank, suit) in `names`."""
    pr = np.full((len(names), len(ranks)), 0.001, np.float32)
    ps = np.full((len(names), len(suits)), 0.001, np.float32)
    for k, (rank, suit) in enumerate(names):
        pr[k, ranks.index(rank)] = 0.99
        ps[k, suits.index(suit)] = 0.99
    return pr, ps


def test_only_one_moved_cut_naming_no_index_is_left_out() -> None:
    profile, templates = generated_profile(FOUR_INDEX)
    assert profile.deck is not None and templates.model is not None
    reader = IndexClassifier(profile.deck, templates)
    ranks, suits = list(templates.model.ranks), list(templates.model.suits)
    ad, ah, blank = ("A", "D"), ("A", "H"), ("A", NONE)
    pr, ps = _cuts(ranks, suits, [ad, ad, ad, ad, blank, ad])
    kept = reader._without_blank_cut(pr, ps)
    assert kept is not None
    kept_r, kept_s = kept
    assert len(kept_r) == len(kept_s) == 5
    assert all(suits[int(s.argmax())] == "D" for s in kept_s)
    # A moved cut naming another code always votes; two blank cuts, or a blank own cut, too.
    for names in (
        [ad, ad, ad, ad, ah, ad],
        [ad, ad, blank, ad, blank, ad],
        [blank, ad, ad, ad, ad, ad],
    ):
        pr, ps = _cuts(ranks, suits, names)
        assert reader._without_blank_cut(pr, ps) is None, names
