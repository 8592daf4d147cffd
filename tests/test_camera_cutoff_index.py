"""A firm outline lying inside its card cuts a tight index's top off: no other rank is read.

Where the fit onto the paper's edge leaves a firm outline 3-5% of the card's height inside it
(a side with no paper edge found, a border line taken for the edge), both index windows move
in, and on a deck whose index sits tight to the edge the window's edge cuts the index's top
off: what is left read, sure and at both corners, as another rank (tuning designs: 6 as 9, 10
as 8). The recognizer cuts each firm corner again moved out toward the card's edges
(`ReaderTuning.outward`) and refuses a read every such cut contradicts.
"""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np
from camera_support import generated_profile

from drivers.camera.detect import card_threshold
from drivers.camera.outline import CardOutline
from drivers.camera.outline_fit import fitted_for_reading
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.placed import inset_quad
from drivers.camera.synthetic.scene import PlacedCard, RenderedFrame, Scene, render_scene
from studio.cards import Card

TIGHT = 1002
"""A tuning design (a regular bold monospaced index tight to the card's edge) whose 6s read as
9s through outlines 3-4% inside the card."""
CODES = ("6H", "6C", "6S", "6D", "9H", "9C", "5H", "TD")


@cache
def _drawn() -> tuple[CardRecognizer, RenderedFrame]:
    """A recognizer of `TIGHT`'s deck, and each card of `CODES` drawn sharp and upright."""
    profile, templates = generated_profile(TIGHT)
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
    return CardRecognizer(profile, templates), frame


def _reads(share: float) -> list[tuple[str, str | None]]:
    """Each card of `CODES` read as a firm outline `share` inside it.

    The outline is read as placed: the fit onto the paper's edge (which would undo the inset
    here) is what left the outlines seen at scale inside their cards.
    """
    rec, frame = _drawn()
    quads = [inset_quad(c.corners, share) for c in frame.cards]
    reads = rec.read_as_placed(frame.image, quads)
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


def test_an_outline_read_as_placed_is_read_where_it_lies() -> None:
    # 2% inside its card: the fit onto the paper's edge would move it out onto the edge.
    rec, frame = _drawn()
    gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
    quads = [inset_quad(c.corners, 0.02) for c in frame.cards]
    fitted = fitted_for_reading(gray, [_firm(q) for q in quads], card_threshold(gray))
    assert all(np.abs(o.corners - q).max() > 2.0 for o, q in zip(fitted, quads, strict=True))
    readings = rec.read_as_placed(frame.image, quads)
    for quad, reading in zip(quads, readings, strict=True):
        assert reading is not None
        got = np.array(reading.corners)
        # A read card's outline starts at the corner it was read at (either index corner).
        assert any(np.abs(got - np.roll(quad, -t, axis=0)).max() <= 0.05 for t in (0, 2))


def test_a_fitted_outline_read_as_placed_reads_as_the_recognizer_reads_it() -> None:
    # Every check a firm outline is read with applies: the recognizer's own reading of an
    # outline 1% inside (fitted first) is the reading of the fitted outline as placed.
    rec, frame = _drawn()
    gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
    thr = card_threshold(gray)
    outlines = [_firm(inset_quad(c.corners, 0.01)) for c in frame.cards]
    fitted = [o.corners for o in fitted_for_reading(gray, outlines, thr)]
    live = [rec._read(frame.image, gray, thr, o) for o in outlines]
    assert rec.read_as_placed(frame.image, fitted) == live
    assert [r.code for r in live if r is not None] == list(CODES)


def _firm(quad: np.ndarray) -> CardOutline:
    """A firm, whole outline at `quad`, as the finder hands one on."""
    return CardOutline(quad, np.round(quad).astype(np.int32).reshape(-1, 1, 2), partial=False)
