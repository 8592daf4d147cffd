"""`ZoneCropper`: the part of a camera frame that shows one card zone, as a small JPEG.

A shift manager reading an incident at a position ("the shoe could not read a card at
player-1") is helped by seeing that zone as the camera sees it now. The zone's polygon (table
millimetres, from the calibration profile) is mapped into the image through the table
homography; its bounding box, with a margin, is cut out, scaled down to at most `MAX_SIDE`
pixels and encoded as JPEG. The crop may show a card's face: only roles that may read restricted
events ever receive it (the replay service and the console both check).
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.profile import CalibrationProfile
from calibration.table import TableGeometry

MARGIN = 0.25
"""Share of the zone's size added on each side: a card laid a little off its zone still shows,
and so does a lens's distortion, which the homography (undistorted pixels) leaves out."""

MAX_SIDE = 360
"""Longest side of a crop in pixels: enough to read a card's index on a manager's screen."""

JPEG_QUALITY = 80


class ZoneCropper:
    """Cut zones out of frames of the camera `profile` calibrates (see the module docstring).

    A profile without table calibration has no zones in the image: every crop is then None.
    """

    def __init__(self, profile: CalibrationProfile) -> None:
        """Map every zone of `profile` to its box in image pixels, once."""
        geometry = TableGeometry.from_profile(profile)
        self._boxes: dict[str, tuple[float, float, float, float]] = {}
        if geometry is None:
            return
        for zone in profile.zones:
            corners = geometry.to_image(np.asarray(zone.polygon, np.float64))
            x0, y0 = corners.min(axis=0)
            x1, y1 = corners.max(axis=0)
            mx, my = (x1 - x0) * MARGIN, (y1 - y0) * MARGIN
            self._boxes[zone.name] = (x0 - mx, y0 - my, x1 + mx, y1 + my)

    @property
    def zones(self) -> tuple[str, ...]:
        """The zones this cropper can cut out."""
        return tuple(self._boxes)

    def crop(self, image: npt.NDArray[Any], zone: str) -> bytes | None:
        """`zone` of the BGR `image` as JPEG bytes; None for an unknown zone or one off-image."""
        box = self._boxes.get(zone)
        if box is None:
            return None
        height, width = image.shape[:2]
        x0, y0 = max(0, int(box[0])), max(0, int(box[1]))
        x1, y1 = min(width, int(np.ceil(box[2]))), min(height, int(np.ceil(box[3])))
        if x1 - x0 < 2 or y1 - y0 < 2:
            return None
        part = image[y0:y1, x0:x1]
        scale = MAX_SIDE / max(x1 - x0, y1 - y0)
        if scale < 1.0:
            size = (max(1, round((x1 - x0) * scale)), max(1, round((y1 - y0) * scale)))
            part = cv2.resize(part, size, interpolation=cv2.INTER_AREA)
        ok, encoded = cv2.imencode(".jpg", part, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        return encoded.tobytes() if ok else None
