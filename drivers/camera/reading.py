"""What the camera reports: one `CardReading` per card outline, gathered in a `FrameReading`.

These are the driver's own typed readings (pydantic, unknown fields refused, versioned); the
shell turns stable ones into the controller's camera input. `code` is None when the card is face
down or could not be read with confidence ("unknown"): a wrong card is worse than none.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

READING_VERSION = 1
"""The schema version of camera readings."""


class CardReading(BaseModel):
    """One card seen in one frame.

    `corners` are the image corners of the card as it lies (top-left, top-right, bottom-right,
    bottom-left of the upright card when it was read, else clockwise from a short side);
    `confidence` is the template match (0..1) of the weaker of rank and suit; `zone` is the table
    zone holding the card's centre, or None without table calibration or outside every zone.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    code: str | None
    face_down: bool
    corners: tuple[
        tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float]
    ]
    confidence: float
    zone: str | None


class FrameReading(BaseModel):
    """Every card seen in one frame, with the frame's number and capture time (UTC)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal[1] = 1
    frame: int
    ts: datetime
    cards: tuple[CardReading, ...]
