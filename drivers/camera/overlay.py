"""A frame with what the recognizer saw drawn on it, for a technician to look at.

`draw_readings` draws each reading's outline (green: read, orange: unknown, grey: face down),
a dot on the corner it was read from, its code and confidence, its zone, and the table's zones
(outlined in blue with their names) when they are given in image pixels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.reading import CardReading

Image = npt.NDArray[Any]

READ = (60, 200, 60)
UNKNOWN = (0, 150, 255)
FACE_DOWN = (160, 160, 160)
ZONE = (220, 140, 40)


def _label(image: Image, text: str, org: tuple[int, int], colour: tuple[int, int, int]) -> None:
    """`text` at `org` on a dark box, so it stays legible on white cards and felt alike."""
    scale = max(0.5, image.shape[0] / 1800)
    thick = max(1, round(scale * 2))
    (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    x = min(max(0, org[0]), max(0, image.shape[1] - w))
    y = min(max(h + base, org[1]), image.shape[0] - 1)
    cv2.rectangle(image, (x, y - h - base), (x + w, y + base // 2), (20, 20, 20), -1)
    cv2.putText(image, text, (x, y - base // 2), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick)


def draw_readings(
    frame: Image,
    readings: Sequence[CardReading],
    zones: Sequence[tuple[str, npt.NDArray[Any]]] = (),
) -> Image:
    """A copy of BGR `frame` with `readings` and `zones` (name, (N, 2) image points) drawn."""
    out: Image = frame.copy()
    for name, polygon in zones:
        pts = np.round(np.asarray(polygon, np.float64)).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [pts], True, ZONE, 2, cv2.LINE_AA)
        x, y = pts.reshape(-1, 2).min(axis=0)
        _label(out, name, (int(x) + 4, int(y) + 24), ZONE)
    for r in readings:
        colour = FACE_DOWN if r.face_down else READ if r.code is not None else UNKNOWN
        quad = np.round(np.array(r.corners, np.float64)).astype(np.int32)
        cv2.polylines(out, [quad.reshape(-1, 1, 2)], True, colour, 2, cv2.LINE_AA)
        # Corners are given from the corner the card was read at: mark it.
        cv2.circle(out, (int(quad[0, 0]), int(quad[0, 1])), 5, colour, -1, cv2.LINE_AA)
        code = "back" if r.face_down else r.code or "unknown"
        text = f"{code} {r.confidence:.2f}" + (f" @{r.zone}" if r.zone else "")
        x, y = quad.mean(axis=0)
        _label(out, text, (int(x) - 40, int(y)), colour)
    return out
