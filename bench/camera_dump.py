"""Every wrong read and phantom of a `bench/camera.py` run, written out to be looked at.

`--dump DIR` makes the bench write, per wrong read or phantom, one JSON line to
`DIR/events.jsonl` (a `DumpEvent`) and two pictures: `DIR/NNNN-crop.png`, the frame around the
reading with its outline drawn (red, a dot on the corner it was read at, the index window it read
in yellow) and the drawn cards under it (green, with their codes), and `DIR/NNNN-frame.png`, the
whole frame exactly as the recognizer saw it (lossless), to read again while looking for a cause.
The frame is also found again from `design`, `envelope`, `scene_seed` and `frame`: the bench's
`frame`-th scene of that design, drawn from `numpy.random.default_rng([scene_seed, design])`.

Each event is classified, so a run's counts say what kind of error dominates:

- a wrong read is `wrong_code` when the card carrying the code read is not under the outline
  (or not in the frame, or face down), and `misplaced` when it is under it but the outline
  covers it badly (the scorer counts overlap under 0.3 as wrong): the right code on a wrong
  outline;
- a phantom (a reading touching no drawn card) is `coded`, `unknown` or `face_down`.

`index_under` names the drawn card whose index window lies nearest the window the code was read
in, and how far (in card heights): a wrong code read in a window that sits on another card's
index is a neighbour's index seen through a misplaced outline.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict

from drivers.camera.reading import CardReading, ReadingSource
from drivers.camera.synthetic.scene import CardTruth, RenderedFrame
from drivers.camera.synthetic.scoring import card_height_px, overlap
from drivers.camera.tuning import INDEX_CENTRE

WrongKind = Literal["wrong_code", "misplaced"]
PhantomKind = Literal["coded", "unknown", "face_down"]


class TruthUnder(BaseModel):
    """A drawn card under a reading's outline and how much of it the outline covers."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    code: str
    face_up: bool
    overlap: float
    """Intersection of the drawn card and the reading's outline over the drawn card's area."""
    visible: float


@dataclass(frozen=True, slots=True)
class FrameOrigin:
    """Where a bench frame comes from: enough to draw it again (see the module docstring)."""

    design: str
    design_seed: int
    envelope: str
    scene_seed: int
    frame: int


class DumpEvent(BaseModel):
    """One wrong read or phantom, with where to find its frame again and what made it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    number: int
    event: Literal["wrong", "phantom"]
    kind: WrongKind | PhantomKind
    design: str
    design_seed: int
    envelope: str
    scene_seed: int
    frame: int
    code: str | None
    confidence: float
    source: ReadingSource
    index_reads: int
    corners: list[list[float]]
    truth_under: list[TruthUnder]
    code_card_overlap: float | None
    """Overlap of the card carrying the read code (None when no such card is face up)."""
    index_under: str | None
    index_distance: float | None
    """Distance from the read window's centre to `index_under`'s nearest index centre, in card
    heights."""
    card_px: float
    crop: str
    image: str


def _index_centres(quad: npt.NDArray[Any]) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    u, v = INDEX_CENTRE
    q = np.asarray(quad, np.float64)
    first = q[0] + u * (q[1] - q[0]) + v * (q[3] - q[0])
    third = q[2] + u * (q[3] - q[2]) + v * (q[1] - q[2])
    return first, third


def _height(quad: npt.NDArray[Any]) -> float:
    q = np.asarray(quad, np.float64)
    return float(np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2


def wrong_kind(reading: CardReading, frame: RenderedFrame) -> WrongKind:
    """`misplaced` when the face-up card carrying the code lies under the outline, else
    `wrong_code`."""
    quad = np.array(reading.corners)
    truth = next((t for t in frame.cards if t.code == reading.code), None)
    if truth is not None and truth.face_up and overlap(truth.corners, quad) > 0.0:
        return "misplaced"
    return "wrong_code"


def phantom_kind(reading: CardReading) -> PhantomKind:
    """What a reading touching no drawn card claimed."""
    if reading.code is not None:
        return "coded"
    return "face_down" if reading.face_down else "unknown"


class EventDump:
    """Counts the wrong reads and phantoms of a bench run by kind and outline source, and
    writes each into `out` (see the module docstring) unless `out` is None."""

    def __init__(self, out: Path | None) -> None:
        self._out = out
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
            (out / "events.jsonl").write_text("", encoding="utf-8")
        self.count = 0
        self.kinds: Counter[str] = Counter()
        self.sources: Counter[str] = Counter()

    def frame(
        self,
        frame: RenderedFrame,
        readings: list[CardReading],
        origin: FrameOrigin,
    ) -> None:
        """Write out each wrong read and phantom among `readings` of the frame from `origin`."""
        image_name: str | None = None
        for r in readings:
            quad = np.array(r.corners)
            touching = [t for t in frame.cards if overlap(t.corners, quad) > 0.2]
            event: Literal["wrong", "phantom"]
            kind: WrongKind | PhantomKind
            if not touching:
                event, kind = "phantom", phantom_kind(r)
            elif r.code is not None:
                truth = next((t for t in frame.cards if t.code == r.code), None)
                if truth is not None and truth.face_up and overlap(truth.corners, quad) >= 0.3:
                    continue
                event, kind = "wrong", wrong_kind(r, frame)
            else:
                continue
            if image_name is None:
                image_name = f"{self.count:04d}-frame.png"
                if self._out is not None:
                    cv2.imwrite(str(self._out / image_name), frame.image)
            self._write(frame, r, event, kind, image_name, origin)

    def _write(
        self,
        frame: RenderedFrame,
        r: CardReading,
        event: Literal["wrong", "phantom"],
        kind: WrongKind | PhantomKind,
        image_name: str,
        origin: FrameOrigin,
    ) -> None:
        quad = np.array(r.corners, np.float64)
        under = [
            TruthUnder(
                code=t.code,
                face_up=t.face_up,
                overlap=round(overlap(t.corners, quad), 3),
                visible=round(t.visible, 3),
            )
            for t in frame.cards
            if overlap(t.corners, quad) > 0.0
        ]
        code_card = next((t for t in frame.cards if t.code == r.code and t.face_up), None)
        window = _index_centres(quad)[0]
        nearest: tuple[float, CardTruth] | None = None
        for t in frame.cards:
            h = card_height_px(t)
            for centre in _index_centres(t.corners):
                d = float(np.linalg.norm(centre - window)) / h
                if nearest is None or d < nearest[0]:
                    nearest = (d, t)
        crop = f"{self.count:04d}-crop.png"
        if self._out is not None:
            self._crop(frame, quad, r, self._out / crop)
        record = DumpEvent(
            number=self.count,
            event=event,
            kind=kind,
            design=origin.design,
            design_seed=origin.design_seed,
            envelope=origin.envelope,
            scene_seed=origin.scene_seed,
            frame=origin.frame,
            code=r.code,
            confidence=r.confidence,
            source=r.source,
            index_reads=r.index_reads,
            corners=[[float(x), float(y)] for x, y in r.corners],
            truth_under=under,
            code_card_overlap=None
            if code_card is None
            else round(overlap(code_card.corners, quad), 3),
            index_under=None if nearest is None else nearest[1].code,
            index_distance=None if nearest is None else round(nearest[0], 3),
            card_px=round(_height(quad), 1),
            crop=crop,
            image=image_name,
        )
        if self._out is not None:
            with (self._out / "events.jsonl").open("a", encoding="utf-8") as log:
                log.write(record.model_dump_json() + "\n")
        self.count += 1
        self.kinds[f"{event}/{kind}"] += 1
        self.sources[f"{event}/{r.source.value}"] += 1

    def _crop(
        self, frame: RenderedFrame, quad: npt.NDArray[Any], r: CardReading, path: Path
    ) -> None:
        """The frame around `quad`, the reading and the drawn cards under it drawn on it."""
        canvas = frame.image.copy()
        for t in frame.cards:
            if overlap(t.corners, quad) <= 0.0:
                continue
            pts = np.round(t.corners).astype(np.int32)
            cv2.polylines(canvas, [pts], True, (0, 200, 0), 1, cv2.LINE_AA)
            x, y = pts.mean(axis=0)
            label = t.code if t.face_up else f"({t.code})"
            cv2.putText(canvas, label, (int(x), int(y)), cv2.FONT_HERSHEY_SIMPLEX, 0.8,
                        (0, 160, 0), 2, cv2.LINE_AA)  # fmt: skip
        cv2.polylines(canvas, [np.round(quad).astype(np.int32)], True, (0, 0, 255), 1, cv2.LINE_AA)
        q = quad
        box = ((0.02, 0.02), (0.27, 0.02), (0.27, 0.33), (0.02, 0.33))
        win = np.array([q[0] + a * (q[1] - q[0]) + b * (q[3] - q[0]) for a, b in box])
        cv2.polylines(canvas, [np.round(win).astype(np.int32)], True, (0, 220, 255), 1, cv2.LINE_AA)
        cv2.circle(canvas, (int(q[0][0]), int(q[0][1])), 4, (0, 0, 255), -1)
        said = r.code or ("down" if r.face_down else "unknown")
        label = f"{said} {r.confidence:.4f} {r.source.value}"
        x0, y0 = np.floor(quad.min(axis=0)).astype(int)
        cv2.putText(canvas, label, (int(x0), max(15, int(y0) - 6)), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                    (0, 0, 255), 2, cv2.LINE_AA)  # fmt: skip
        h = _height(quad)
        pad = int(0.6 * h) + 20
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int)
        ih, iw = canvas.shape[:2]
        cut = canvas[max(0, y0 - pad) : min(ih, y1 + pad), max(0, x0 - pad) : min(iw, x1 + pad)]
        cv2.imwrite(str(path), cut)

    def summary(self) -> dict[str, dict[str, int]]:
        """Counts by event and kind, and by event and outline source."""
        return {
            "kinds": dict(sorted(self.kinds.items())),
            "sources": dict(sorted(self.sources.items())),
        }
