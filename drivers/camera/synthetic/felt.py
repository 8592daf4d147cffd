"""The synthetic table's felt: what lies where, and a frame source that draws it.

`Felt` is the model a simulated dealer keeps of the cards on the table (zone -> card, face up or
down, and exactly how it lies). The dealer changes it in one thread and the camera reads it in
another, so every change swaps in a new immutable view under a lock, with a version number.
`FeltLayout` places the zones (named by the caller, usually the table's positions) in rows and
frames them in a camera view; `FeltSource` is a frame source that draws the felt through that
view with `scene.render_scene`, only when the felt changed. `felt_profile` builds the calibration
profile a recognizer needs for it: the deck learned from rendered scans, and the homography and
zones of the same layout the frames are drawn from.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from calibration.deck import learn_deck
from calibration.profile import CalibrationProfile, DeckTemplates, TableCalibration, Zone
from calibration.zones import layout_zones, zone_centre
from drivers.camera.errors import CameraConnectionError
from drivers.camera.index_model import Image
from drivers.camera.sources import Frame
from drivers.camera.synthetic.designs import CARD_HEIGHT_MM, Design
from drivers.camera.synthetic.reference import render_reference
from drivers.camera.synthetic.scene import (
    TEXTURE_HEIGHT,
    PlacedCard,
    Points,
    Scene,
    project,
    render_scene,
)
from studio.cards import DECK, Card
from studio.closing import Closing

FRAME_SIZE = (1280, 720)
"""Width and height of the synthetic camera's frames: modest, cheap to draw and to read."""
CARD_PX = 170.0
"""Card height aimed at in the frame. The recognizer finds card backs reliably from about 160 px
and reads both designs' indices well above it; a layout too big for the frame gets less."""
ZONE_GAP_MM = 12.0
"""Space between zones on the synthetic felt: three rows of zones (Hold'em's dealer, board and
players) then fit 720 pixels at `CARD_PX`."""
JITTER_MM = 3.0
"""How far from its zone's centre a card may land (mm), as a dealer's hand places it."""
JITTER_DEGREES = 3.0
"""How far a card may turn from square (degrees)."""
BLUR_SIGMA = 0.5
NOISE = 0.0
JPEG_QUALITY = 85
"""Mild defocus and the JPEG artefacts of a streaming camera: the frames are not clean renders,
but every index stays sharp enough for the recognizer's strictest gate (black suits). JPEG
rather than sensor noise: the noise (2 levels) read just as well but doubled the drawing time
(47 against 22 ms a frame at 1280x720)."""
_TILT = (0.0, 0.00006)
# The camera looks down at the felt from slightly behind the dealer: rows nearer the players
# appear a little smaller, as in a studio.


@dataclass(frozen=True, slots=True)
class FeltCard:
    """A card on the felt: which card, face up or not, and its offset (mm) and turn from square."""

    card: Card
    face_up: bool
    dx: float
    dy: float
    angle: float


class Felt:
    """The cards lying on the table, by zone; safe to change and read from different threads.

    `view()` returns the version and an immutable mapping; every change bumps the version, so a
    camera can tell whether anything moved since it last drew the felt. `seed` seeds where cards
    land within their zones.
    """

    def __init__(self, seed: int | str = 0) -> None:
        self._lock = threading.Lock()
        self._rng = random.Random(seed)
        self._cards: Mapping[str, FeltCard] = MappingProxyType({})
        self._version = 0

    def _set(self, cards: dict[str, FeltCard]) -> None:
        with self._lock:
            self._cards = MappingProxyType(cards)
            self._version += 1

    def _landed(self, card: Card, face_up: bool) -> FeltCard:
        def jitter(limit: float) -> float:
            return self._rng.uniform(-limit, limit)

        return FeltCard(card, face_up, jitter(JITTER_MM), jitter(JITTER_MM), jitter(JITTER_DEGREES))

    def place(self, zone: str, card: Card, face_up: bool) -> None:
        """Lay `card` in `zone` (replacing what lay there), face up or down."""
        cards = dict(self._cards)
        cards[zone] = self._landed(card, face_up)
        self._set(cards)

    def turn(self, zone: str) -> None:
        """Turn the card in `zone` face up where it lies (a reveal); nothing there: no change."""
        lying = self._cards.get(zone)
        if lying is None or lying.face_up:
            return
        cards = dict(self._cards)
        cards[zone] = FeltCard(lying.card, True, lying.dx, lying.dy, lying.angle)
        self._set(cards)

    def nudge(self, zone: str) -> None:
        """Straighten the card in `zone`: it lies again, a little differently (if there is one)."""
        lying = self._cards.get(zone)
        if lying is not None:
            self.place(zone, lying.card, lying.face_up)

    def remove(self, zone: str) -> None:
        """Take the card in `zone` off the felt (nothing there: no change)."""
        if zone in self._cards:
            cards = dict(self._cards)
            del cards[zone]
            self._set(cards)

    def clear(self) -> None:
        """Collect every card (a round's end)."""
        if self._cards:
            self._set({})

    def view(self) -> tuple[int, Mapping[str, FeltCard]]:
        """The version and the cards now (an immutable mapping the felt never changes)."""
        with self._lock:
            return self._version, self._cards


@dataclass(frozen=True, slots=True)
class FeltLayout:
    """Zones in rows on the felt and the camera's view of them (`table_to_image`, mm -> pixels)."""

    zones: tuple[Zone, ...]
    table_to_image: Points
    design: Design
    size: tuple[int, int] = FRAME_SIZE

    @classmethod
    def build(
        cls,
        rows: Sequence[Sequence[str]],
        design: Design,
        size: tuple[int, int] = FRAME_SIZE,
        card_px: float = CARD_PX,
    ) -> FeltLayout:
        """Zones for `rows` of names (top row first), framed so cards are about `card_px` tall.

        Cards get less when the layout would not fit the frame `size`.

        Raises `ValueError` when a name appears twice.
        """
        zones = layout_zones(rows, gap=ZONE_GAP_MM)
        corners = np.array([p for z in zones for p in z.polygon], np.float64)
        extent_w = float(corners[:, 0].max() - corners[:, 0].min())
        extent_h = float(corners[:, 1].max() - corners[:, 1].min())
        width, height = size
        scale = min(card_px / CARD_HEIGHT_MM, 0.96 * width / extent_w, 0.96 * height / extent_h)
        similarity = np.array([[scale, 0, width / 2], [0, scale, height / 2], [0, 0, 1.0]])
        tilt = np.eye(3)
        tilt[2, :2] = _TILT
        return cls(tuple(zones), similarity @ tilt, design, size)

    def calibration(self) -> TableCalibration:
        """The image-to-table homography of this view, as a table calibration would find it."""
        return TableCalibration(
            image_to_table=np.linalg.inv(self.table_to_image).tolist(),
            method="points",
            image_size=self.size,
            residual_mm=0.0,
        )

    def scene(self, cards: Mapping[str, FeltCard], seed: int) -> Scene:
        """The scene of `cards` lying in their zones (unknown zone names are not drawn)."""
        centres = {z.name: zone_centre(z) for z in self.zones}
        placed = tuple(
            PlacedCard(c.card, centres[name][0] + c.dx, centres[name][1] + c.dy, c.angle, c.face_up)
            for name, c in cards.items()
            if name in centres
        )
        return Scene(
            width=self.size[0],
            height=self.size[1],
            table_to_image=self.table_to_image,
            design=self.design,
            cards=placed,
            blur_sigma=BLUR_SIGMA,
            noise=NOISE,
            jpeg_quality=JPEG_QUALITY,
            seed=seed,
        )

    def card_height_px(self) -> float:
        """The height in pixels of a card at the layout's centre."""
        ends = project(self.table_to_image, np.array([[0.0, -CARD_HEIGHT_MM / 2], [0.0, 44.0]]))
        return float(np.linalg.norm(ends[1] - ends[0]))


def felt_references(design: Design) -> dict[str, Image]:
    """The 52 scans of `design` the simulated table learns its deck from, keyed by code."""
    return {
        c.code: render_reference(c, design, "scan", i, height=TEXTURE_HEIGHT)
        for i, c in enumerate(DECK)
    }


def felt_profile(
    layout: FeltLayout, *, model_cache: Path | None = None
) -> tuple[CalibrationProfile, DeckTemplates]:
    """A calibration profile for frames of `layout`: deck, table homography and zones.

    The deck is learned (`calibration.deck.learn_deck`, its learned index reader cached in
    `model_cache` when given) from the 52 rendered scans of the layout's design at the
    resolution its cards are drawn at; the table and zones are the layout's own, so zone names
    in readings are the layout's names.
    """
    deck, templates = learn_deck(felt_references(layout.design), model_cache=model_cache)
    profile = CalibrationProfile(table=layout.calibration(), zones=list(layout.zones), deck=deck)
    return profile, templates


class FeltSource(Closing):
    """Frames of a `Felt` through a `FeltLayout`, drawn again only when the felt changed.

    `read()` returns at once: the same image object while nothing moved (a reader may reuse what
    it found in it), a new one after any change. Each drawing gets its own noise. `renders`
    counts drawings. Closing it is idempotent; a closed source raises `CameraConnectionError`.
    """

    def __init__(self, felt: Felt, layout: FeltLayout) -> None:
        self._felt = felt
        self._layout = layout
        self._version = -1
        self._image: Any = None
        self._count = 0
        self._closed = False
        self.renders = 0

    def read(self) -> Frame:
        """The felt now, as a frame (see the class docstring)."""
        if self._closed:
            raise CameraConnectionError("the synthetic camera is closed")
        version, cards = self._felt.view()
        if version != self._version:
            scene = self._layout.scene(cards, seed=version)
            self._image = render_scene(scene, truth=False).image
            self._version = version
            self.renders += 1
        self._count += 1
        return Frame(self._image, self._count, datetime.now(UTC), time.monotonic())

    def close(self) -> None:
        """Mark the source closed; idempotent."""
        self._closed = True
