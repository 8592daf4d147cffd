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

A picture that changed only in part from a settled one (a card laid, dealt cards turned) is read
only in the changed parts (`parts_to_read`): the blocks that moved and the settled cards touching
them, grown by a margin (`STILL_MARGIN` of the settled cards' longest side) for a changed card's
edge that did not move, so every card there lies whole in a part read; changes far apart (a
card laid at each end of the layout since the last settled picture) are read as parts of their
own. The settled cards that touch no moved block keep their reads: their pictures did not
change, and they were read independently before. What the parts read replaces every settled
card touching the moved blocks; a card found there that touches none (one cut by a part's edge,
a settled card read again) is left out. A settled face-up card it could not read is read again
in its part every frame, as the whole frame would be without parts. A change spread over most of
the frame is read whole (`STILL_PART_SHARE`). So is every frame of a recognizer without a table
calibration (`reads_parts`): it sizes guesses by the frame's own firm cards, which a part may
not hold (read in parts, harsh video-like tuning scenes read 93.30% against 96.88% whole).
"""

from __future__ import annotations

from typing import Any, Protocol

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.reading import Box, CardReading
from drivers.camera.stability import FRAMES_REQUIRED
from drivers.camera.tuning import STILL_BLOCK, STILL_MARGIN, STILL_PART_SHARE, STILL_TOLERANCE

Image = npt.NDArray[Any]


class FrameReader(Protocol):
    """What reads a frame: `CardRecognizer`."""

    @property
    def reads_parts(self) -> bool:
        """Whether a part of a frame reads as it would in the whole frame."""
        ...

    def recognize(self, frame: Image, region: Box | None = None) -> list[CardReading]:
        """A reading for every card outline in `frame` (BGR), or in its `region` only.

        A region's readings are in the whole frame's points.
        """
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
        and not _moved_blocks(reference, blocks).any()
    )


def _moved_blocks(reference: Image, blocks: Image) -> Image:
    """Which blocks (a bool grid) moved more than `STILL_TOLERANCE` in some channel."""
    diff = cv2.absdiff(reference, blocks)
    moved: Image = (diff.max(axis=2) if diff.ndim == 3 else diff) > STILL_TOLERANCE
    return moved


def _footprint(readings: list[CardReading], shape: tuple[int, ...]) -> list[Image]:
    """Each reading's card as a mask on the block grid `shape` (its outline, a block wider)."""
    out = []
    for r in readings:
        mask = np.zeros(shape[:2], np.uint8)
        quad = np.round(np.asarray(r.corners, np.float64) / STILL_BLOCK).astype(np.int32)
        cv2.fillConvexPoly(mask, quad, 1)
        out.append(cv2.dilate(mask, np.ones((3, 3), np.uint8)) > 0)
    return out


def parts_to_read(
    changed: Image, margin_px: float, frame_shape: tuple[int, ...]
) -> list[Box] | None:
    """`changed_parts`, or None when nothing changed or they cover most of the frame.

    None means: read the whole frame (`STILL_PART_SHARE`).
    """
    parts = changed_parts(changed, margin_px, frame_shape)
    h, w = frame_shape[:2]
    area = sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in parts)
    return parts if 0 < area <= STILL_PART_SHARE * w * h else None


def changed_parts(changed: Image, margin_px: float, frame_shape: tuple[int, ...]) -> list[Box]:
    """The parts of the frame holding the `changed` blocks (a bool grid), `margin_px` round.

    Changed blocks within twice the margin of each other are one part (the box round them and
    their margin); parts whose boxes overlap are one too, so no pixel is read twice.
    """
    h, w = frame_shape[:2]
    margin = round(margin_px)
    reach = 2 * -(-margin // STILL_BLOCK) + 1
    grown = cv2.dilate(changed.astype(np.uint8), np.ones((reach, reach), np.uint8))
    count, labels = cv2.connectedComponents(grown, connectivity=8)
    boxes = []
    for label in range(1, count):
        ys, xs = np.nonzero((labels == label) & changed)
        boxes.append(
            (
                max(0, int(xs.min()) * STILL_BLOCK - margin),
                max(0, int(ys.min()) * STILL_BLOCK - margin),
                min(w, (int(xs.max()) + 1) * STILL_BLOCK + margin),
                min(h, (int(ys.max()) + 1) * STILL_BLOCK + margin),
            )
        )
    return _apart(boxes)


def _apart(boxes: list[Box]) -> list[Box]:
    """`boxes` with every two that overlap made one (the box round both), until none overlap."""
    out = list(boxes)
    merged = True
    while merged:
        merged = False
        for i, a in enumerate(out):
            for j in range(i + 1, len(out)):
                b = out[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    out[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                    del out[j]
                    merged = True
                    break
            if merged:
                break
    return out


def _longest_side(readings: list[CardReading]) -> float:
    """The longest side of any reading's card, in pixels."""
    quads = np.asarray([r.corners for r in readings], np.float64)
    sides = np.linalg.norm(quads - np.roll(quads, 1, axis=1), axis=2)
    return float(sides.max())


def _what(readings: list[CardReading]) -> list[tuple[str, bool, str]]:
    """What the table takes from readings: each card's code, face and zone, in a fixed order."""
    return sorted((r.code or "", r.face_down, r.zone or "") for r in readings)


class StillRecognizer:
    """`recognizer`'s `recognize` that reuses the last read while the picture has not changed.

    `reads` and `reuses` count frames read afresh and frames answered from the last read;
    `part_reads` how many of the reads read only a changed part of a settled picture
    (`parts=False`: none, every changed picture is read whole).
    """

    def __init__(self, recognizer: FrameReader, *, parts: bool = True) -> None:
        self._recognizer = recognizer
        # False: a changed picture is always read whole (benches compare the two).
        self._parts = parts
        self._reference: Image | None = None
        self._readings: list[CardReading] = []
        self._agreeing = 0
        self._unknown = False
        # The picture the reads last settled on (agreed FRAMES_REQUIRED times and explained),
        # and what they said: a later still picture that reads the same must be this one.
        self._settled: Image | None = None
        self._settled_what: list[tuple[str, bool, str]] = []
        self._settled_readings: list[CardReading] = []
        self._unexplained = False
        self.reads = 0
        self.reuses = 0
        self.part_reads = 0

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
        readings = self._read(frame, blocks)
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

    def _read(self, frame: Image, blocks: Image) -> list[CardReading]:
        """A fresh read of `frame`: of its changed parts only, when a settled picture allows."""
        settled, known = self._settled, self._settled_readings
        if (
            not self._parts
            or not self._recognizer.reads_parts
            or settled is None
            or not known
            or settled.shape != blocks.shape
        ):
            return self._recognizer.recognize(frame)
        # What must be read again: the blocks that moved, and the settled cards it could not
        # read (another read may read them, as a whole frame's would).
        again = _moved_blocks(settled, blocks)
        footprints = _footprint(known, again.shape)
        for reading, footprint in zip(known, footprints, strict=True):
            if reading.code is None and not reading.face_down:
                again |= footprint
        # The settled cards touching it are read again with it, whole; the others are kept.
        changed, kept = again.copy(), []
        for reading, footprint in zip(known, footprints, strict=True):
            if (footprint & again).any():
                changed |= footprint
            else:
                kept.append(reading)
        parts = parts_to_read(changed, STILL_MARGIN * _longest_side(known), frame.shape)
        if parts is None:
            return self._recognizer.recognize(frame)
        self.part_reads += 1
        fresh = [r for part in parts for r in self._recognizer.recognize(frame, part)]
        return kept + [
            r
            for r, f in zip(fresh, _footprint(fresh, again.shape), strict=True)
            if (f & again).any()
        ]

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
            self._settled_readings = list(self._readings)

    def forget(self) -> None:
        """Drop the held read: the next frame is read afresh whatever it shows."""
        self._reference = None
        self._readings = []
        self._agreeing = 0
        self._unknown = False
        self._settled = None
        self._settled_what = []
        self._settled_readings = []
        self._unexplained = False
