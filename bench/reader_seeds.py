"""How much a deck's reader owes to its training draw, and whether readers of several seeds help.

Each design's reader is trained from seeds 0..K-1 alone (`learn_deck(..., reader_seeds=(s,))`;
every table reads with the mean of seeds 0 and 1, `calibration.reader_pair`, so the `mean` column
of `--readers 2` is every table's reader; each seed caches in the shared model cache). The same
frames (the shared caches' arguments, as `bench/camera.py` takes them) are read by one
recognizer per single reader and by one per ensemble of all K (`reader_ensemble`: `mean`, the
readers' probabilities averaged; `agree`, the least of them, so a code reads only where every
reader reads it). Everything else (outlines, corners, thresholds) is the recognizer's own.
Prints recall, wrong reads and phantoms per reader and ensemble, each wrong read with its
design and frame, the training seconds of each seed not cached yet, and the reader network's
milliseconds per frame (single and ensemble; the rest of the frame is the same for all).

    python bench/reader_seeds.py --envelope studio|harsh --designs N --frames N --seed N
                                 --frame-cache DIR [--readers K] [--inks NAME]
"""

from __future__ import annotations

import argparse
import functools
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from camera import design_deck, tags_for
from frame_cache import cached_render, frame_key

from calibration.errors import DeckCalibrationError
from calibration.profile import CalibrationProfile, DeckCalibration, DeckTemplates
from drivers.camera.classify import IndexNetwork
from drivers.camera.index_model import Array, IndexModel
from drivers.camera.reader_ensemble import Combine, ReaderEnsemble
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.designs import Design
from drivers.camera.synthetic.envelopes import ENVELOPES
from drivers.camera.synthetic.generator import random_scene
from drivers.camera.synthetic.scoring import Score
from drivers.camera.synthetic.splits import SPLITS


@dataclass
class Timed:
    """An `IndexNetwork` that adds the seconds its reader's network runs to `seconds`."""

    network: IndexNetwork
    seconds: float = 0.0

    @property
    def ranks(self) -> tuple[str, ...]:
        """The reader's rank class names."""
        return self.network.ranks

    @property
    def suits(self) -> tuple[str, ...]:
        """The reader's suit class names."""
        return self.network.suits

    def probabilities(self, batch: Array) -> tuple[Array, Array]:
        """The reader's probabilities, timed."""
        began = time.perf_counter()
        out = self.network.probabilities(batch)
        self.seconds += time.perf_counter() - began
        return out


@dataclass
class Column:
    """One way of reading (a single reader or an ensemble): its recognizers' network and score."""

    name: str
    score: Score = field(default_factory=Score)
    wrongs: list[str] = field(default_factory=list)
    network_seconds: float = 0.0
    frames: int = 0


def seeded_decks(
    design: Design, seeds: int
) -> tuple[DeckCalibration, DeckTemplates, list[IndexModel], list[float]]:
    """`design` calibrated as `bench/camera.py` calibrates it, with its reader of each seed.

    Returns seed 0's deck and templates, the readers of seeds 0..`seeds`-1, and the seconds
    each took (a cached one takes about one). Raises `DeckCalibrationError` when the design
    does not calibrate.
    """
    learned: list[tuple[DeckCalibration, DeckTemplates]] = []
    took: list[float] = []
    for s in range(seeds):
        began = time.perf_counter()
        found = design_deck(design, (s,))
        took.append(time.perf_counter() - began)
        if isinstance(found, str):
            raise DeckCalibrationError(found)
        learned.append(found)
    models: list[IndexModel] = []
    for _, templates in learned:
        assert templates.model is not None  # calibrate_deck always trains one
        models.append(templates.model)
    return *learned[0], models, took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--envelope", choices=("studio", "harsh"), default="studio")
    parser.add_argument("--designs", type=int, default=4, help="first N tuning designs")
    parser.add_argument("--frames", type=int, default=120)
    parser.add_argument("--seed", type=int, default=20261211, help="scene seed")
    parser.add_argument("--frame-cache", type=Path, help="the cached frames (bench/camera.py's)")
    parser.add_argument("--readers", type=int, default=3, help="seeds 0..K-1")
    parser.add_argument(
        "--inks",
        choices=tuple(deckgen.INKS),
        default=deckgen.TWO_COLOUR,
        help="suit ink set of every design, as bench/camera.py's --inks",
    )
    args = parser.parse_args()
    cv2.setNumThreads(1)
    seeds = SPLITS["tuning"][: args.designs]
    style = ENVELOPES[args.envelope]
    names = [f"seed {s}" for s in range(args.readers)] + ["mean", "agree"]
    columns = {name: Column(name) for name in names}
    per_design = max(1, args.frames // len(seeds))
    for design_seed in seeds:
        design = deckgen.with_inks(deckgen.design(design_seed), args.inks)
        deck, templates, models, took = seeded_decks(design, args.readers)
        print(f"  {design.name}: readers of seeds 0..{args.readers - 1} in "
              + " ".join(f"{t:.0f}" for t in took) + " s", flush=True)  # fmt: skip
        networks: dict[str, Timed] = {f"seed {s}": Timed(m) for s, m in enumerate(models)}
        networks["mean"] = Timed(ReaderEnsemble(tuple(models), Combine.MEAN))
        networks["agree"] = Timed(ReaderEnsemble(tuple(models), Combine.AGREE))
        make = functools.partial(CardRecognizer, CalibrationProfile(deck=deck), templates)
        recognizers = {name: make(network=networks[name]) for name in names}
        rng = np.random.default_rng([args.seed, design_seed])
        for index in range(per_design):
            scene = random_scene(rng, style, design)
            frame = cached_render(
                scene, args.frame_cache, frame_key(design.name, args.envelope, args.seed, index)
            )
            tags = tags_for(scene, frame, style.height)
            for name, recognizer in recognizers.items():
                column = columns[name]
                before = len(column.score.wrongs)
                column.score.add(frame, recognizer.recognize(frame.image), tags)
                column.frames += 1
                column.wrongs += [
                    f"{design.name} frame {index}: {w}" for w in column.score.wrongs[before:]
                ]
        for name in names:
            columns[name].network_seconds += networks[name].seconds
    print(f"tuning/{args.envelope}, {len(seeds)} designs, {args.frames} frames, seed {args.seed}")
    print(f"  {'reader':8s} readable  recall  wrong  phantoms  network ms/frame")
    for c in columns.values():
        s = c.score
        ms = 1000 * c.network_seconds / max(1, c.frames)
        print(f"  {c.name:8s} {s.readable:8d} {s.recall:7.2%} {s.wrong:6d} {s.phantom:9d}"
              f"  {ms:6.2f}")  # fmt: skip
    singles = [columns[f"seed {s}"].score.recall for s in range(args.readers)]
    print(f"  single readers' recall spread: {100 * (max(singles) - min(singles)):.2f} points")
    for c in columns.values():
        for w in c.wrongs:
            print(f"    {c.name}: wrong {w}")


if __name__ == "__main__":
    main()
