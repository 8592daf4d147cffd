"""A fanned card is proposed at its own corner on the fan's rim, turned as it lies, and read.

A fan's cards turn 8-18 degrees apart round a pivot below them, so each card is turned against
the band the fan makes and ends at its own place along it. Row proposals lie square to the band
and end where the band or a line across it ends: on a fan their index windows sit 4-18% of the
card's height off a lower card's index, turned with the band, and nothing reads it. Each
straight stretch of the region's rim is a card's own side: a card proposed at its ends
(`proposals._rim_quads`) lies on the fanned card's own sides.
"""

from __future__ import annotations

import numpy as np
from camera_support import generated_profile

from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.scene import PlacedCard, Scene, render_scene
from studio.cards import Card

FAN_DESIGN = 1002
"""A tuning design (a monospaced bold index tight to the paper's edge)."""


def test_the_lowest_card_of_a_fan_is_read_at_its_own_corner() -> None:
    # A fan of four turned half a circle, as a tuning scene of the medium studio run drew it
    # (the TC lowest, the 9D on top). Before, the TC was not read: the proposal nearest its
    # index put the window 4.7% of the card's height off, turned 10 degrees with the band.
    profile, templates = generated_profile(FAN_DESIGN)
    rec = CardRecognizer(profile, templates)
    view = np.array(
        [[3.0338, -0.2961, 960.0], [0.37938, 3.1297, 540.0], [-3.8785e-05, 1.0856e-04, 1.0]]
    )
    fan = [
        ("TC", -45.05, -71.65, 162.11),
        ("7H", -56.84, -69.34, 175.77),
        ("3H", -68.84, -69.89, 189.43),
        ("9D", -80.37, -73.25, 203.10),
    ]
    frame = render_scene(
        Scene(width=1920, height=1080, table_to_image=view, design=deckgen.design(FAN_DESIGN),
              cards=[PlacedCard(Card.parse(c), x, y, a) for c, x, y, a in fan],
              felt=(90, 60, 20), blur_sigma=0.59, motion=0.7, motion_angle=161.3, noise=0.7,
              jpeg_quality=93, seed=7)
    )  # fmt: skip
    read = [r.code for r in rec.recognize(frame.image) if r.code is not None]
    assert "TC" in read
    assert set(read) <= {code for code, *_ in fan}
