"""A firm outline lying inside its card cuts a tight index's top off: no other rank is read.

Where the fit onto the paper's edge leaves a firm outline 3-5% of the card's height inside it
(a side with no paper edge found, a border line taken for the edge), both index windows move
in, and on a deck whose index sits tight to the edge the window's edge cuts the index's top
off: what is left read, sure and at both corners, as another rank (tuning designs: 6 as 9, 10
as 8). The recognizer cuts each firm corner again moved out toward the card's edges
(`ReaderTuning.outward`) and refuses a read every such cut contradicts.
"""

from __future__ import annotations

import numpy as np
from camera_support import generated_profile

from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.placed import inset_quad, read_as_placed
from drivers.camera.synthetic.scene import PlacedCard, Scene, render_scene
from studio.cards import Card

TIGHT = 1002
"""A tuning design (a regular bold monospaced index tight to the card's edge) whose 6s read as
9s through outlines 3-4% inside the card."""
CODES = ("6H", "6C", "6S", "6D", "9H", "9C", "5H", "TD")


def _reads(share: float) -> list[tuple[str, str | None]]:
    """Each card of `CODES`, drawn sharp and upright, read as a firm outline `share` inside it.

    The outline is read as placed: the fit onto the paper's edge (which would undo the inset
    here) is what left the outlines seen at scale inside their cards.
    """
    profile, templates = generated_profile(TIGHT)
    rec = CardRecognizer(profile, templates)
    view = np.array([[2.27, 0, 960], [0, 2.27, 540], [0, 0, 1.0]])
    cards = [
        PlacedCard(Card.parse(code), -135 + 90 * (k % 4), -55 + 110 * (k // 4), 1.5 * (k % 3) - 1.5)
        for k, code in enumerate(CODES)
    ]
    frame = render_scene(
        Scene(
            width=1920, height=1080, table_to_image=view, design=deckgen.design(TIGHT), cards=cards
        )
    )
    quads = [inset_quad(c.corners, share) for c in frame.cards]
    reads = read_as_placed(rec, frame.image, quads)
    return [
        (c.code, None if r is None else r.code) for c, r in zip(frame.cards, reads, strict=True)
    ]


def test_a_tight_index_cut_off_by_an_outline_inside_its_card_reads_no_other_rank() -> None:
    # Before, 6H, 6C and 6S read as 9H, 9C and 9S at 3-4% (both corners agreeing, 0.93-1.0).
    wrong = [
        (share, truth, code)
        for share in (0.03, 0.035, 0.04)
        for truth, code in _reads(share)
        if code is not None and code != truth
    ]
    assert wrong == []


def test_crisp_cards_on_their_own_outline_still_read() -> None:
    assert [code for _, code in _reads(0.0)] == list(CODES)
    # An outline 1% inside (the fit's usual error) reads them all too.
    assert [code for _, code in _reads(0.01)] == list(CODES)
