"""Shared helpers for the camera tests: learned decks per design and scoring against truth."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from calibration.deck import learn_deck
from calibration.profile import CalibrationProfile, DeckTemplates
from drivers.camera.reading import CardReading
from drivers.camera.synthetic.designs import DESIGNS
from drivers.camera.synthetic.reference import render_reference
from drivers.camera.synthetic.scene import RenderedFrame
from studio.cards import DECK


@lru_cache(maxsize=4)
def deck_profile(design: str) -> tuple[CalibrationProfile, DeckTemplates]:
    """A profile whose deck was learned from the 52 rendered scans of `design`."""
    refs = {c.code: render_reference(c, DESIGNS[design], "scan", i) for i, c in enumerate(DECK)}
    deck, templates = learn_deck(refs)
    return CalibrationProfile(deck=deck), templates


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection area of two convex quads over the area of `a`."""
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(area) / max(1.0, float(cv2.contourArea(a.astype(np.float32))))


@dataclass
class Score:
    """Counts over frames: readable face-up cards, read right, wrong reads, phantoms, faces."""

    readable: int = 0
    read: int = 0
    wrong: int = 0
    phantom: int = 0
    face_errors: int = 0
    unknown: int = 0
    detections: int = 0
    misses: list[str] = field(default_factory=list)
    wrongs: list[str] = field(default_factory=list)

    def add(self, frame: RenderedFrame, readings: list[CardReading]) -> None:
        """Score one frame's readings against its ground truth."""
        by_code = {t.code: t for t in frame.cards}
        for r in readings:
            self.detections += 1
            quad = np.array(r.corners)
            touching = [t for t in frame.cards if _overlap(t.corners, quad) > 0.2]
            if not touching:
                self.phantom += 1
                continue
            if r.code is not None:
                truth = by_code.get(r.code)
                if truth is None or not truth.face_up or _overlap(truth.corners, quad) < 0.3:
                    self.wrong += 1
                    self.wrongs.append(f"{r.code} on {' '.join(t.code for t in touching)}")
            elif not r.face_down:
                self.unknown += 1
            if r.face_down and not any(not t.face_up for t in touching):
                self.face_errors += 1
        codes = {r.code for r in readings}
        for t in frame.cards:
            if t.face_up and t.readable:
                self.readable += 1
                if t.code in codes:
                    self.read += 1
                else:
                    self.misses.append(t.code)

    @property
    def recall(self) -> float:
        """Share of readable face-up cards read with their right code."""
        return self.read / self.readable if self.readable else 1.0
