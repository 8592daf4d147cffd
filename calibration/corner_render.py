"""Index corners as a camera sees them, rendered from one flat reference card.

Training data for the learned index reader (`calibration.corner_training`): the flat card is
shrunk to a random height, laid at a random angle with a slight perspective on a plain
background, lit unevenly (gain, colour cast, gradient, sometimes a glare), blurred (defocus and
motion), given sensor noise and JPEG compression, then its index window is cut back out through
an outline that is a little off (shifted, turned, scaled), exactly as the recognizer cuts a found
card. Only generic camera effects are used, so it works for any photographed deck.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from drivers.camera.index_model import Image

HEIGHTS = (90.0, 320.0)
"""Card heights (px) seen by the camera: the bench's smallest card at 720p up to a large one."""


@dataclass(frozen=True, slots=True)
class CameraLook:
    """How far each camera effect may go (sigma and lengths in frame pixels)."""

    blur: float = 1.9
    motion: float = 5.5
    noise: float = 9.0
    jpeg: tuple[int, int] = (45, 96)
    shift: float = 0.006
    """Standard deviation of the outline's offset, as a share of the card's height."""
    turn_deg: float = 1.0
    scale: float = 0.015
    glare: float = 0.3
    """Chance of a glare patch over the corner."""
    weight: float = 1.0
    """How far strokes may thicken or thin, in flat-card pixels each side: print runs, exposure
    and the resolution a deck was photographed at all change how bold an index looks."""


def _canon_quad(width: int, height: int) -> np.ndarray:
    return np.array([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]], np.float64)


def _motion_kernel(length: float, angle: float) -> np.ndarray:
    size = max(3, int(np.ceil(length)) | 1)
    kernel = np.zeros((size, size), np.float32)
    c = size // 2
    dx, dy = np.cos(angle) * length / 2, np.sin(angle) * length / 2
    cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1)
    return kernel / max(1e-6, float(kernel.sum()))


def _background(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A plain felt-like background of a random dark colour (the sensor noise comes later)."""
    w, h = size
    out = np.empty((h, w, 3), np.float32)
    out[:] = rng.uniform(10, 140, 3)
    return out


def camera_corners(
    flat: Image,
    window: tuple[int, int, int, int],
    rng: np.random.Generator,
    look: CameraLook = CameraLook(),
    *,
    offset: tuple[float, float] = (0.0, 0.0),
    cuts: int = 1,
) -> list[Image]:
    """Render `flat` (an upright card, BGR) through a random camera and cut its index window.

    `window` is (x0, y0, x1, y1) in `flat`'s pixels. `offset` moves the cut window over the card
    (in `flat`'s pixels): the index of the card when (0, 0), other parts of the face otherwise.
    Returns `cuts` windows, each through its own slightly wrong outline, as the recognizer would
    cut them (`window`-sized).
    """
    ch, cw = flat.shape[:2]
    x0, y0 = window[0] + offset[0], window[1] + offset[1]
    x1, y1 = window[2] + offset[0], window[3] + offset[1]
    height = float(np.exp(rng.uniform(np.log(HEIGHTS[0]), np.log(HEIGHTS[1]))))
    s = height / ch
    flat = _stroke_weight(flat, rng.uniform(-look.weight, look.weight))
    small = cv2.resize(
        flat, (max(8, round(cw * s)), max(8, round(ch * s))), interpolation=cv2.INTER_AREA
    )
    to_small = np.diag([small.shape[1] / cw, small.shape[0] / ch, 1.0])
    canon = _canon_quad(cw, ch)
    angle = rng.uniform(-np.pi, np.pi)
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    quad = (canon * s) @ rot.T + rng.normal(0, 0.006 * height, (4, 2))
    true_h = cv2.getPerspectiveTransform(canon.astype(np.float32), quad.astype(np.float32))
    # Only the part of the frame round the window is drawn: the rest never reaches the cut.
    pad = 0.15 * (y1 - y0) + 6 / s
    area = np.array(
        [[x0 - pad, y0 - pad], [x1 + pad, y0 - pad], [x1 + pad, y1 + pad], [x0 - pad, y1 + pad]]
    )
    seen = cv2.perspectiveTransform(area.reshape(1, 4, 2), true_h)[0]
    lo = np.floor(seen.min(axis=0)) - 4
    hi = np.ceil(seen.max(axis=0)) + 4
    size = (int(hi[0] - lo[0]), int(hi[1] - lo[1]))
    move = np.array([[1, 0, -lo[0]], [0, 1, -lo[1]], [0, 0, 1]])
    to_patch = move @ true_h @ np.linalg.inv(to_small)
    card = cv2.warpPerspective(small, to_patch, size, flags=cv2.INTER_LINEAR).astype(np.float32)
    mask = cv2.warpPerspective(
        np.ones(small.shape[:2], np.float32), to_patch, size, flags=cv2.INTER_LINEAR
    )[..., None]
    patch = _background(rng, size) * (1 - mask) + card * mask
    patch = _light(patch, rng, look, height)
    image = _optics(patch, rng, look)
    out_size = (window[2] - window[0], window[3] - window[1])
    shift = np.array([[1, 0, x0], [0, 1, y0], [0, 0, 1]], np.float64)
    out: list[Image] = []
    for _ in range(cuts):
        found = _found(quad, rng, look, height)
        found_h = cv2.getPerspectiveTransform(canon.astype(np.float32), found.astype(np.float32))
        out.append(
            cv2.warpPerspective(
                image,
                move @ found_h @ shift,
                out_size,
                flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                borderMode=cv2.BORDER_REPLICATE,
            )
        )
    return out


def _stroke_weight(flat: Image, weight: float) -> Image:
    """`flat` with dark strokes grown (`weight` > 0) or shrunk by up to `weight` pixels a side."""
    kernel = np.ones((3, 3), np.uint8)
    steps = int(np.ceil(abs(weight)))
    if steps == 0:
        return flat
    grow = cv2.erode if weight > 0 else cv2.dilate
    moved = grow(flat, kernel, iterations=steps)
    part = abs(weight) / steps
    out: Image = cv2.addWeighted(flat, 1 - part, moved, part, 0.0)
    return out


def _found(
    quad: np.ndarray, rng: np.random.Generator, look: CameraLook, height: float
) -> np.ndarray:
    """The outline a detector finds for `quad`: a little shifted, turned and scaled."""
    centre = quad.mean(axis=0)
    turn = np.deg2rad(rng.uniform(-look.turn_deg, look.turn_deg))
    rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    found = (quad - centre) @ rot.T * (1 + rng.uniform(-look.scale, look.scale)) + centre
    limit = 3 * look.shift * height
    found = found + np.clip(rng.normal(0, look.shift * height, 2), -limit, limit)
    out: np.ndarray = found + rng.normal(0, 0.004 * height, (4, 2))
    return out


def _light(
    patch: np.ndarray, rng: np.random.Generator, look: CameraLook, height: float
) -> np.ndarray:
    """Gain, colour cast, a lighting gradient and sometimes a glare patch."""
    h, w = patch.shape[:2]
    gain = rng.uniform(0.9, 1.1) * rng.uniform(0.85, 1.15, 3)
    ramp = np.linspace(-1, 1, w)[None, :] * np.cos(rng.uniform(0, np.pi)) + np.linspace(-1, 1, h)[
        :, None
    ] * rng.uniform(-1, 1)
    patch = patch * gain[None, None, :] * (1 + rng.uniform(0, 0.2) * ramp)[..., None]
    if rng.random() < look.glare:
        gx, gy = rng.uniform(0, w), rng.uniform(0, h)
        radius = rng.uniform(0.1, 0.5) * height
        yy, xx = np.mgrid[0:h, 0:w]
        blob = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * radius**2))
        patch = patch + (255 - patch) * (rng.uniform(0.2, 0.7) * blob)[..., None]
    return patch


def _optics(patch: np.ndarray, rng: np.random.Generator, look: CameraLook) -> np.ndarray:
    """Defocus, motion blur, sensor noise and JPEG, in the order a camera applies them."""
    sigma = rng.uniform(0.0, look.blur)
    if sigma > 0.2:
        patch = cv2.GaussianBlur(patch, (0, 0), sigma)
    if rng.random() < 0.5:
        patch = cv2.filter2D(
            patch, -1, _motion_kernel(rng.uniform(1.0, look.motion), rng.uniform(0, np.pi))
        )
    patch = patch + rng.uniform(0, look.noise) * rng.standard_normal(patch.shape, dtype=np.float32)
    img = np.clip(patch, 0, 255).astype(np.uint8)
    quality = int(rng.integers(look.jpeg[0], look.jpeg[1] + 1))
    ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if ok:
        img = np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR), np.uint8)
    out: Image = img
    return out
