"""What the camera reports: one `CardReading` per card outline, gathered in a `FrameReading`.

These are the driver's own typed readings (pydantic, unknown fields refused, versioned); the
shell turns stable ones into the controller's camera input. `code` is None when the card is face
down or could not be read with confidence ("unknown"): a wrong card is worse than none.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict

READING_VERSION = 1
"""The schema version of camera readings."""


Box = tuple[int, int, int, int]
"""A part of a frame: x0, y0, x1, y1 in pixels, the end exclusive (`frame[y0:y1, x0:x1]`)."""


class ReadingSource(StrEnum):
    """Which kind of outline a reading was made on: what the recognizer knew when it decided.

    Benches and incident reports use it to tell where a wrong read or a phantom came from; the
    `studio recognize --json` contract does not print it.
    """

    FIRM = "firm"
    """A whole card outline found by the finder (a bright, card-shaped region)."""
    EXTENDED = "extended"
    """A firm outline extended to a full card from a strip of it (a neighbour covers the rest)."""
    SNAPPED = "snapped"
    """A firm outline that did not read, moved onto the image edges nearest it and read again."""
    IN_VIEW = "in_view"
    """An extended outline read again on the part of its card in view (`visible.py`)."""
    PROPOSAL = "proposal"
    """A card-sized outline proposed inside a bright region holding several cards (`merged.py`)."""
    CORNER = "corner"
    """An outline built on an index corner the learned detector found (`finder.py`)."""
    DENSE = "dense"
    """An outline built on an index corner the dense detector found inside a bright region,
    vouched for by the learned index-corner detector (`finder.dense_found_corners`)."""
    REFINED = "refined"
    """A guessed index corner whose read leaned under the bar, moved to where the learned
    detector places the index and read again (`finder.refined_corners`)."""


class CardReading(BaseModel):
    """One card seen in one frame.

    `corners` are the image corners of the card as it lies (top-left, top-right, bottom-right,
    bottom-left of the upright card when it was read, else clockwise from a short side; a
    four-index card read only at its top-right or bottom-left index starts there and runs the
    other way: top-right, top-left, bottom-left, bottom-right, `other_corners.MIRRORED`);
    `confidence` is how sure the learned reader was (0..1, the weaker head); `zone` is the table
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
    source: ReadingSource = ReadingSource.FIRM
    """The kind of outline the reading was made on."""
    index_reads: int = 0
    """How many of the card's index corners named its code (0 for an unknown card, 1 or 2)."""


class FrameReading(BaseModel):
    """Every card seen in one frame, with the frame's number and capture time (UTC)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal[1] = 1
    frame: int
    ts: datetime
    cards: tuple[CardReading, ...]
