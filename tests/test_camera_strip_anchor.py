"""A strip of a card in a row is read at its index corner anchored on the paper's corner.

The next card of a row lies over the rest of a card, whose visible strip the finder grows to a
whole card (`detect._extend`). That outline is not fitted onto the paper's edge as a whole
card's is (its grown side lies on the card above), so its sides stayed where the threshold and
the edge cut left them: on the tuning designs about 3% of the card's height inside the paper,
on a deck printed with a border line on the line, 4-5% in. Both index windows then sit inside
the card, and on a deck whose index is tight to the edge the window cuts the top of the index
off (a 6 reads as a 9, or nothing).
"""

from __future__ import annotations

import numpy as np
from camera_support import generated_profile

from drivers.camera.reading import ReadingSource
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.scene import PlacedCard, Scene, render_scene
from drivers.camera.synthetic.scoring import card_height_px
from studio.cards import Card

TIGHT_BORDER = 1004
"""A tuning design printing a double border line, its index tight to the paper's edge."""


def test_a_six_under_the_next_card_of_a_row_is_read_at_its_paper_corner() -> None:
    # Rows of three cards (the 6 first, each next card lying over the one before), at two
    # angles. Before, the 6's strip was grown to a card lying on its border line, 4-5% of the
    # height inside the paper, and nothing read it in any of the rows (the 6H and 6D went
    # unread); anchored at its index corner it reads, its corner on the paper's.
    profile, templates = generated_profile(TIGHT_BORDER)
    rec = CardRecognizer(profile, templates)
    design = deckgen.design(TIGHT_BORDER)
    view = np.array([[2.4, 0, 960], [0, 2.4, 540], [0, 0, 1.0]])
    found = []
    for code in ("6H", "6D"):
        for step, angle in ((22, 0.0), (26, 8.0)):
            turn = np.radians(angle)
            cards = [
                PlacedCard(Card.parse(c), -40 + k * step * np.cos(turn), k * step * np.sin(turn),
                           angle)
                for k, c in enumerate((code, "4C", "KS"))
            ]  # fmt: skip
            frame = render_scene(
                Scene(width=1920, height=1080, table_to_image=view, design=design, cards=cards,
                      blur_sigma=0.8, noise=4.0, jpeg_quality=85, seed=5)
            )  # fmt: skip
            six = frame.cards[0]
            size = card_height_px(six)
            for r in rec.recognize(frame.image):
                corner = np.array(r.corners[0])
                off = min(float(np.linalg.norm(corner - six.corners[k])) for k in (0, 2)) / size
                if r.source is ReadingSource.EXTENDED and off < 0.1:
                    found.append((code, angle, r.code, round(off, 3)))
    assert [(code, angle, read) for code, angle, read, _ in found] == [
        (code, angle, code) for code in ("6H", "6D") for angle in (0.0, 8.0)
    ]
    assert max(off for *_, off in found) <= 0.005
