"""Faces and backs on the felt: how much of each card's inside is the paper of its own border.

The face-down decision (`CardRecognizer`, when no corner reads a code) needs a cue that tells a
back from a face no matter the deck. This bench lays every code face up and a row of backs of
each of the split's first `--designs` designs on the felt of Caribbean stud, films them in the
`--envelope` (`drivers/camera/synthetic/still_table.py`), finds the outlines as the recognizer
does (`detect.detect_cards`) and measures each outline whose centre lies in a zone with a card:
its paper share inside the border against the frame's felt threshold (the recognizer's cue) and
at the card's own border level (`paper.own_paper`, at each `--levels` share of the border's
grey, and at the first level within `--tint` of the border's tint as well). Prints, per cue,
the distribution over faces (courts apart) and backs, how many lie on the wrong side of `--bar`
and how many a cue moves across it against the recognizer's, with examples; then how many of
each kind the recognizer's own rule calls a back (under `PAPER_SHARE_FACE_UP` of paper against
the felt, or `paper.light_back`) when no corner reads: a face it calls so is reported face down
only where no guess on its spot reads a code.

    python bench/card_backs.py [--split tuning] [--designs 8] [--envelope studio|harsh]
                               [--levels 0.8 0.85 0.9] [--tint 20] [--bar 0.3] [--seed 7]
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Mapping

import cv2
import numpy as np

from calibration.zones import zone_centre
from drivers.camera.detect import detect_cards
from drivers.camera.paper import light_back, own_paper, paper_shares
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.envelopes import ENVELOPES
from drivers.camera.synthetic.felt import Felt, FeltCard
from drivers.camera.synthetic.scene import project
from drivers.camera.synthetic.splits import SPLITS
from drivers.camera.synthetic.still_table import StillCamera, still_layout
from drivers.camera.tuning import PAPER_SHARE_FACE_UP
from studio.cards import DECK
from studio.games import get_rules
from studio.runtime.camera import position_rows

COURTS = ("J", "Q", "K")


def measure(
    split: str, designs: int, envelope: str, levels: list[float], tint: int, seed: int
) -> dict[str, list[tuple[str, tuple[float, ...]]]]:
    """Each card's cues by kind (face, court, back): its paper share over the felt threshold,
    its own paper's share at each of `levels`, then at the first level and `tint` too, and
    last 1.0 where the recognizer's rule calls it a back (else 0.0)."""
    cv2.setNumThreads(1)
    rules = get_rules("caribbean-stud")
    style = ENVELOPES[envelope]
    out: dict[str, list[tuple[str, tuple[float, ...]]]] = defaultdict(list)
    for s in SPLITS[split][:designs]:
        design = deckgen.design(s)
        rng = np.random.default_rng([seed, s])
        layout = still_layout(position_rows(rules.positions), design, style, rng)
        camera = StillCamera(layout, style, rng)
        names = [z.name for z in layout.zones]
        centres = {
            z.name: project(layout.table_to_image, np.array([zone_centre(z)]))[0]
            for z in layout.zones
        }
        codes = list(DECK)
        batches = [codes[i : i + len(names)] for i in range(0, len(codes), len(names))]
        felt = Felt(f"{seed}-{s}")
        layouts: list[Mapping[str, FeltCard]] = []
        for up, batch in [(True, b) for b in batches] + [(False, codes)] * 3:
            felt.clear()
            for n, c in zip(names, batch, strict=False):
                felt.place(n, c, up)
            layouts.append(felt.view()[1])
        tag = f"{design.name}/{design.back_pattern}/{design.back_colour}"
        for cards in layouts:
            image = camera.frame(cards)
            gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
            found = detect_cards(gray, frame=image)
            for outline in found.outlines:
                c = outline.corners.mean(axis=0)
                name = min(names, key=lambda n: float(np.linalg.norm(centres[n] - c)))
                if np.linalg.norm(centres[name] - c) > 0.25 * layout.card_height_px():
                    continue
                if name not in cards:
                    continue
                card = cards[name]
                kind = (
                    "back"
                    if not card.face_up
                    else "court"
                    if card.card.rank.char in COURTS
                    else "face"
                )
                old = paper_shares(image, gray, found.paper, outline.contour).inner
                own = [
                    own_paper(image, gray, found.paper, outline.contour, lv, tint) for lv in levels
                ]
                back = old < PAPER_SHARE_FACE_UP or light_back(
                    image, gray, found.paper, outline.contour
                )
                cue = (old, *(p.own for p in own), own[0].tint, float(back))
                out[kind].append((f"{tag} {card.card.code}", cue))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="tuning", choices=sorted(SPLITS))
    parser.add_argument("--designs", type=int, default=8)
    parser.add_argument("--envelope", default="studio", choices=sorted(ENVELOPES))
    parser.add_argument("--levels", type=float, nargs="+", default=[0.8, 0.85, 0.9])
    parser.add_argument("--tint", type=int, default=20)
    parser.add_argument("--bar", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    data = measure(args.split, args.designs, args.envelope, args.levels, args.tint, args.seed)
    cues = [
        "felt threshold",
        *(f"own border x{lv}" for lv in args.levels),
        f"own x{args.levels[0]} and tint {args.tint}",
    ]
    for i, cue in enumerate(cues):
        print(f"{cue}:")
        for kind in ("face", "court", "back"):
            vals = np.array([v[i] for _, v in data[kind]])
            if not len(vals):
                continue
            q = np.percentile(vals, [0, 1, 5, 50, 95, 99, 100])
            print(
                f"  {kind:5} n={len(vals):4d} min/p1/p5/p50/p95/p99/max "
                + " ".join(f"{x:.2f}" for x in q)
            )
            wrong = [t for t, v in data[kind] if (v[i] < args.bar) != (kind == "back")]
            # What this cue changes against the felt-threshold one, on either side of the bar.
            flips = [t for t, v in data[kind] if (v[i] < args.bar) != (v[0] < args.bar)]
            print(f"    {len(wrong)} on the wrong side of {args.bar}, {len(flips)} moved across it")
            # Only a card the felt-threshold cue calls a face can move: its own share is the cue.
            kept = np.array([v[i] for _, v in data[kind] if v[0] >= args.bar])
            if i and len(kept):
                q = np.percentile(kept, [0, 1, 5, 50, 95, 99, 100])
                print(
                    f"    of the {len(kept)} at or over {args.bar} on the felt threshold: "
                    + " ".join(f"{x:.2f}" for x in q)
                )
            for t in wrong[:4]:
                print(f"    wrong side: {t}")
            for t in flips[:4] if i else []:
                print(f"    moved: {t} {[round(x, 2) for x in dict(data[kind])[t]]}")
    print("the recognizer's rule (felt threshold, or a light back) calls a back:")
    for kind in ("face", "court", "back"):
        called = [t for t, v in data[kind] if v[-1]]
        # The cards the light-back cue adds to the felt threshold's.
        more = [t for t, v in data[kind] if v[-1] and v[0] >= PAPER_SHARE_FACE_UP]
        print(
            f"  {kind:5} {len(called)} of {len(data[kind])}, {len(more)} of them light backs"
            + "".join(f"; {t}" for t in more[:4])
        )


if __name__ == "__main__":
    main()
