"""Deck reference images in the forms studios and card packages give them.

`synthetic/reference.py` draws our own two forms ("scan", cropped to the card, and "photo", on a
plain dark ground). Outside decks come otherwise: PNGs with an alpha channel (transparent rounded
corners, sometimes a transparent margin), thumbnails and large scans, a white margin or a thin
dark outline round the card, JPEG, a slight tilt on a light or textured ground. `FORMS` names
each, with a writer of one card's image from the design's flat render; `write_form` writes a
deck's 52 (`bench/reference_forms.py`, `tests/test_calibration_reference_forms.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from drivers.camera.synthetic.designs import Design
from drivers.camera.synthetic.faces import Image, render_face
from drivers.camera.synthetic.reference import render_reference, write_reference_deck
from studio.cards import DECK, Card


def _noisy(face: Image, seed: int) -> Image:
    """`face` with the light sensor noise of the baseline scan (sd 2 grey levels)."""
    rng = np.random.default_rng(seed)
    return np.clip(face.astype(np.float32) + rng.normal(0, 2.0, face.shape), 0, 255).astype(
        np.uint8
    )


def _alpha(card: Card, design: Design, seed: int, under: int, margin: float) -> Image:
    """A BGRA scan, 600 px tall, with transparent rounded corners.

    A transparent `margin` (a share of the card's height) goes round it when asked; the
    transparent pixels' colour is `under` (exporters differ: black or white).
    """
    face, alpha = render_face(card, design, 600)
    bgr = _noisy(face, seed)
    bgr[alpha == 0] = under
    out: Image = np.dstack([bgr, alpha])
    pad = round(margin * 600)
    if pad:
        out = cv2.copyMakeBorder(out, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=(under,) * 3)
    return out


def _on_canvas(
    card: Card, design: Design, seed: int, *, ground: Image, angle: float, outline: int = 0
) -> Image:
    """The card, 600 px tall, turned `angle` degrees on `ground` (a canvas larger than the card).

    A dark `outline` px thick is drawn along its rounded edge when asked.
    """
    face, alpha = render_face(card, design, 600)
    face = face.copy()
    if outline:
        rim = cv2.morphologyEx(alpha, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
        edge = cv2.dilate(rim, np.ones((outline, outline), np.uint8)) > 0
        face[edge & (alpha > 0)] = (40, 40, 40)
    h, w = ground.shape[:2]
    fh, fw = face.shape[:2]
    m = cv2.getRotationMatrix2D((fw / 2, fh / 2), angle, 1.0)
    m[:, 2] += ((w - fw) / 2, (h - fh) / 2)
    warped = cv2.warpAffine(face, m, (w, h), flags=cv2.INTER_LINEAR).astype(np.float32)
    a = cv2.warpAffine(alpha, m, (w, h)).astype(np.float32)[..., None] / 255.0
    out = ground.astype(np.float32) * (1 - a) + warped * a
    return _noisy(np.clip(out, 0, 255).astype(np.uint8), seed)


def _ground(kind: str, shape: tuple[int, int], seed: int) -> Image:
    """A background: "white" paper, "light" grey, or a "textured" light wood-like grain."""
    h, w = shape
    if kind == "white":
        return np.full((h, w, 3), 255, np.uint8)
    if kind == "light":
        return np.full((h, w, 3), (196, 200, 204), np.uint8)
    rng = np.random.default_rng(seed)
    grain = cv2.resize(rng.normal(0, 1, (h // 40 + 1, 3)), (w, h), interpolation=cv2.INTER_CUBIC)
    fine = cv2.GaussianBlur(rng.normal(0, 1, (h, w)), (0, 0), 1.5)
    level = 170 + 18 * grain + 10 * fine
    tint = np.array([0.78, 0.9, 1.0])
    out: Image = np.clip(level[..., None] * tint, 0, 255).astype(np.uint8)
    return out


Writer = Callable[[Card, Design, int], tuple[str, Image]]
"""A form: (file suffix, image) of one card from its design and a per-card seed."""


def _scan_at(height: int) -> Writer:
    def write(card: Card, design: Design, seed: int) -> tuple[str, Image]:
        return ".png", _noisy(render_face(card, design, height)[0], seed)

    return write


def _jpeg(card: Card, design: Design, seed: int) -> tuple[str, Image]:
    return ".jpg", _noisy(render_face(card, design, 600)[0], seed)


def _canvas(kind: str, angle: float, pad: float, outline: int = 0) -> Writer:
    def write(card: Card, design: Design, seed: int) -> tuple[str, Image]:
        rng = np.random.default_rng(seed)
        turn = float(rng.uniform(-angle, angle))
        w = render_face(card, design, 600)[0].shape[1]
        p = round(pad * 600)
        ground = _ground(kind, (600 + 2 * p, w + 2 * p), seed)
        return ".png", _on_canvas(card, design, seed, ground=ground, angle=turn, outline=outline)

    return write


FORMS: dict[str, tuple[str, Writer | None]] = {
    "scan": ("the baseline: cropped to the card, 600 px, PNG (bench/camera.py's)", None),
    "alpha-black": (
        "PNG with alpha: transparent rounded corners, black under them",
        lambda c, d, s: (".png", _alpha(c, d, s, 0, 0.0)),
    ),
    "alpha-white": (
        "PNG with alpha: transparent rounded corners, white under them",
        lambda c, d, s: (".png", _alpha(c, d, s, 255, 0.0)),
    ),
    "alpha-margin": (
        "PNG with alpha: a transparent margin (4% of the height) round the card, black under it",
        lambda c, d, s: (".png", _alpha(c, d, s, 0, 0.04)),
    ),
    "thumb-250": ("a 250 px tall thumbnail", _scan_at(250)),
    "scan-2000": ("a 2,000 px tall scan", _scan_at(2000)),
    "jpeg-80": ("JPEG at quality 80", _jpeg),
    "white-margin": (
        "the card on a white canvas, a 4% margin, no outline",
        _canvas("white", 0, 0.04),
    ),
    "outline": (
        "a thin dark outline round the card, white beyond its corners",
        _canvas("white", 0, 0.0, outline=2),
    ),
    "outline-margin": (
        "a thin dark outline, on a white canvas with a 4% margin",
        _canvas("white", 0, 0.04, outline=2),
    ),
    "photo": (
        "the other baseline: a photograph turned up to 6 degrees on a plain dark ground",
        lambda c, d, s: (".png", render_reference(c, d, "photo", s)),
    ),
    "tilt-light": ("turned up to 3 degrees on a light grey ground", _canvas("light", 3, 0.1)),
    "tilt-textured": (
        "turned up to 3 degrees on a light textured (wood-like) ground",
        _canvas("textured", 3, 0.1),
    ),
}


def write_form(directory: Path, design: Design, form: str) -> None:
    """Write `design`'s 52 references in `form` into `directory` (named `AS.png`...)."""
    writer = FORMS[form][1]
    if writer is None:
        write_reference_deck(directory, design, "scan")
        return
    directory.mkdir(parents=True, exist_ok=True)
    for i, card in enumerate(DECK):
        suffix, image = writer(card, design, i)
        params = [cv2.IMWRITE_JPEG_QUALITY, 80] if suffix == ".jpg" else []
        cv2.imwrite(str(directory / f"{card.code}{suffix}"), image, params)
