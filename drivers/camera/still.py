"""`StillRecognizer`: a still picture, once its reads agree, is not read again until it changes.

The table's cards lie at rest most of the time, so a video reader sees the same picture, up to
sensor noise, frame after frame. Each frame is shrunk to block means (`STILL_BLOCK`, one OpenCV
call, ~2 ms at 1080p) and compared with the frame the picture was first read at: a block of any
colour channel moved more than `STILL_TOLERANCE` is a change, and the frame is read afresh and
becomes the new reference. The comparison is always with that first frame, never the previous
one, so a slow drift adds up until the frame is read again. A card taken away, laid down or
replaced changes its blocks far beyond the tolerance, so it is never reported from an old read.

An unchanged picture is still read afresh until `FRAMES_REQUIRED` reads in a row agree (the
same cards, faces and zones): the table confirms a card on that many agreeing frames, and those
must be independent reads, not one read repeated. After that the last read is reused, unless it
holds a face-up card it could not read: another read of the same picture may read it (noise
differs frame to frame), so such a picture is read afresh every frame, as without reuse.

Nor is it reused when the picture changed and its reads did not: they agree on exactly what was
read before the change, and the picture is not the one those reads were settled on. A card laid
where the reader found nothing leaves no unknown card to keep the reads going, only a changed
picture; its first reads may miss it (an overlapped or blurred card is found in most frames,
not all), and reusing them would never look for it again, so the table would wait for it
until its confirmation timeout. Such a picture is read afresh every frame until its reads change
or the picture does. A picture that comes back to the settled one (a hand passing over the felt
and gone) is explained by the settled reads and is reused as before.
"""

from __future__ import annotations

from typing import Any, Protocol

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.reading import CardReading
from drivers.camera.stability import FRAMES_REQUIRED
from drivers.camera.tuning import STILL_BLOCK, STILL_TOLERANCE

Image = npt.NDArray[Any]


class FrameReader(Protocol):
    """What reads a frame: `CardRecognizer`."""

    def recognize(self, frame: Image) -> list[CardReading]:
        """A reading for every card outline in `frame` (BGR)."""
        ...


def block_means(frame: Image) -> Image:
    """`frame` shrunk to the mean of each `STILL_BLOCK` square (uint8, per channel)."""
    h, w = frame.shape[:2]
    size = (max(1, w // STILL_BLOCK), max(1, h // STILL_BLOCK))
    out: Image = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
    return out


def _same_picture(reference: Image | None, blocks: Image) -> bool:
    """Whether `blocks` (a frame's `block_means`) show the picture `reference` showed.

    The same picture: no block of any channel moved more than `STILL_TOLERANCE`.
    """
    return (
        reference is not None
        and reference.shape == blocks.shape
        and int(np.max(cv2.absdiff(reference, blocks))) <= STILL_TOLERANCE
    )


def _what(readings: list[CardReading]) -> list[tuple[str, bool, str]]:
    """What the table takes from readings: each card's code, face and zone, in a fixed order."""
    return sorted((r.code or "", r.face_down, r.zone or "") for r in readings)


class StillRecognizer:
    """`recognizer`'s `recognize` that reuses the last read while the picture has not changed.

    `reads` and `reuses` count frames read afresh and frames answered from the last read.
    """

    def __init__(self, recognizer: FrameReader) -> None:
        self._recognizer = recognizer
        self._reference: Image | None = None
        self._readings: list[CardReading] = []
        self._agreeing = 0
        self._unknown = False
        # The picture the reads last settled on (agreed FRAMES_REQUIRED times and explained),
        # and what they said: a later still picture that reads the same must be this one.
        self._settled: Image | None = None
        self._settled_what: list[tuple[str, bool, str]] = []
        self._unexplained = False
        self.reads = 0
        self.reuses = 0

    def recognize(self, frame: Image) -> list[CardReading]:
        """The readings of `frame` (BGR): the last read's when the picture is still, or a read."""
        blocks = block_means(frame)
        still = _same_picture(self._reference, blocks)
        if (
            still
            and self._agreeing >= FRAMES_REQUIRED
            and not self._unknown
            and not self._unexplained
        ):
            self.reuses += 1
            return list(self._readings)
        readings = self._recognizer.recognize(frame)
        self.reads += 1
        what = _what(readings)
        if still and what == _what(self._readings):
            self._agreeing += 1
        elif still:
            self._agreeing = 1
        else:
            self._reference, self._agreeing = blocks, 1
        self._readings = list(readings)
        self._unknown = any(r.code is None and not r.face_down for r in readings)
        if self._agreeing == FRAMES_REQUIRED:
            self._settle(blocks, what)
        return readings

    def _settle(self, blocks: Image, what: list[tuple[str, bool, str]]) -> None:
        """The reads of the picture now held agreed: settle on it, unless it is unexplained.

        Unexplained: it is not the settled picture, yet its reads are the settled ones (module
        docstring); it is then read afresh every frame until its reads or the picture change.
        """
        self._unexplained = (
            self._settled is not None
            and what == self._settled_what
            and not _same_picture(self._settled, blocks)
        )
        if not self._unexplained:
            self._settled, self._settled_what = self._reference, what

    def forget(self) -> None:
        """Drop the held read: the next frame is read afresh whatever it shows."""
        self._reference = None
        self._readings = []
        self._agreeing = 0
        self._unknown = False
        self._settled = None
        self._settled_what = []
        self._unexplained = False
