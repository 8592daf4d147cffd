"""Shared helpers for the camera tests: decks learned per design, scoring against truth."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from calibration.deck import learn_deck
from calibration.profile import CalibrationProfile, DeckTemplates
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic.designs import DESIGNS
from drivers.camera.synthetic.generator import SceneStyle, random_scene
from drivers.camera.synthetic.reference import render_reference
from drivers.camera.synthetic.scene import render_scene
from drivers.camera.synthetic.scoring import Score
from studio.cards import DECK

__all__ = ["Score", "deck_profile", "scored"]


@lru_cache(maxsize=4)
def deck_profile(design: str) -> tuple[CalibrationProfile, DeckTemplates]:
    """A profile whose deck was learned from the 52 rendered scans of `design`."""
    refs = {c.code: render_reference(c, DESIGNS[design], "scan", i) for i, c in enumerate(DECK)}
    deck, templates = learn_deck(refs)
    return CalibrationProfile(deck=deck), templates


def scored(
    design: str, seed: int, style: SceneStyle, frames: int, *, reader: str = "learned"
) -> Score:
    """Recognise `frames` random scenes of `style` in `design`'s deck and score them."""
    recognizer = CardRecognizer(*deck_profile(design), reader=reader)
    rng = np.random.default_rng(seed)
    score = Score()
    for _ in range(frames):
        frame = render_scene(random_scene(rng, style, DESIGNS[design]))
        score.add(frame, recognizer.recognize(frame.image))
    return score
