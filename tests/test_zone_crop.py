"""`ZoneCropper` cuts a zone out of a frame through the table calibration: the zone with its
margin, clipped to the image, at most `MAX_SIDE` pixels long, as a JPEG a browser can show."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from calibration.profile import CalibrationProfile, TableCalibration, Zone
from studio.runtime.zone_crop import MAX_SIDE, ZoneCropper

# Table millimetres are image pixels shifted by 100: the zone's box is easy to check by hand.
SHIFT = [[1.0, 0.0, -100.0], [0.0, 1.0, -100.0], [0.0, 0.0, 1.0]]


def _profile(*zones: Zone, table: bool = True) -> CalibrationProfile:
    calibration = TableCalibration(
        image_to_table=SHIFT, method="points", image_size=(400, 300), residual_mm=0.0
    )
    return CalibrationProfile(table=calibration if table else None, zones=list(zones))


def _zone(name: str, x: float, y: float, w: float, h: float) -> Zone:
    return Zone(name=name, polygon=[(x, y), (x + w, y), (x + w, y + h), (x, y + h)])


def _decoded(jpeg: bytes | None) -> np.ndarray:
    assert jpeg is not None and jpeg.startswith(b"\xff\xd8")
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None
    return image


def test_the_crop_is_the_zone_with_its_margin_and_shows_what_lies_there() -> None:
    frame = np.zeros((300, 400, 3), np.uint8)
    frame[100:180, 100:150] = 255  # a white card exactly on the zone (50 x 80 mm at +100 px)
    cropper = ZoneCropper(_profile(_zone("player-1", 0, 0, 50, 80)))
    image = _decoded(cropper.crop(frame, "player-1"))
    # The zone (50 x 80) and a quarter of it on each side: 75 x 120 (rounded outwards), the
    # card in the middle.
    height, width = image.shape[:2]
    assert (height, width) in ((120, 75), (120, 76), (121, 76))
    assert image[60, 37].mean() > 200 and image[5, 5].mean() < 60


def test_unknown_off_image_and_uncalibrated_zones_have_no_crop() -> None:
    frame = np.zeros((300, 400, 3), np.uint8)
    cropper = ZoneCropper(_profile(_zone("far", 1000, 1000, 50, 80)))
    assert cropper.crop(frame, "far") is None
    assert cropper.crop(frame, "player-9") is None
    assert ZoneCropper(_profile(_zone("player-1", 0, 0, 50, 80), table=False)).zones == ()


@given(
    x=st.floats(-300, 400),
    y=st.floats(-300, 300),
    w=st.floats(1, 2000),
    h=st.floats(1, 2000),
)
def test_any_zone_gives_a_small_image_or_none_never_an_error(
    x: float, y: float, w: float, h: float
) -> None:
    frame = np.full((300, 400, 3), 128, np.uint8)
    jpeg = ZoneCropper(_profile(_zone("z", x, y, w, h))).crop(frame, "z")
    if jpeg is not None:
        image = _decoded(jpeg)
        assert max(image.shape[:2]) <= MAX_SIDE
        assert image.shape[0] <= 300 and image.shape[1] <= 400
