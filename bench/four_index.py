"""Four-index decks: how many missed cards show their other two indices, on the bench's frames.

A four-index deck (`deckgen.GeneratedDesign.four_index`; calibration's `DeckCalibration.
four_index`) prints its index at the top right and bottom left too. For each four-index design
of a split's first N designs, the frames `bench/camera.py` draws (the same seed and arguments,
so a `--frame-cache` replays) are read by the recognizer, and per design it prints:

- `readable` and `missed` (the bench's recall counts a card readable when its top-left or
  bottom-right index window is in view);
- `other in view`: of those misses, how many show their top-right or bottom-left index window
  (97% in view, the renderer's bar for an index corner): what reading those corners could add;
- `only other`: face-up cards the renderer calls unreadable (neither index corner in view)
  whose top-right or bottom-left window is in view, and how many of them were read anyway (the
  bench's recall does not count them).

    python bench/four_index.py --split tuning --envelope studio --designs 4 --frames 400 \\
        --seed 20261216 --frame-cache /tmp/frames-studio-20261216

Choose on the tuning split only.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from camera import design_deck
from frame_cache import cached_render, frame_key

from calibration.profile import CalibrationProfile
from drivers.camera.index_corner_training import window_shown
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.envelopes import ENVELOPES
from drivers.camera.synthetic.generator import random_scene
from drivers.camera.synthetic.scene import RenderedFrame, Scene
from drivers.camera.synthetic.scoring import Score
from drivers.camera.synthetic.splits import SPLITS

OTHER_CORNERS = ([1, 0, 3, 2], [3, 2, 1, 0])
"""A card's corners taken from its top right and from its bottom left, each first side along
the card's end: the index window at their first corner is the other index's place."""
IN_VIEW = 0.97
"""An index window is in view from this share up (the renderer's own bar for an index corner)."""


@dataclass
class Counts:
    """One design's (or the total's) counts; see the module docstring."""

    readable: int = 0
    missed: int = 0
    other_in_view: int = 0
    read: int = 0
    only_other: int = 0
    only_other_read: int = 0

    def add(self, other: Counts) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


def window_share(k: int, frame: RenderedFrame, scene: Scene, order: list[int]) -> float:
    """The share of card k's index window at the corner `order` starts at that stays in view."""
    return window_shown(frame.cards[k].corners[order], k, frame, scene)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--split", choices=("test", "tuning"), default="tuning")
    parser.add_argument("--envelope", choices=("studio", "harsh"), default="studio")
    parser.add_argument("--designs", type=int, default=4)
    parser.add_argument("--frames", type=int, default=120)
    parser.add_argument("--seed", type=int, default=20261211)
    parser.add_argument("--frame-cache", type=Path)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    style = ENVELOPES[args.envelope]
    seeds = SPLITS[args.split][: args.designs]
    per_design = max(1, args.frames // len(seeds))
    total = Counts()
    score = Score()
    for design_seed in seeds:
        d = deckgen.design(design_seed)
        if not d.four_index:
            continue
        learned = design_deck(d)
        if isinstance(learned, str):
            print(f"  {d.name}: calibration failed: {learned}")
            continue
        recognizer = CardRecognizer(CalibrationProfile(deck=learned[0]), learned[1])
        rng = np.random.default_rng([args.seed, design_seed])
        counts = Counts()
        design_score = Score()
        for index in range(per_design):
            scene = random_scene(rng, style, d)
            frame = cached_render(
                scene, args.frame_cache, frame_key(d.name, args.envelope, args.seed, index)
            )
            readings = recognizer.recognize(frame.image)
            design_score.add(frame, readings)
            score.add(frame, readings)
            codes = {r.code for r in readings}
            for k, t in enumerate(frame.cards):
                if not t.face_up:
                    continue
                other = max(window_share(k, frame, scene, order) for order in OTHER_CORNERS)
                if t.readable:
                    counts.readable += 1
                    if t.code not in codes:
                        counts.missed += 1
                        counts.other_in_view += other >= IN_VIEW
                elif other >= IN_VIEW:
                    counts.only_other += 1
                    counts.only_other_read += t.code in codes
        total.add(counts)
        print(_line(d.name, counts, design_score), flush=True)
    print(_line("all", total, score))


def _line(name: str, c: Counts, score: Score) -> str:
    return (
        f"  {name:9s} readable {c.readable:5d}  missed {c.missed:4d}  other in view "
        f"{c.other_in_view:4d}  only other {c.only_other:4d} (read {c.only_other_read})  "
        f"recall {score.recall:.2%}  wrong {score.wrong}  phantoms {score.phantom}"
    )


if __name__ == "__main__":
    main()
