"""Shared helpers for the camera tests: decks learned per design, index windows cut from
rendered frames, scoring against truth."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.deck import CANON_SIZE, learn_deck
from calibration.profile import CalibrationProfile, DeckTemplates
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.designs import DESIGNS
from drivers.camera.synthetic.generator import SceneStyle, random_scene
from drivers.camera.synthetic.reference import render_reference
from drivers.camera.synthetic.scene import render_scene
from drivers.camera.synthetic.scoring import Score
from studio.cards import DECK
from studio.paths import cache_dir

__all__ = [
    "Score",
    "deck_profile",
    "design_profile",
    "generated_profile",
    "index_windows",
    "scored",
]


@lru_cache(maxsize=4)
def deck_profile(design: str) -> tuple[CalibrationProfile, DeckTemplates]:
    """A profile whose deck was learned from the 52 rendered scans of `design`."""
    return _learned(DESIGNS[design])


@lru_cache(maxsize=4)
def generated_profile(seed: int) -> tuple[CalibrationProfile, DeckTemplates]:
    """A profile whose deck was learned from the 52 rendered scans of generated design `seed`."""
    return _learned(deckgen.design(seed))


@lru_cache(maxsize=4)
def design_profile(design: Any) -> tuple[CalibrationProfile, DeckTemplates]:
    """A profile whose deck was learned from the 52 rendered scans of `design` (any design, e.g.
    a generated one `deckgen.with_inks` printed in other inks)."""
    return _learned(design)


def _learned(design: Any) -> tuple[CalibrationProfile, DeckTemplates]:
    refs = {c.code: render_reference(c, design, "scan", i) for i, c in enumerate(DECK)}
    # The run's own cache (`conftest.py` points `XDG_CACHE_HOME` at it): a deck trained once in
    # a run, by any test, xdist worker or `studio` process, is loaded there by every other.
    deck, templates = learn_deck(refs, model_cache=cache_dir())
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


def cut_window(profile: CalibrationProfile, image: Any, quad: Any) -> npt.NDArray[Any]:
    """The deck's learned index window at `quad`'s first corner, cut as the recognizer cuts it."""
    assert profile.deck is not None
    cw, ch = CANON_SIZE
    x0, y0, x1, y1 = profile.deck.index_window
    box = (round(x0 * cw), round(y0 * ch), round(x1 * cw), round(y1 * ch))
    canon = np.array([[0, 0], [cw - 1, 0], [cw - 1, ch - 1], [0, ch - 1]], np.float32)
    shift = np.array([[1, 0, box[0]], [0, 1, box[1]], [0, 0, 1]], np.float64)
    h = cv2.getPerspectiveTransform(canon, np.asarray(quad, np.float32))
    window: npt.NDArray[Any] = cv2.warpPerspective(
        image, h @ shift, (box[2] - box[0], box[3] - box[1]),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE,
    )  # fmt: skip
    return window


def index_windows(
    design: str, style: SceneStyle, frames: int, seed: int
) -> list[tuple[str, npt.NDArray[Any]]]:
    """(code, index window) at both index corners of every face-up card of `frames` scenes.

    Each window is cut as the recognizer cuts one, through the card's true outline moved by
    about a pixel (a found outline's error), at the deck's learned index window.
    """
    profile, _ = deck_profile(design)
    rng, jitter = np.random.default_rng(seed), np.random.default_rng(seed + 1)
    out = []
    for _ in range(frames):
        frame = render_scene(random_scene(rng, style, DESIGNS[design]))
        for truth in (t for t in frame.cards if t.face_up):
            for turn in (0, 2):
                quad = np.roll(truth.corners, -turn, axis=0) + jitter.normal(0, 1.0, (4, 2))
                out.append((truth.code, cut_window(profile, frame.image, quad)))
    return out
