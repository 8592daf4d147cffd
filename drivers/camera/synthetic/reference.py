"""Reference deck images for deck calibration: 52 flat upright cards, as scans or photographs.

`render_reference(card, design, style)` draws one card either cropped to its edges ("scan") or
lying slightly askew on a plain dark background ("photo"); `write_reference_deck` writes all 52
files named by code into a directory, as `studio calibrate deck --images DIR` expects.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.synthetic.designs import Design
from drivers.camera.synthetic.faces import Image, card_width, render_face
from studio.cards import DECK, Card


def render_reference(
    card: Card, design: Design, style: str = "scan", seed: int = 0, *, height: int = 600
) -> Image:
    """One reference image of `card`: "scan" (cropped, `height` px tall) or "photo" (600 px tall).

    `height` is the scan's resolution: the synthetic table's own deck is scanned at the height its
    cards are drawn at (`scene.TEXTURE_HEIGHT`), as a studio scans the deck its camera sees.
    """
    rng = np.random.default_rng(seed)
    face, alpha = render_face(card, design, height if style == "scan" else 600)
    if style == "scan":
        out = face.astype(np.float32) + rng.normal(0, 2.0, face.shape)
        return np.clip(out, 0, 255).astype(np.uint8)
    canvas: npt.NDArray[Any] = np.zeros((900, 760, 3), np.float32)
    canvas[:] = (60, 45, 35)
    w = card_width(600, design.width_mm)
    angle = np.deg2rad(rng.uniform(-6, 6))
    c, s = np.cos(angle), np.sin(angle)
    base = np.array([[-w / 2, -300], [w / 2, -300], [w / 2, 300], [-w / 2, 300]])
    quad = base @ np.array([[c, -s], [s, c]]).T + np.array([380, 450]) + rng.normal(0, 4, (4, 2))
    src = np.array([[0, 0], [w - 1, 0], [w - 1, 599], [0, 599]], np.float32)
    m = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    warped = cv2.warpPerspective(face, m, (760, 900), flags=cv2.INTER_AREA).astype(np.float32)
    a = cv2.warpPerspective(alpha, m, (760, 900)).astype(np.float32)[..., None] / 255.0
    canvas = canvas * (1 - a) + warped * a + rng.normal(0, 2.0, canvas.shape)
    photo: Image = np.clip(canvas, 0, 255).astype(np.uint8)
    return photo


def write_reference_deck(directory: Path, design: Design, style: str = "scan") -> list[Path]:
    """Write the 52 reference images (`AS.png`...) of `design` into `directory`; return paths."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, card in enumerate(DECK):
        path = folder / f"{card.code}.png"
        cv2.imwrite(str(path), render_reference(card, design, style, seed=i))
        paths.append(path)
    return paths
