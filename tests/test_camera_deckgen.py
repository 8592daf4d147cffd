"""The deck generator: distinct, deterministic designs whose cards carry the index where stated."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from drivers.camera.synthetic.deckgen import FONTS, design
from drivers.camera.synthetic.faces import render_back, render_face
from drivers.camera.synthetic.scene import Scene
from drivers.camera.synthetic.splits import TEST_SEEDS, TRAINING_SEEDS, TUNING_SEEDS
from studio.cards import DECK

pytestmark = pytest.mark.skipif(
    not all(f.path.is_file() for f in FONTS), reason="Debian font packages not installed"
)


def test_same_seed_same_design_and_pixels() -> None:
    assert design(1003) == design(1003)
    a, _ = render_face(DECK[5], design(1003), 300)
    b, _ = design(1003).face(DECK[5], 300)
    assert np.array_equal(a, b)


def test_seeds_give_distinct_designs_over_many_typefaces() -> None:
    designs = [design(s) for s in TUNING_SEEDS]
    assert len({(d.font, d.size, d.placement, d.pips, d.court) for d in designs}) >= 35
    assert len({d.font for d in designs}) >= 15
    assert {d.size for d in designs} == {"regular", "large", "jumbo"}
    assert {d.four_index for d in designs} == {True, False}
    assert max(d.index_bottom for d in designs) > 0.4


def test_test_seeds_never_in_tuning_split() -> None:
    assert not set(TEST_SEEDS) & set(TUNING_SEEDS)
    assert len(TEST_SEEDS) == len(set(TEST_SEEDS)) == 40


def test_universal_reader_training_seeds_are_never_test_designs() -> None:
    # The shipped universal reader is trained on these: a test design among them would make
    # the test split's figure an in-distribution one.
    assert not set(TRAINING_SEEDS) & set(TEST_SEEDS)
    assert not set(TRAINING_SEEDS) & set(TUNING_SEEDS)


@pytest.mark.parametrize("seed", [1000, 1006, 9001])
def test_all_52_cards_carry_ink_in_every_index_box(seed: int) -> None:
    d = design(seed)
    height = 300
    for card in DECK:
        img, alpha = render_face(card, d, height)
        assert img.shape[:2] == alpha.shape == (height, 215)
        paper = np.array(d.paper, np.float32)
        ink = np.abs(img.astype(np.float32) - paper).max(axis=2) > 60
        for x0, y0, x1, y1 in d.index_boxes(height):
            assert ink[y0:y1, x0:x1].mean() > 0.05, (card.code, (x0, y0, x1, y1))
        # Paper just outside the top-left box's outer edge: the index sits where the design says.
        x0, y0, _, _ = d.index_boxes(height)[0]
        assert not ink[max(0, y0 - 3) : y0 - 1, x0 + 3 : x0 + 10].any() if y0 > 3 else True
    back, _ = render_back(d, height)
    assert back.shape[:2] == (height, 215)


def test_scene_accepts_a_generated_design() -> None:
    from drivers.camera.synthetic.generator import SceneStyle, random_scene
    from drivers.camera.synthetic.scene import render_scene

    scene = random_scene(np.random.default_rng(3), SceneStyle(width=640, height=360), design(1002))
    assert isinstance(scene, Scene)
    frame = render_scene(scene)
    assert frame.image.shape == (360, 640, 3)


def test_studio_envelope_draws_rows_fans_and_sideways_cards() -> None:
    from drivers.camera.synthetic.envelopes import STUDIO
    from drivers.camera.synthetic.generator import random_scene

    rng = np.random.default_rng(11)
    turns: list[float] = []
    for _ in range(60):
        cards = random_scene(rng, STUDIO, design(1004)).cards
        turns += [abs(b.angle - a.angle) for a, b in itertools.pairwise(cards)]
    assert any(8 <= t <= 18 for t in turns), "no fanned neighbours"
    assert any(80 <= t <= 100 for t in turns), "no card lying across its row"
    assert any(t < 5 for t in turns), "no straight rows"
