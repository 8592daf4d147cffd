"""What of a partly covered card is in view (`drivers.camera.visible`)."""

from __future__ import annotations

import cv2
import numpy as np

from drivers.camera.outline import CardOutline
from drivers.camera.visible import visible_part


def _quad(x: float, y: float) -> np.ndarray:
    return np.array([[x, y], [x + 63.0, y], [x + 63.0, y + 88.0], [x, y + 88.0]])


def _holds(contour: np.ndarray, x: float, y: float) -> bool:
    return cv2.pointPolygonTest(contour, (x, y), False) >= 0


def test_a_covered_card_in_view_is_its_region_less_the_card_on_it() -> None:
    # Card B at x=100 lies under card A at x=130: B shows a 30 px strip with its index, but the
    # strip the finder cut is only B's 6 px margin beside the index.
    below, above = _quad(100, 50), _quad(130, 50)
    mask = np.zeros((200, 300), np.uint8)
    for q in (below, above):
        cv2.fillConvexPoly(mask, np.round(q).astype(np.int32), 1)
    (region,), _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
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
