"""Faces whose two index corners chips cover, under a warm light: never to be called face down.

A face dealt face up whose top-left and bottom-right indices lie under chips reads nothing at
those corners; its paper is then all the recognizer has to tell it from a back. Under a warm
light the paper's channels spread (`paper.FramePaper`), and a tuning cache once showed such a
face (a gen-1003 6H, 358 px, a four-index deck's top-right index in view) reported face down
by the light-back cue (`docs/camera-history.md`, "Dealt backs the finder did not see,
found"). The table would take that face for a back.

For each of the split's first `--designs` designs and each bench seed in `--seeds A B`, this
bench lays a face-up card in every zone of Caribbean stud's felt, drawn as
`bench/dealer_backs.py` draws the layout (`still_table.still_layout`, the envelope's card
heights), puts a chip (the scenes' sizes and colours) over each card's top-left and
bottom-right index corners, lights the round warm (red gain 1.0-1.1, green 0.85-0.92, blue
anywhere in the envelope's range; `StillCamera.covered_faces` draws it) and reads one frame
with the design's own calibrated deck. Each face is then `code` (its own code read), `wrong`
(another code), `unknown` (an unknown face), `down` (reported face down: what must never
happen) or `none` (nothing at its zone).

    python bench/covered_faces.py [--envelope studio|harsh] [--seeds 14100 14106]
                                  [--split tuning] [--designs 8] [--list]

`--list` prints every face reported face down with its layout (seed, design, card, height).
"""

from __future__ import annotations

import argparse
import random
from collections import Counter

import cv2
import numpy as np
from dealer_backs import deck_of

from calibration.profile import CalibrationProfile
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.envelopes import ENVELOPES
from drivers.camera.synthetic.splits import SPLITS
from drivers.camera.synthetic.still_table import StillCamera, still_layout
from studio.cards import DECK
from studio.games import get_rules
from studio.runtime.camera import position_rows

GAME = "caribbean-stud"
VIEWS = ("code", "wrong", "unknown", "down", "none")


def deal(envelope: str, seed: int, design_seed: int) -> list[tuple[str, str, float]]:
    """Every zone's face-up card under two chips, one warm-lit frame: (code, view, card px)."""
    rules = get_rules(GAME)
    style = ENVELOPES[envelope]
    design = deckgen.design(design_seed)
    rng = np.random.default_rng([seed, design_seed, 7])
    layout = still_layout(position_rows(rules.positions), design, style, rng)
    learned = deck_of(design_seed)
    if isinstance(learned, str):
        raise SystemExit(f"{design.name}: {learned}")
    deck, templates = learned
    profile = CalibrationProfile(table=layout.calibration(), zones=list(layout.zones), deck=deck)
    recognizer = CardRecognizer(profile, templates)
    camera = StillCamera(layout, style, rng)
    cards = list(DECK)
    random.Random(seed).shuffle(cards)
    faces = {zone: cards.pop() for zone in rules.positions}
    image, lying = camera.covered_faces(faces, f"{seed}-{design_seed}-covered")
    readings = recognizer.recognize(image)
    out = []
    for zone, card in lying.items():
        at = [r for r in readings if r.zone == zone]
        if any(r.face_down for r in at):
            view = "down"
        elif any(r.code == card.card.code for r in at):
            view = "code"
        elif any(r.code for r in at):
            view = "wrong"
        else:
            view = "unknown" if at else "none"
        out.append((f"{seed} {design.name} {zone} {card.card.code}", view, layout.card_height_px()))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envelope", default="studio", choices=sorted(ENVELOPES))
    parser.add_argument("--seeds", type=int, nargs=2, default=(14100, 14106))
    parser.add_argument("--split", default="tuning")
    parser.add_argument("--designs", type=int, default=8)
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    faces: list[tuple[str, str, float]] = []
    for design_seed in SPLITS[args.split][: args.designs]:
        for seed in range(*args.seeds):
            faces += deal(args.envelope, seed, design_seed)
    views = Counter(v for _, v, _ in faces)
    print(
        f"{args.envelope}, {args.split} designs {args.designs}, seeds {args.seeds[0]}-"
        f"{args.seeds[1] - 1}: {len(faces)} faces, both index corners under chips, warm light"
    )
    print("".join(f"{v:>10}" for v in VIEWS))
    print("".join(f"{views[v]:>10}" for v in VIEWS))
    print(f"faces called down {views['down']} of {len(faces)}")
    if args.list:
        for name, view, px in faces:
            if view in ("down", "wrong"):
                print(f"  {name} {px:.0f} px: {view}")


if __name__ == "__main__":
    main()
