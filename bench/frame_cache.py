"""Rendered bench frames kept on disk, so a long run's frames are drawn once and read again.

Drawing a 1080p scene costs more than recognising it; a run that is repeated on the same frames
(the same design, scene seed and frame number) to compare two versions of the recognizer reads
them back from `DIR/<design>-<seed>-<frame>.png` (lossless: exactly the pixels drawn) and its
`.json` ground truth (a `CachedTruth` per card).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict

from drivers.camera.synthetic.scene import CardTruth, RenderedFrame, Scene, render_scene


class CachedTruth(BaseModel):
    """One drawn card's ground truth, as stored beside its frame."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    code: str
    face_up: bool
    corners: list[list[float]]
    visible: float
    readable: bool


class CachedFrame(BaseModel):
    """Every drawn card of one stored frame."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    cards: list[CachedTruth]


def frame_key(design: str, envelope: str, seed: int, index: int) -> str:
    """The name frame `index` of `design`'s scenes in `envelope` drawn from `seed` is kept under.

    The envelope is part of it: the same design, seed and frame number in another envelope is
    another picture (without it, a run of both envelopes read its studio frames twice).
    """
    return f"{design}-{envelope}-{seed}-{index}"


def cached_render(scene: Scene, cache: Path | None, key: str) -> RenderedFrame:
    """`render_scene(scene)`, read from `cache` under `key` when stored there, else drawn and
    stored (nothing stored when `cache` is None)."""
    if cache is None:
        return render_scene(scene)
    image_path, truth_path = cache / f"{key}.png", cache / f"{key}.json"
    if image_path.exists() and truth_path.exists():
        image = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        stored = CachedFrame.model_validate_json(truth_path.read_text(encoding="utf-8"))
        if image is not None:
            cards = tuple(
                CardTruth(c.code, c.face_up, np.array(c.corners), c.visible, c.readable)
                for c in stored.cards
            )
            return RenderedFrame(image, cards)
    frame = render_scene(scene)
    cache.mkdir(parents=True, exist_ok=True)
    # Compression level 1: four times faster to write than the default, a third larger.
    cv2.imwrite(str(image_path), frame.image, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    truth = CachedFrame(
        cards=[
            CachedTruth(
                code=t.code,
                face_up=t.face_up,
                corners=[[float(x), float(y)] for x, y in t.corners],
                visible=float(t.visible),
                readable=bool(t.readable),
            )
            for t in frame.cards
        ]
    )
    truth_path.write_text(truth.model_dump_json(), encoding="utf-8")
    return frame
