"""Firm cards read through outlines lying inside them: where a cut-off index reads as another rank.

    python bench/cutoff_index.py [--seeds S ...] [--insets 0 1 2 3 4 5 6] [--heights 160 240]
                                 [--blur 0.0] [--list N]

Every card of each tuning design (`--seeds`, tuning designs only; default the first eight,
whose readers are cached) is drawn upright on the felt, turned a degree or two, `--heights`
pixels tall, and read by the recognizer as a firm outline (`CardRecognizer.read_as_placed`:
the classifier and every check the recognizer reads a firm card with) through its drawn outline
with every side moved into the card by each of `--insets` (percent of the card's height). The
fit onto the paper's edge (`outline_fit.fitted_for_reading`) is left out: it is what would put
the outline back, and these are the outlines it did not (a side with no paper edge found, a
border line taken for the edge). Both index windows move in with the outline; where the index
sits tight to the card's edge the windows' edge cuts the index's top off.

Prints per inset the cards read right, wrong and not at all, per design and over all, and the
wrong reads (`--list`). On the tuning designs a 6 read as 9, a 10 as 8 and a K as A at both
corners at 3-4% insets (docs/camera.md, "Known limits").
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Iterator

import cv2
import numpy as np
from camera import calibrated_designs

from calibration.profile import CalibrationProfile
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.designs import CARD_HEIGHT_MM, CARD_WIDTH_MM, Design
from drivers.camera.synthetic.placed import inset_quad
from drivers.camera.synthetic.scene import PlacedCard, RenderedFrame, Scene, render_scene
from drivers.camera.synthetic.splits import SPLITS
from studio.cards import Card

DECK = [Card.parse(r + s) for s in "SHDC" for r in "A23456789TJQK"]
PER_FRAME = 9
"""Cards drawn a frame, three rows of three apart from each other."""


def drawn_frames(
    design: Design, height_px: float, blur: float, rng: np.random.Generator
) -> Iterator[RenderedFrame]:
    """The deck's 52 cards drawn `height_px` tall, `PER_FRAME` to a 1080p frame."""
    scale = height_px / CARD_HEIGHT_MM
    view = np.array([[scale, 0, 960], [0, scale, 540], [0, 0, 1.0]])
    step_x, step_y = 1.4 * CARD_WIDTH_MM, 1.2 * CARD_HEIGHT_MM
    for first in range(0, len(DECK), PER_FRAME):
        cards = [
            PlacedCard(card, step_x * (k % 3 - 1), step_y * (k // 3 - 1), float(rng.uniform(-3, 3)))
            for k, card in enumerate(DECK[first : first + PER_FRAME])
        ]
        yield render_scene(
            Scene(
                width=1920, height=1080, table_to_image=view, design=design, cards=cards,
                blur_sigma=blur, seed=int(rng.integers(1 << 30)),
            )
        )  # fmt: skip


def read_inset(
    recognizer: CardRecognizer, frame: RenderedFrame, share: float
) -> list[tuple[str, str | None, float]]:
    """Each card of `frame` read as a firm outline `share` inside it: (truth, code, confidence).

    As placed: the fit onto the paper's edge would undo the inset.
    """
    quads = [inset_quad(c.corners, share) for c in frame.cards]
    return [
        (c.code, None if r is None else r.code, 0.0 if r is None else r.confidence)
        for c, r in zip(frame.cards, recognizer.read_as_placed(frame.image, quads), strict=True)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, nargs="*", default=list(SPLITS["tuning"][:8]))
    parser.add_argument("--insets", type=float, nargs="*", default=[0, 1, 2, 3, 4, 5, 6])
    parser.add_argument("--heights", type=float, nargs="*", default=[160.0, 240.0])
    parser.add_argument("--blur", type=float, default=0.0, help="defocus sigma, px")
    parser.add_argument("--seed", type=int, default=20261213)
    parser.add_argument("--list", type=int, default=40)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    if any(s not in SPLITS["tuning"] for s in args.seeds):
        parser.error("only tuning designs are read here")
    total: Counter[tuple[float, str]] = Counter()
    wrongs: list[str] = []
    for design_seed, design, deck, templates in calibrated_designs(args.seeds):
        recognizer = CardRecognizer(CalibrationProfile(deck=deck), templates)
        rng = np.random.default_rng([args.seed, design_seed])
        mine: Counter[tuple[float, str]] = Counter()
        for height in args.heights:
            for frame in drawn_frames(design, height, args.blur, rng):
                for inset in args.insets:
                    for truth, code, confidence in read_inset(recognizer, frame, inset / 100):
                        kind = "none" if code is None else "right" if code == truth else "wrong"
                        mine[inset, kind] += 1
                        if kind == "wrong":
                            wrongs.append(
                                f"{design.name} {height:.0f}px inset {inset:g}%: {truth} read "
                                f"{code} at {confidence:.4f}"
                            )
        placement = deckgen.design(design_seed).placement
        print(f"  {design.name} ({placement}): " + _row(mine, args.insets), flush=True)
        total.update(mine)
    print("inset %:   " + "  ".join(f"{i:>13g}" for i in args.insets))
    for kind in ("right", "wrong", "none"):
        print(f"{kind:10s} " + "  ".join(f"{total[i, kind]:13d}" for i in args.insets))
    for line in wrongs[: args.list]:
        print(f"    wrong: {line}")


def _row(counts: Counter[tuple[float, str]], insets: list[float]) -> str:
    """Per inset: right/wrong/none."""
    return " ".join(
        f"{i:g}%:{counts[i, 'right']}/{counts[i, 'wrong']}/{counts[i, 'none']}" for i in insets
    )


if __name__ == "__main__":
    main()
