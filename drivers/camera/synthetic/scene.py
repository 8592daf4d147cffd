"""Table scenes: cards, backs, chips, printed boxes and text on felt, with the camera's defects.

A `Scene` places everything in table millimetres; `table_to_image` (a homography) is the camera's
view, so cards get true perspective and the table calibration has a known answer. `render_scene`
returns the frame and, for each card, its ground truth: code, face, image corners (top-left,
top-right, bottom-right, bottom-left of the upright card) and which index corners stay visible.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.synthetic.designs import BGR, CARD_HEIGHT_MM, CARD_WIDTH_MM, Design
from drivers.camera.synthetic.faces import Image, render_back, render_face
from studio.cards import Card

Points = npt.NDArray[Any]

TEXTURE_HEIGHT = 440
"""Pixel height cards are drawn at before being warped into a frame; a deck learned from scans
at this height matches what the camera is shown."""
# The index window (fractions of the card) used only to say whether an index stays visible.
_INDEX_WINDOW = (0.02, 0.02, 0.27, 0.33)


@dataclass(frozen=True, slots=True)
class PlacedCard:
    """A card on the table: centre (mm), rotation (degrees, 0 = upright), face up or down."""

    card: Card
    x: float
    y: float
    angle: float
    face_up: bool = True


@dataclass(frozen=True, slots=True)
class Chip:
    """A gaming chip: centre and radius in mm, body colour."""

    x: float
    y: float
    radius: float
    colour: BGR


@dataclass(frozen=True, slots=True)
class Glare:
    """A specular highlight: centre and radius in image pixels, strength 0..1 on glossy cards."""

    x: float
    y: float
    radius: float
    strength: float


@dataclass(frozen=True, slots=True)
class Scene:
    """Everything one frame shows; lists are drawn in order, so later cards lie on earlier ones."""

    width: int
    height: int
    table_to_image: Points
    design: Design
    cards: Sequence[PlacedCard] = ()
    chips: Sequence[Chip] = ()
    boxes: Sequence[tuple[float, float, float, float]] = ()
    texts: Sequence[tuple[str, float, float]] = ()
    glares: Sequence[Glare] = ()
    felt: BGR = (40, 105, 30)
    box_colour: BGR = (200, 215, 220)
    gain: tuple[float, float, float] = (1.0, 1.0, 1.0)
    gradient: float = 0.0
    shadow: float = 0.5
    blur_sigma: float = 0.0
    motion: float = 0.0
    motion_angle: float = 0.0
    noise: float = 0.0
    jpeg_quality: int = 0
    seed: int = 0
    felt_seed: int | None = None
    """The felt texture's own seed (None: `seed`'s draws): frames of a still table share their
    felt, as a real one does, and differ in sensor noise only."""
    markers: Sequence[tuple[int, float, float, float]] = field(default=())


@dataclass(frozen=True, slots=True)
class CardTruth:
    """What the renderer drew for one card; `readable` when an index corner is >= 97% visible."""

    code: str
    face_up: bool
    corners: Points
    visible: float
    readable: bool


@dataclass(frozen=True, slots=True)
class RenderedFrame:
    """A rendered BGR frame with the ground truth of every card drawn on it."""

    image: Image
    cards: tuple[CardTruth, ...]


def project(h: Points, pts: Points) -> Points:
    """Map an (N, 2) array of points through the 3x3 homography `h`."""
    ones = np.ones((pts.shape[0], 1))
    q = np.hstack([pts, ones]) @ h.T
    out: Points = q[:, :2] / q[:, 2:3]
    return out


def card_corners_mm(placed: PlacedCard, width_mm: float = CARD_WIDTH_MM) -> Points:
    """The table-mm corners (TL, TR, BR, BL of the upright card) of a placed card.

    `width_mm` is its deck's card width (`Design.width_mm`), poker size unless stated.
    """
    hw, hh = width_mm / 2, CARD_HEIGHT_MM / 2
    base = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])
    a = np.deg2rad(placed.angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    out: Points = base @ rot.T + np.array([placed.x, placed.y])
    return out


def _put_text(
    canvas: npt.NDArray[Any],
    text: str,
    org: tuple[int, int],
    font: int,
    scale: float,
    colour: BGR,
    thickness: int,
) -> None:
    """`cv2.putText` for a float canvas (OpenCV draws text on 8-bit images only)."""
    (tw, th), base = cv2.getTextSize(text, font, scale, thickness)
    pad = thickness + 2
    x0, y0 = max(0, org[0] - pad), max(0, org[1] - th - pad)
    x1 = min(canvas.shape[1], org[0] + tw + pad)
    y1 = min(canvas.shape[0], org[1] + base + pad)
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.putText(mask, text, (org[0] - x0, org[1] - y0), font, scale, 255, thickness, cv2.LINE_AA)
    a = mask.astype(np.float32)[..., None] / 255.0
    roi = canvas[y0:y1, x0:x1]
    roi[:] = roi * (1 - a) + np.array(colour, np.float32) * a


def _felt(scene: Scene, rng: np.random.Generator) -> npt.NDArray[Any]:
    img = np.empty((scene.height, scene.width, 3), np.float32)
    img[:] = scene.felt
    # Felt has a fine fibre texture; a little low-amplitude noise keeps it from being flat.
    small = rng.normal(0, 6, (scene.height // 8 + 1, scene.width // 8 + 1, 1)).astype(np.float32)
    img += cv2.resize(small, (scene.width, scene.height))[..., None]
    return img


def _paste(
    canvas: npt.NDArray[Any],
    gloss: npt.NDArray[Any],
    ids: npt.NDArray[Any],
    texture: tuple[Image, Image],
    quad: Points,
    ident: int,
    shadow: float,
) -> None:
    """Warp a flat texture onto `quad` with a soft drop shadow, updating the top-object ids."""
    tex, alpha = texture
    th, tw = alpha.shape
    x0 = max(0, int(np.floor(quad[:, 0].min())) - 8)
    y0 = max(0, int(np.floor(quad[:, 1].min())) - 8)
    x1 = min(canvas.shape[1], int(np.ceil(quad[:, 0].max())) + 9)
    y1 = min(canvas.shape[0], int(np.ceil(quad[:, 1].max())) + 9)
    if x1 <= x0 or y1 <= y0:
        return
    src = np.array([[0, 0], [tw - 1, 0], [tw - 1, th - 1], [0, th - 1]], np.float32)
    dst = (quad - np.array([x0, y0])).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    size = (x1 - x0, y1 - y0)
    face = cv2.warpPerspective(tex, m, size, flags=cv2.INTER_AREA).astype(np.float32)
    a = cv2.warpPerspective(alpha, m, size, flags=cv2.INTER_LINEAR).astype(np.float32) / 255.0
    # A card lies ~0.3 mm above what it covers: its edge throws a thin, soft shadow.
    # Ambient occlusion darkens a thin band all round the edge: that band is what separates two
    # white cards in a real image where one overlaps the other.
    shift = np.array([[1, 0, 2.0], [0, 1, 2.5]], np.float32)
    shade = np.maximum(
        cv2.GaussianBlur(cv2.warpAffine(a, shift, size), (0, 0), 1.6),
        cv2.GaussianBlur(a, (0, 0), 1.2),
    )
    roi = canvas[y0:y1, x0:x1]
    roi *= (1 - shadow * shade)[..., None]
    roi[:] = roi * (1 - a[..., None]) + face * a[..., None]
    gloss[y0:y1, x0:x1] = np.maximum(gloss[y0:y1, x0:x1] * (a < 0.5), a)
    ids[y0:y1, x0:x1][a >= 0.5] = ident


def _draw_chip(canvas: npt.NDArray[Any], ids: npt.NDArray[Any], scene: Scene, chip: Chip) -> None:
    c = project(scene.table_to_image, np.array([[chip.x, chip.y], [chip.x + chip.radius, chip.y]]))
    centre = (round(c[0, 0]), round(c[0, 1]))
    r = max(3, round(float(np.hypot(*(c[1] - c[0])))))
    cv2.circle(canvas, (centre[0] + 3, centre[1] + 4), r, (10, 30, 10), -1, cv2.LINE_AA)
    cv2.circle(canvas, centre, r, chip.colour, -1, cv2.LINE_AA)
    for k in range(6):
        a0 = k * 60
        cv2.ellipse(canvas, centre, (r - 2, r - 2), 0, a0, a0 + 18, (245, 245, 245), max(2, r // 4))
    inner = tuple(min(255, v + 50) for v in chip.colour)
    cv2.circle(canvas, centre, max(2, round(r * 0.6)), inner, -1, cv2.LINE_AA)
    _put_text(
        canvas,
        "25",
        (centre[0] - r // 3, centre[1] + r // 6),
        cv2.FONT_HERSHEY_PLAIN,
        max(0.6, r / 22),
        (250, 250, 250),
        1,
    )
    cv2.circle(ids, centre, r, -1, -1)


def _draw_markers(canvas: npt.NDArray[Any], scene: Scene) -> None:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    for ident, x, y, size in scene.markers:
        tile = cv2.aruco.generateImageMarker(dictionary, ident, 120)
        tile = cv2.copyMakeBorder(tile, 20, 20, 20, 20, cv2.BORDER_CONSTANT, value=255)
        margin = size * 20 / 120
        quad = np.array(
            [[x - margin, y - margin], [x + size + margin, y - margin],
             [x + size + margin, y + size + margin], [x - margin, y + size + margin]]
        )  # fmt: skip
        img_quad = project(scene.table_to_image, quad).astype(np.float32)
        src = np.array([[0, 0], [159, 0], [159, 159], [0, 159]], np.float32)
        m = cv2.getPerspectiveTransform(src, img_quad)
        size_wh = (canvas.shape[1], canvas.shape[0])
        warped = cv2.warpPerspective(tile, m, size_wh, flags=cv2.INTER_AREA, borderValue=0)
        mask = cv2.warpPerspective(np.full_like(tile, 255), m, size_wh) > 127
        canvas[mask] = warped[mask][:, None].astype(np.float32)


def _visible(ids: npt.NDArray[Any], quad_mm_to_img: Points, ident: int) -> tuple[float, float]:
    """Visible fractions of the top-left and bottom-right index windows of card `ident`."""
    x0, y0, x1, y1 = _INDEX_WINDOW
    out = []
    for window in ((x0, y0, x1, y1), (1 - x1, 1 - y1, 1 - x0, 1 - y0)):
        u = np.array(
            [
                [window[0], window[1]],
                [window[2], window[1]],
                [window[2], window[3]],
                [window[0], window[3]],
            ]
        )
        tl, tr, _, bl = quad_mm_to_img[0], quad_mm_to_img[1], quad_mm_to_img[2], quad_mm_to_img[3]
        br = quad_mm_to_img[2]
        pts = (
            (1 - u[:, :1]) * (1 - u[:, 1:]) * tl
            + u[:, :1] * (1 - u[:, 1:]) * tr
            + u[:, :1] * u[:, 1:] * br
            + (1 - u[:, :1]) * u[:, 1:] * bl
        )
        mask = np.zeros(ids.shape, np.uint8)
        cv2.fillConvexPoly(mask, np.round(pts).astype(np.int32), 1)
        total = int(mask.sum())
        if total == 0:
            out.append(0.0)
            continue
        out.append(float(((ids == ident) & (mask > 0)).sum()) / total)
    return out[0], out[1]


def render_scene(scene: Scene, *, truth: bool = True) -> RenderedFrame:
    """Draw `scene` and return the frame with each card's ground truth (see module docstring).

    `truth=False` skips the ground truth (about half the drawing time at 1280x720 with ten
    cards): a live synthetic camera needs only the image.
    """
    rng = np.random.default_rng(scene.seed)
    felt_rng = rng if scene.felt_seed is None else np.random.default_rng(scene.felt_seed)
    canvas = _felt(scene, felt_rng)
    gloss = np.zeros((scene.height, scene.width), np.float32)
    ids = np.full((scene.height, scene.width), -1, np.int16)
    h = scene.table_to_image
    for x, y, bw, bh in scene.boxes:
        quad = project(h, np.array([[x, y], [x + bw, y], [x + bw, y + bh], [x, y + bh]]))
        cv2.polylines(
            canvas, [np.round(quad).astype(np.int32)], True, scene.box_colour, 3, cv2.LINE_AA
        )
    for text, x, y in scene.texts:
        p = project(h, np.array([[x, y]]))[0]
        scale = float(np.hypot(*(project(h, np.array([[x + 10, y]]))[0] - p))) / 14
        org = (round(p[0]), round(p[1]))
        _put_text(
            canvas,
            text,
            org,
            cv2.FONT_HERSHEY_DUPLEX,
            scale,
            scene.box_colour,
            max(1, round(scale * 2)),
        )
    _draw_markers(canvas, scene)
    quads = []
    for ident, placed in enumerate(scene.cards):
        quad = project(h, card_corners_mm(placed, scene.design.width_mm))
        texture = (
            render_face(placed.card, scene.design, TEXTURE_HEIGHT)
            if placed.face_up
            else render_back(scene.design, TEXTURE_HEIGHT)
        )
        _paste(canvas, gloss, ids, texture, quad, ident, scene.shadow)
        quads.append(quad)
    for chip in scene.chips:
        _draw_chip(canvas, ids, scene, chip)
    _apply_light(canvas, gloss, scene)
    image = _apply_camera(canvas, scene, rng)
    if not truth:
        return RenderedFrame(image, ())
    truths = []
    for ident, (placed, quad) in enumerate(zip(scene.cards, quads, strict=True)):
        tl, br = _visible(ids, quad, ident)
        whole = float((ids == ident).sum())
        mask = np.zeros(ids.shape, np.uint8)
        cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
        visible = whole / max(1.0, float(mask.sum()))
        truths.append(
            CardTruth(placed.card.code, placed.face_up, quad, visible, max(tl, br) >= 0.97)
        )
    return RenderedFrame(image, tuple(truths))


def _apply_light(canvas: npt.NDArray[Any], gloss: npt.NDArray[Any], scene: Scene) -> None:
    if scene.gradient:
        ramp = np.linspace(
            1 - scene.gradient, 1 + scene.gradient / 2, scene.width, dtype=np.float32
        )
        canvas *= ramp[None, :, None]
    canvas *= np.array(scene.gain, np.float32)
    for g in scene.glares:
        blob: npt.NDArray[Any] = np.zeros((scene.height, scene.width), np.float32)
        cv2.circle(blob, (round(g.x), round(g.y)), max(1, round(g.radius)), 1.0, -1)
        blob = cv2.GaussianBlur(blob, (0, 0), max(1.0, g.radius / 2.5))
        # Laminated cards are glossy and reflect the lamp; the felt is matte and barely brightens.
        weight = g.strength * blob * (0.2 + 0.8 * gloss)
        canvas[:] = canvas * (1 - weight[..., None]) + 255 * weight[..., None]


def _apply_camera(canvas: npt.NDArray[Any], scene: Scene, rng: np.random.Generator) -> Image:
    img = canvas
    if scene.blur_sigma > 0:
        img = cv2.GaussianBlur(img, (0, 0), scene.blur_sigma)
    if scene.motion > 1:
        n = int(np.ceil(scene.motion)) | 1
        kernel: npt.NDArray[Any] = np.zeros((n, n), np.float32)
        kernel[n // 2, :] = 1
        rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), scene.motion_angle, 1.0)
        kernel = cv2.warpAffine(kernel, rot, (n, n))
        kernel = (kernel / max(1e-6, float(kernel.sum()))).astype(np.float32)
        img = cv2.filter2D(img, -1, kernel)
    if scene.noise > 0:
        img = img + rng.normal(0, scene.noise, img.shape).astype(np.float32)
    out: Image = np.clip(img, 0, 255).astype(np.uint8)
    if scene.jpeg_quality:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg_quality])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
        if decoded is not None:
            out = np.asarray(decoded, np.uint8)
    return out
