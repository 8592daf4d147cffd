"""A card is read at either index corner, and the far one need not look like the near one turned.

The generated designs print their pips upright all over the face: beside the far index (the
card seen the other way up) the nearest pip stands on its head. The learned reader, taught the
near corner only, read an upturned heart pip there as a diamond, sure of it (7D on a 7H, TD on
a TH on the tuning designs). It now learns both corners at calibration.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from camera_support import cut_window, generated_profile

from drivers.camera.classify import IndexClassifier
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.scene import PlacedCard, Scene, render_scene
from studio.cards import Card

UPRIGHT_PIPS = 1003
"""A tuning design (four indices, a large index inset far enough for a pip to reach its
window) on which the far corner's upturned pip was read as another suit."""
PIP_CARDS = [f"{r}{s}" for s in "HDSC" for r in "3456789T"]


def _frame(codes: list[str], turn: float) -> tuple[Any, list[tuple[str, Any]]]:
    """A sharp 1080p frame of `codes` in two rows, turned about `turn` degrees, and each card's
    true outline (its first corner the card's own top left)."""
    view = np.array([[2.4, 0, 960], [0, 2.4, 540], [0, 0, 1.0]])
    cards = [
        PlacedCard(
            Card.parse(code), -330 + 82 * (k % 8), -60 + 120 * (k // 8), turn + 5 * (k % 5) - 10
        )
        for k, code in enumerate(codes)
    ]
    scene = Scene(
        width=1920, height=1080, table_to_image=view, design=deckgen.design(UPRIGHT_PIPS),
        cards=cards,
    )  # fmt: skip
    frame = render_scene(scene)
    return frame.image, [(t.code, t.corners) for t in frame.cards]


def test_pip_cards_read_right_at_their_far_index_with_pips_upturned_beside_it() -> None:
    # Read at the corner where its pips stand on their heads (the far index, turned upright),
    # each pip card names its own code or nothing, and leans to no other card.
    profile, templates = generated_profile(UPRIGHT_PIPS)
    assert profile.deck is not None
    reader = IndexClassifier(profile.deck, templates)
    wrong, right, reads = [], 0, 0
    for codes, turn in ((PIP_CARDS[:16], 180.0), (PIP_CARDS[16:], 0.0)):
        image, truths = _frame(codes, turn)
        for code, corners in truths:
            # The far corner: the card's own bottom right, whichever way up it lies.
            read = reader.read(cut_window(profile, image, np.roll(corners, -2, axis=0)))
            reads += 1
            if read is None:
                continue
            right += read.code == code
            # Too unsure to read, the reader still must not lean to another card.
            named = read.code or read.hint
            if named is not None and named != code:
                wrong.append((code, named, read.confidence))
    assert wrong == []
    assert right >= 0.8 * reads
