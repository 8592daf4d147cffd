"""Which card-level decision dropped each `read_dropped` miss, on the tuning split.

    python bench/dropped_reads.py [--envelope studio|harsh] [--designs N | --design-seeds S ...]
                                  [--frames N] [--seed N] [--frame-cache DIR]

`bench/miss_causes.py` calls a missed card `read_dropped` when an outline puts an index window in
place and the deck's reader reads the right code there, yet the frame's readings lack the card.
This bench reads each frame with a recognizer that tells it every card-level decision it makes
(a `DecisionListener`: each outline's corner reads and reading, each guessed corner's read on its
scaled outline) and puts each such
miss down to the first rule that dropped a read of its code:

- `contested`: a reading of the code reached the merge of guesses, and another coded claim at
  the same printed index contradicted it (`guesses.contested`: neither stands, unless a
  firm reading read at both indices outranks a guess);
- `merge`: a reading of the code reached the merge and was dropped there otherwise;
- `two_codes`: one outline's corners read the code and another code (`_decide`);
- `hint`: one corner read the code and another, under the bar, leaned to another (`_decide`);
- `scaled`: a guessed outline read the code, but not on the outline scaled
  (`ReaderTuning.scaled`);
- `under_bar`: the recognizer's corners lean to the code but under the bar (it cut the window
  otherwise than the diagnosis's candidate: another outline, or the same one not fitted);
- `not_read`: no outline the recognizer read leans to the code (the diagnosis's candidate is one
  the recognizer does not read: a proposal in a region its firm outlines explain
  (`REGION_EXPLAINED`), a snapped copy of an outline that read, a corner left out of view).

Per envelope it prints each such miss (design, frame, code, share in view, tags, rule) and the
count per rule. The frames are those of `bench/camera.py` with the same arguments (and may be
read back from its `--frame-cache DIR`); only the tuning split is looked at.
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from camera import calibrated_designs, tags_for
from frame_cache import cached_render, frame_key
from miss_causes import MissDiagnosis

from calibration.profile import CalibrationProfile
from drivers.camera.classify import IndexRead
from drivers.camera.guesses import contested
from drivers.camera.outline import CardOutline
from drivers.camera.reading import CardReading, ReadingSource
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic.envelopes import ENVELOPES
from drivers.camera.synthetic.generator import random_scene
from drivers.camera.synthetic.splits import SPLITS
from drivers.camera.tuning import LEARNED_TUNING

_FIRM = (ReadingSource.FIRM, ReadingSource.EXTENDED)
"""The sources of the readings the merge takes as firm (the rest are guesses)."""
RULES = ("contested", "merge", "two_codes", "hint", "scaled", "under_bar", "not_read")
"""Every rule a dropped read is put down to, in the order they are tried."""


@dataclass
class DecisionLog:
    """One frame's card-level decisions: each outline's corner reads and what it gave.

    A `DecisionListener` of the recognizer; `clear` it before each frame.
    """

    cards: list[tuple[list[IndexRead], CardReading | None]] = field(default_factory=list)
    unscaled: set[str] = field(default_factory=set)
    """Codes a guessed corner read that its scaled outline refused."""

    def clear(self) -> None:
        """Forget the frame before."""
        self.cards.clear()
        self.unscaled.clear()

    def decided(
        self, outline: CardOutline, reads: list[IndexRead], reading: CardReading | None
    ) -> None:
        self.cards.append((reads, reading))

    def scaled(self, found: list[IndexRead | None], checked: list[IndexRead | None]) -> None:
        # A code read on the guess's own cut (at the bar) that the scaled cut refused.
        self.unscaled |= {
            before.code
            for before, after in zip(found, checked, strict=True)
            if before is not None and before.code and after is not None and after.code is None
        }


def dropping_rule(log: DecisionLog, code: str) -> str:
    """The first rule (`RULES`) that dropped a read of `code` in the frame `log` was kept for."""
    coded = [out for _, out in log.cards if out is not None and out.code is not None]
    # Firm readings first, as the merge orders them (`contested`: a firm reading read at both
    # indices outranks a guess read at one).
    firm = [c for c in coded if c.source in _FIRM]
    claims = firm + [c for c in coded if c.source not in _FIRM]
    if any(c.code == code for c in claims):
        doubted = {claims[n].code for n in contested(claims, len(firm))}
        return "contested" if code in doubted else "merge"
    for reads, _ in log.cards:
        codes = {r.code for r in reads if r.code is not None}
        if code in codes:
            return "two_codes" if len(codes) > 1 else "hint"
    if code in log.unscaled:
        return "scaled"
    if any(r.hint == code for reads, _ in log.cards for r in reads):
        return "under_bar"
    return "not_read"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--envelope", choices=("studio", "harsh", "both"), default="both")
    parser.add_argument("--designs", type=int, default=3, help="first N tuning designs")
    parser.add_argument(
        "--design-seeds", type=int, nargs="+", help="these tuning designs instead (by seed)"
    )
    parser.add_argument("--frames", type=int, default=120, help="frames per envelope")
    parser.add_argument("--seed", type=int, default=20261129, help="scene seed")
    parser.add_argument("--frame-cache", type=Path, help="read drawn frames back from here")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    seeds = SPLITS["tuning"][: args.designs]
    if args.design_seeds:
        unknown = sorted(set(args.design_seeds) - set(SPLITS["tuning"]))
        if unknown:
            parser.error(f"not tuning designs: {', '.join(map(str, unknown))}")
        seeds = tuple(args.design_seeds)
    envelopes = ("studio", "harsh") if args.envelope == "both" else (args.envelope,)
    for env in envelopes:
        style = ENVELOPES[env]
        counts: Counter[str] = Counter()
        print(f"tuning/{env}: {len(seeds)} designs, {args.frames} frames", flush=True)
        for design_seed, design, deck, templates in calibrated_designs(seeds):
            log = DecisionLog()
            recognizer = CardRecognizer(CalibrationProfile(deck=deck), templates, listeners=[log])
            diagnosis = MissDiagnosis(deck, templates, LEARNED_TUNING)
            rng = np.random.default_rng([args.seed, design_seed])
            for index in range(max(1, args.frames // len(seeds))):
                scene = random_scene(rng, style, design)
                key = frame_key(design.name, env, args.seed, index)
                frame = cached_render(scene, args.frame_cache, key)
                log.clear()
                readings = recognizer.recognize(frame.image)
                tags = tags_for(scene, frame, style.height)
                for k, cause, _ in diagnosis.causes(scene, frame, readings):
                    if cause != "read_dropped":
                        continue
                    truth = frame.cards[k]
                    rule = dropping_rule(log, truth.code)
                    counts[rule] += 1
                    print(
                        f"  {design.name} frame {index:3d} {truth.code:3s} in view "
                        f"{truth.visible:4.0%} {','.join(sorted(tags.get(k, ()))) or '-':18s} "
                        f"{rule}",
                        flush=True,
                    )
        print(
            f"tuning/{env}: read_dropped {sum(counts.values())}  by rule: "
            + "  ".join(f"{r} {counts[r]}" for r in RULES if counts[r])
        )


if __name__ == "__main__":
    main()
