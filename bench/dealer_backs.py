"""Dealt face-down cards on the felt: how many the recognizer sees, by card height.

The table confirms a dealer's face-down card only if the recognizer reports something at its
zone. This bench deals the first round of Caribbean stud in full on each of the split's first
`--designs` designs, for each bench seed in `--seeds A B` (A to B-1), exactly as
`bench/felt_camera.py --seed S` draws that design's layout, camera and the round's light; lays
every card of the round at once, films one frame and reads it with the design's own calibrated
deck. Each dealer back (`dealer-2` to `dealer-5`) is then:

- `down`: a reading face down at its zone (what the table wants);
- `unknown`: an unknown face there; `code`: a code read there (a back read as a face);
- `no outline`: nothing there and no firm outline of `detect.detect_cards` near it;
- `dropped`: nothing there though the finder had an outline (the decision dropped it).

Counted by card height (`layout.card_height_px()`: under 160 px, 160-219, 220 and more). The
face-up cards of the same frames reported face down are counted too (`faces called down`: the
table would take such a face for a back). One frame each: these are shares of frames, not of
cards the table never confirms (`bench/felt_camera.py` says that).

    python bench/dealer_backs.py [--envelope studio|harsh] [--seeds 14100 14130]
                                 [--split tuning] [--designs 8] [--list] [--inks NAME]

`--list` prints every back not reported face down with its layout (seed, design, height).
`--inks four-colour` prints the designs' suits in that ink set of `deckgen.INKS` (the backs are
the designs' own), calibration included.
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from felt_camera import GAMES, calibrated_deck

from calibration.profile import CalibrationProfile, DeckCalibration, DeckTemplates
from calibration.zones import zone_centre
from drivers.camera.detect import detect_cards
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.envelopes import ENVELOPES
from drivers.camera.synthetic.felt import Felt
from drivers.camera.synthetic.scene import project
from drivers.camera.synthetic.splits import SPLITS
from drivers.camera.synthetic.still_table import StillCamera, still_layout
from studio.cards import DECK
from studio.games import get_rules
from studio.runtime.camera import position_rows

GAME = "caribbean-stud"
BANDS = ((0, 160, "under 160 px"), (160, 220, "160-219 px"), (220, 10_000, "220 px and more"))
VIEWS = ("down", "unknown", "code", "no outline", "dropped")


@dataclass(frozen=True)
class Back:
    """One dealer back of one layout and what the recognizer made of it."""

    seed: int
    design: str
    zone: str
    card_px: float
    view: str


@lru_cache(maxsize=1)
def deck_of(
    design_seed: int, inks: str = deckgen.TWO_COLOUR
) -> tuple[DeckCalibration, DeckTemplates] | str:
    """`felt_camera.calibrated_deck` of a design printed in `inks`, kept while its seeds are
    dealt (the designs are dealt one after the other): calibrating again from the cached model
    took seconds."""
    return calibrated_deck(deckgen.with_inks(deckgen.design(design_seed), inks))


def deal(
    envelope: str, seed: int, design_seed: int, inks: str = deckgen.TWO_COLOUR
) -> tuple[list[Back], int, int]:
    """The dealer backs of one fully dealt round, and the face-up cards (and those called
    face down) of its frame; the design's suits printed in the ink set `inks`."""
    rules = get_rules(GAME)
    style = ENVELOPES[envelope]
    design = deckgen.with_inks(deckgen.design(design_seed), inks)
    rng = np.random.default_rng([seed, design_seed, GAMES.index(GAME)])
    layout = still_layout(position_rows(rules.positions), design, style, rng)
    learned = deck_of(design_seed, inks)
    if isinstance(learned, str):
        raise SystemExit(f"{design.name}: {learned}")
    deck, templates = learned
    profile = CalibrationProfile(table=layout.calibration(), zones=list(layout.zones), deck=deck)
    recognizer = CardRecognizer(profile, templates)
    camera = StillCamera(layout, style, rng)
    camera.relight()
    felt = Felt(f"{seed}-{design_seed}-{GAME}")
    cards = list(DECK)
    random.Random(seed).shuffle(cards)
    downs: list[str] = []
    ups: list[str] = []
    for dealt in rules.deals:
        up = dealt.face.value == "up"
        felt.place(dealt.position, cards.pop(), up)
        (ups if up else downs).append(dealt.position)
    image = camera.frame(felt.view()[1])
    readings = recognizer.recognize(image)
    found = detect_cards(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), frame=image)
    height = layout.card_height_px()
    centres = {
        z.name: project(layout.table_to_image, np.array([zone_centre(z)]))[0] for z in layout.zones
    }
    backs = []
    for zone in downs:
        if not zone.startswith("dealer"):
            continue
        at = [r for r in readings if r.zone == zone]
        if any(r.face_down for r in at):
            view = "down"
        elif any(r.code for r in at):
            view = "code"
        elif at:
            view = "unknown"
        else:
            near = any(
                np.linalg.norm(o.corners.mean(axis=0) - centres[zone]) < 0.3 * height
                for o in found.outlines
            )
            view = "dropped" if near else "no outline"
        backs.append(Back(seed, design.name, zone, height, view))
    called_down = sum(any(r.face_down for r in readings if r.zone == z) for z in ups)
    return backs, len(ups), called_down


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envelope", default="studio", choices=sorted(ENVELOPES))
    parser.add_argument("--seeds", type=int, nargs=2, default=(14100, 14130))
    parser.add_argument("--split", default="tuning")
    parser.add_argument("--designs", type=int, default=8)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--inks", choices=tuple(deckgen.INKS), default=deckgen.TWO_COLOUR)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    backs: list[Back] = []
    faces = called = 0
    for design_seed in SPLITS[args.split][: args.designs]:
        for seed in range(*args.seeds):
            got, up, down = deal(args.envelope, seed, design_seed, args.inks)
            backs += got
            faces += up
            called += down
    print(
        f"{args.envelope}, {args.split} designs {args.designs} ({args.inks}), seeds "
        f"{args.seeds[0]}-{args.seeds[1] - 1}: {len(backs)} dealer backs"
    )
    print(f"{'card height':<18}{'backs':>6}" + "".join(f"{v:>12}" for v in VIEWS))
    for lo, hi, name in (*BANDS, (0, 10_000, "all")):
        band = [b for b in backs if lo <= b.card_px < hi]
        views = Counter(b.view for b in band)
        print(f"{name:<18}{len(band):>6}" + "".join(f"{views[v]:>12}" for v in VIEWS))
    print(f"faces called down {called} of {faces} face-up cards")
    if args.list:
        for b in backs:
            if b.view != "down":
                print(f"  {b.seed} {b.design} {b.zone} {b.card_px:.0f} px: {b.view}")


if __name__ == "__main__":
    main()
