"""Card zones: placing named zones on the table from a layout, and drawing them for a technician.

A layout is plain data from the caller (the game's position names arranged in rows, dealer side
first); calibration knows nothing of games. Table coordinates are millimetres with the origin at
the layout's centre and y growing toward the players.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.profile import Zone
from calibration.table import TableGeometry

ZONE_SIZE_MM = (80.0, 110.0)
"""A zone's width and height: a poker card (63 x 88 mm) with room for a dealer's placement."""
GAP_MM = 25.0
"""Space between neighbouring zones, so a card in one never reaches the next."""


def layout_zones(
    rows: Sequence[Sequence[str]],
    zone_size: tuple[float, float] = ZONE_SIZE_MM,
    gap: float = GAP_MM,
) -> list[Zone]:
    """Place each row of names as a centred row of rectangular zones, rows stacked top to bottom.

    Raises `ValueError` when a name appears twice.
    """
    names = [n for row in rows for n in row]
    if len(set(names)) != len(names):
        raise ValueError("a zone name appears twice in the layout")
    w, h = zone_size
    total_h = len(rows) * h + (len(rows) - 1) * gap
    zones = []
    for r, row in enumerate(rows):
        y0 = -total_h / 2 + r * (h + gap)
        total_w = len(row) * w + (len(row) - 1) * gap
        for c, name in enumerate(row):
            x0 = -total_w / 2 + c * (w + gap)
            polygon = [(x0, y0), (x0 + w, y0), (x0 + w, y0 + h), (x0, y0 + h)]
            zones.append(Zone(name=name, polygon=polygon))
    return zones


def zone_centre(zone: Zone) -> tuple[float, float]:
    """The centre (mm) of a zone's polygon."""
    pts = np.asarray(zone.polygon, np.float64)
    return float(pts[:, 0].mean()), float(pts[:, 1].mean())


def draw_zones(
    frame: npt.NDArray[Any], geometry: TableGeometry, zones: Sequence[Zone]
) -> npt.NDArray[Any]:
    """A copy of `frame` with each zone outlined and named, for a technician to check by eye."""
    out: npt.NDArray[Any] = frame.copy()
    for zone in zones:
        pts = geometry.to_image(np.asarray(zone.polygon, np.float64))
        cv2.polylines(out, [np.round(pts).astype(np.int32)], True, (0, 255, 255), 2, cv2.LINE_AA)
        cx, cy = pts.mean(axis=0)
        (tw, th), _ = cv2.getTextSize(zone.name, cv2.FONT_HERSHEY_SIMPLEX, 0.6, 2)
        org = (round(cx - tw / 2), round(cy + th / 2))
        cv2.putText(out, zone.name, org, cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 4, cv2.LINE_AA)
        cv2.putText(
            out, zone.name, org, cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 255, 255), 2, cv2.LINE_AA
        )
    return out
