"""Random table scenes drawn from a `SceneStyle`: how many cards, how they lie, what else is there.

Tests and the bench draw from different styles and seeds, so nothing is tuned to the test frames.
`random_scene(rng, style)` returns a `Scene`; `render_scene` draws it with its ground truth.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from drivers.camera.synthetic.designs import CARD_HEIGHT_MM, CARD_WIDTH_MM, Design
from drivers.camera.synthetic.scene import (
    Chip,
    Glare,
    PlacedCard,
    Points,
    Scene,
    card_corners_mm,
    project,
)
from studio.cards import DECK

_CHIP_COLOURS = ((30, 30, 190), (160, 60, 20), (30, 30, 30), (40, 140, 40), (120, 30, 120))
_FELTS = ((40, 105, 30), (30, 80, 25), (90, 60, 20), (35, 35, 120))


INDEX_CHIP_AT = 0.17
"""Where `index_chips` centres a chip: this share of the card's width across and of its height
down from the index corner, so that a chip of 17 mm or more covers the index window
(`scene._INDEX_WINDOW`: to 27% across, 33% down)."""


def index_chips(placed: PlacedCard, width_mm: float, rng: np.random.Generator) -> list[Chip]:
    """A chip (the scenes' sizes and colours) over each of `placed`'s two index corners.

    The top-left and bottom-right corners of the upright card: a face under them shows no
    index there (a four-index deck's other two stay in view).
    """
    tl, tr, br, bl = card_corners_mm(placed, width_mm)
    across, down = (tr - tl) * INDEX_CHIP_AT, (bl - tl) * INDEX_CHIP_AT
    chips = []
    for centre in (tl + across + down, br - across - down):
        colour = _CHIP_COLOURS[int(rng.integers(len(_CHIP_COLOURS)))]
        chips.append(Chip(float(centre[0]), float(centre[1]), float(rng.uniform(17, 21)), colour))
    return chips


@dataclass(frozen=True, slots=True)
class SceneStyle:
    """Ranges a random scene is drawn from (each a (low, high) pair unless said otherwise).

    `card_px`: card height in pixels; `overlap`: how much of a card its row neighbour covers;
    `p_row`: chance of a row of cards (overlapping, or touching with chance `p_touch`);
    `p_down`: chance a card lies face down; `p_fan`: chance a group of cards is fanned about a
    common pivot instead of laid in a row; `p_sideways`: chance a row's last card lies across the
    row, turned a quarter (as a third card set sideways). Both default to 0, which keeps the
    draws of older styles exactly as they were.
    """

    width: int = 1920
    height: int = 1080
    cards: tuple[int, int] = (1, 9)
    card_px: tuple[float, float] = (130.0, 260.0)
    tilt: float = 0.0002
    p_row: float = 0.4
    overlap: tuple[float, float] = (0.2, 0.55)
    p_touch: float = 0.3
    p_down: float = 0.15
    chips: tuple[int, int] = (0, 6)
    boxes: tuple[int, int] = (0, 5)
    glares: tuple[int, int] = (0, 2)
    glare_strength: tuple[float, float] = (0.2, 0.6)
    blur: tuple[float, float] = (0.0, 1.2)
    motion: tuple[float, float] = (0.0, 4.0)
    noise: tuple[float, float] = (0.0, 6.0)
    jpeg: tuple[int, int] = (60, 95)
    gain: tuple[float, float] = (0.85, 1.1)
    gradient: tuple[float, float] = (0.0, 0.25)
    p_fan: float = 0.0
    p_sideways: float = 0.0


def camera_view(rng: np.random.Generator, style: SceneStyle, px_per_mm: float) -> Points:
    """A homography from table mm (origin at the table centre) to the image: scale, turn, tilt."""
    theta = rng.uniform(-0.15, 0.15)
    c, s = np.cos(theta), np.sin(theta)
    similarity = np.array(
        [[px_per_mm * c, -px_per_mm * s, style.width / 2],
         [px_per_mm * s, px_per_mm * c, style.height / 2],
         [0.0, 0.0, 1.0]]
    )  # fmt: skip
    tilt = np.eye(3)
    tilt[2, :2] = rng.uniform(-style.tilt, style.tilt, 2)
    out: Points = similarity @ tilt
    return out


def _inside(h: Points, corners_mm: Points, style: SceneStyle, margin: float = 6.0) -> bool:
    pts = project(h, corners_mm)
    return bool(
        (pts[:, 0] > margin).all()
        and (pts[:, 1] > margin).all()
        and (pts[:, 0] < style.width - margin).all()
        and (pts[:, 1] < style.height - margin).all()
    )


def _clear(centres: list[Points], taken: list[Points], gap: float) -> bool:
    """True when every new card centre is a card height plus `gap` from every placed one."""
    return all(np.hypot(*(c - t)) > CARD_HEIGHT_MM + gap for c in centres for t in taken)


def _fan(
    rng: np.random.Generator, group: list[PlacedCard], angle: float, x: float, y: float
) -> list[PlacedCard]:
    """The group's cards fanned about a pivot below their centres.

    Each card turns 8-18 degrees more than the one under it, so every top-left index stays in sight.
    """
    spread = rng.uniform(8.0, 18.0)
    start = angle - spread * (len(group) - 1) / 2
    reach = CARD_HEIGHT_MM * rng.uniform(0.5, 0.8)
    out = []
    for k, p in enumerate(group):
        theta = start + k * spread
        t = np.deg2rad(theta)
        # The card's centre sits `reach` up the card's own axis from the shared pivot.
        out.append(
            PlacedCard(p.card, x + reach * np.sin(t), y - reach * np.cos(t), theta, p.face_up)
        )
    return out


def random_scene(rng: np.random.Generator, style: SceneStyle, design: Design) -> Scene:
    """Draw one random scene in `style` with cards of `design` (no card appears twice)."""
    card_px = rng.uniform(*style.card_px)
    # Rows step by the deck's own width, so a bridge-size row overlaps by the same shares.
    card_w = design.width_mm
    h = camera_view(rng, style, card_px / CARD_HEIGHT_MM)
    half_w = style.width / 2 / (card_px / CARD_HEIGHT_MM)
    half_h = style.height / 2 / (card_px / CARD_HEIGHT_MM)
    deck = list(rng.permutation(52))
    want = int(rng.integers(style.cards[0], style.cards[1] + 1))
    placed: list[PlacedCard] = []
    groups: list[Points] = []
    tries = 0
    while len(placed) < want and tries < 200:
        tries += 1
        n = min(want - len(placed), int(rng.integers(2, 5)) if rng.random() < style.p_row else 1)
        angle = (
            rng.uniform(0, 360)
            if n == 1
            else rng.choice([0.0, 90.0, 180.0, 270.0]) + rng.normal(0, 8)
        )
        step = card_w * (1 - rng.uniform(*style.overlap)) if n > 1 else 0.0
        if n > 1 and rng.random() < style.p_touch:
            step = card_w + rng.uniform(0.3, 2.5)
        x = rng.uniform(-half_w, half_w)
        y = rng.uniform(-half_h, half_h)
        a = np.deg2rad(angle)
        group = [
            PlacedCard(
                DECK[deck[len(placed) + k]],
                x + k * step * np.cos(a),
                y + k * step * np.sin(a),
                angle + rng.normal(0, 1.5),
                bool(rng.random() >= style.p_down),
            )
            for k in range(n)
        ]
        if n > 1 and style.p_fan and rng.random() < style.p_fan:
            group = _fan(rng, group, angle, x, y)
        elif n > 1 and style.p_sideways and rng.random() < style.p_sideways:
            last = group[-1]
            reach = (card_w + CARD_HEIGHT_MM) / 2 - card_w + step
            group[-1] = PlacedCard(
                last.card,
                last.x + reach * np.cos(a),
                last.y + reach * np.sin(a),
                angle + 90.0 + rng.normal(0, 3),
                last.face_up,
            )
        corners = [card_corners_mm(p, card_w) for p in group]
        centres = [np.array([p.x, p.y]) for p in group]
        if not all(_inside(h, c, style) for c in corners) or not _clear(centres, groups, 12.0):
            continue
        groups.extend(centres)
        placed.extend(group)
    chips = []
    for _ in range(int(rng.integers(style.chips[0], style.chips[1] + 1))):
        colour = _CHIP_COLOURS[int(rng.integers(len(_CHIP_COLOURS)))]
        chips.append(
            Chip(
                rng.uniform(-half_w, half_w),
                rng.uniform(-half_h, half_h),
                rng.uniform(17, 21),
                colour,
            )
        )
    boxes = []
    for _ in range(int(rng.integers(style.boxes[0], style.boxes[1] + 1))):
        bw, bh = (CARD_WIDTH_MM + rng.uniform(0, 20), CARD_HEIGHT_MM + rng.uniform(0, 20))
        if rng.random() < 0.5:
            bw, bh = bh, bw
        boxes.append((rng.uniform(-half_w, half_w - bw), rng.uniform(-half_h, half_h - bh), bw, bh))
    texts = [
        (
            str(rng.choice(["DEALER", "PLAYER", "ANTE", "BONUS", "PLAY"])),
            rng.uniform(-half_w, half_w * 0.6),
            rng.uniform(-half_h, half_h),
        )
        for _ in range(int(rng.integers(0, 3)))
    ]
    glares = [
        Glare(
            rng.uniform(0, style.width),
            rng.uniform(0, style.height),
            rng.uniform(0.2, 0.6) * card_px,
            rng.uniform(*style.glare_strength),
        )
        for _ in range(int(rng.integers(style.glares[0], style.glares[1] + 1)))
    ]
    felt = _FELTS[int(rng.integers(len(_FELTS)))]
    return Scene(
        width=style.width,
        height=style.height,
        table_to_image=h,
        design=design,
        cards=tuple(placed),
        chips=tuple(chips),
        boxes=tuple(boxes),
        texts=tuple(texts),
        glares=tuple(glares),
        felt=felt,
        gain=tuple(float(v) for v in rng.uniform(*style.gain, 3)),  # type: ignore[arg-type]
        gradient=float(rng.uniform(*style.gradient)),
        blur_sigma=float(rng.uniform(*style.blur)),
        motion=float(rng.uniform(*style.motion)),
        motion_angle=float(rng.uniform(0, 180)),
        noise=float(rng.uniform(*style.noise)),
        jpeg_quality=int(rng.integers(style.jpeg[0], style.jpeg[1] + 1)),
        seed=int(rng.integers(1 << 31)),
    )
