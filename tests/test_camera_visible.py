"""What of a partly covered card is in view (`drivers.camera.visible`)."""

from __future__ import annotations

import cv2
import numpy as np

from drivers.camera.detect import detect_cards
from drivers.camera.outline import CardOutline, long_side
from drivers.camera.synthetic.designs import JUMBO
from drivers.camera.synthetic.scene import PlacedCard, Scene, render_scene
from drivers.camera.visible import explained, visible_part
from studio.cards import Card


def _quad(x: float, y: float) -> np.ndarray:
    return np.array([[x, y], [x + 63.0, y], [x + 63.0, y + 88.0], [x, y + 88.0]])


def _holds(contour: np.ndarray, x: float, y: float) -> bool:
    return cv2.pointPolygonTest(contour, (x, y), False) >= 0


def _overlapping_pair() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Card B at x=100 under card A at x=130, and the one bright region (a contour) they make."""
    below, above = _quad(100, 50), _quad(130, 50)
    mask = np.zeros((200, 300), np.uint8)
    for q in (below, above):
        cv2.fillConvexPoly(mask, np.round(q).astype(np.int32), 1)
    (region,), _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return below, above, region


def test_a_covered_card_in_view_is_its_region_less_the_card_on_it() -> None:
    # Card B at x=100 lies under card A at x=130: B shows a 30 px strip with its index, but the
    # strip the finder cut is only B's 6 px margin beside the index.
    below, above, region = _overlapping_pair()
    strip = np.array([[[100, 60]], [[106, 60]], [[106, 130]], [[100, 130]]], np.int32)
    covered = CardOutline(below, strip, True)
    top = CardOutline(above, np.round(above).astype(np.int32).reshape(-1, 1, 2), False)
    # The same card found twice (a frame line's rectangle) does not hide itself.
    twice = CardOutline(below + 2.0, strip, False)
    seen = visible_part(covered, [region], [covered, top, twice])
    assert seen is not None and seen.partial and seen.corners is covered.corners
    assert _holds(seen.contour, 115.0, 70.0)  # B's index, beside the strip: in view
    assert not _holds(seen.contour, 160.0, 70.0)  # under A: not
    # No bright region holds the strip: nothing to say.
    assert visible_part(covered, [], [top]) is None


def test_a_region_is_explained_only_when_no_other_card_can_show_beyond_the_cards_read() -> None:
    # Card A read at x=130 over card B at x=100: B's 30 px strip holds its index.
    below, above, region = _overlapping_pair()
    assert not explained(region, [above], [], 88.0)
    # B read too, as a strip extended under A (its part in view), or whole: nothing is left.
    strip = np.array([[[100, 50]], [[130, 50]], [[130, 138]], [[100, 138]]], np.int32)
    assert explained(region, [above], [strip], 88.0)
    assert explained(region, [above, below], [], 88.0)
    # Nothing read in it: open.
    assert not explained(region, [], [], 88.0)


_VIEW = np.array([[2.6, 0, 960], [0, 2.6, 540], [0, 0, 1.0]])


def test_a_lone_cards_rim_of_blur_explains_its_region_and_a_peeking_index_does_not() -> None:
    # Rendered: the bright region reaches a pixel or two past the card's edge (blur, JPEG), and
    # the found contour is cut by the index ink, but nothing an index could show in is left.
    lone = (PlacedCard(Card.parse("7H"), 0, 0, 12.0),)
    pile = (PlacedCard(Card.parse("9C"), 0, 0, 3.0), PlacedCard(Card.parse("KD"), 30, 12, -4.0))
    for cards, read, open_ in ((lone, [0], []), (pile, [1], [0])):
        scene = Scene(
            width=1920, height=1080, table_to_image=_VIEW, design=JUMBO, cards=cards,
            blur_sigma=0.8, noise=3.0, jpeg_quality=85,
        )  # fmt: skip
        frame = render_scene(scene)
        gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
        found = detect_cards(gray, min_long_px=80.0, frame=frame.image)
        truth = [frame.cards[k].corners for k in read]
        region = next(r.contour for r in found.regions if _holds(r.contour, *truth[0].mean(axis=0)))
        height = long_side(truth[0])
        assert explained(region, truth, [], height) is (not open_)
        # With the card beneath read too, the pile's region is explained.
        both = truth + [frame.cards[k].corners for k in open_]
        assert explained(region, both, [], height)
