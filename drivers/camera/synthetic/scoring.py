"""Scoring recognizer output against a rendered frame's ground truth (tests and the bench).

A reading is matched to the drawn cards it overlaps. A code on a card that does not carry it is a
wrong read; a reading overlapping no card at all is a phantom (a chip, box or glare taken for a
card). Recall counts readable face-up cards (an index corner in view) read with their code.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.reading import CardReading
from drivers.camera.synthetic.scene import CardTruth, RenderedFrame


def overlap(a: npt.NDArray[Any], b: npt.NDArray[Any]) -> float:
    """Intersection area of two convex quads over the area of `a`."""
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(area) / max(1.0, float(cv2.contourArea(a.astype(np.float32))))


@dataclass
class Score:
    """Counts over frames; `by_tag` holds (readable, read) per difficulty tag."""

    readable: int = 0
    read: int = 0
    wrong: int = 0
    phantom: int = 0
    face_errors: int = 0
    unknown: int = 0
    detections: int = 0
    misses: list[str] = field(default_factory=list)
    wrongs: list[str] = field(default_factory=list)
    by_tag: dict[str, list[int]] = field(default_factory=dict)

    def add(
        self,
        frame: RenderedFrame,
        readings: list[CardReading],
        tags: dict[int, set[str]] | None = None,
    ) -> None:
        """Score one frame; `tags` maps a truth card's index to its difficulty tags."""
        by_code = {t.code: t for t in frame.cards}
        for r in readings:
            self.detections += 1
            quad = np.array(r.corners)
            touching = [t for t in frame.cards if overlap(t.corners, quad) > 0.2]
            if not touching:
                self.phantom += 1
                continue
            if r.code is not None:
                truth = by_code.get(r.code)
                if truth is None or not truth.face_up or overlap(truth.corners, quad) < 0.3:
                    self.wrong += 1
                    self.wrongs.append(
                        f"{r.code} ({r.confidence:.4f}) on {' '.join(t.code for t in touching)}"
                    )
            elif not r.face_down:
                self.unknown += 1
            if r.face_down and not any(not t.face_up for t in touching):
                self.face_errors += 1
        codes = {r.code for r in readings}
        for i, t in enumerate(frame.cards):
            if not (t.face_up and t.readable):
                continue
            hit = t.code in codes
            self.readable += 1
            self.read += hit
            if not hit:
                self.misses.append(t.code)
            for tag in (tags or {}).get(i, set()) | {"all"}:
                counts = self.by_tag.setdefault(tag, [0, 0])
                counts[0] += 1
                counts[1] += hit

    @property
    def recall(self) -> float:
        """Share of readable face-up cards read with their right code."""
        return self.read / self.readable if self.readable else 1.0

    @property
    def unknown_rate(self) -> float:
        """Share of detections reported face up but unknown."""
        return self.unknown / self.detections if self.detections else 0.0

    def miss_counts(self) -> Counter[str]:
        """How often each card code was missed."""
        return Counter(self.misses)


def card_height_px(truth: CardTruth) -> float:
    """The drawn card's height in pixels (mean of its two long sides)."""
    c = truth.corners
    return float((np.linalg.norm(c[3] - c[0]) + np.linalg.norm(c[2] - c[1])) / 2)
