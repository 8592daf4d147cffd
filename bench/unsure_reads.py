"""How often the reader's leanings under its bar are right, by kind of evidence (tuning split).

    python bench/unsure_reads.py [--envelope studio|harsh] [--designs N] [--frames N]
                                 [--seed N] [--frame-cache DIR]

The reliability table of `bench/camera.py` counts the reads the recognizer makes, all at or
above its bars. This bench looks under them: every outline the recognizer decided whose
corners named no code but leaned to one (`IndexRead.hint`: every cut of the window naming that
code, at `ReaderTuning.hint` or above), put in one of four kinds of evidence:

- `one firm`: one corner of a firm outline leans to the code (under `abstain`);
- `one guessed`: one corner of a guessed outline (a proposal, a detected index corner) leans
  to it (under `abstain_guessed`);
- `both ends firm`, `both ends guessed`: the two index corners of a firm or of a guessed
  outline lean to the same code (`ReaderTuning.both_ends` reads these from its bar up, on either
  kind of outline; they are counted whether read or not). A guessed outline's two windows are
  cut at a size taken from other cards, so its two ends are counted apart.

Per kind and confidence bin (0.05 wide; the weaker corner's for `both ends`) it prints how many
outlines leaned, how many of them leaned to the card drawn there (a face-up card of that code
whose outline overlaps the outline's by 30%), and how many of those cards the frame's readings
lack (what reading that kind from that bin up would add: the recognizer reads here with
`both_ends` above any confidence, so that the table shows what that rule adds). A bar is
chosen where the right share stays whole with evidence behind it. The frames are those of
`bench/camera.py` with the same arguments (and may be read back from its `--frame-cache DIR`).
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
from camera import calibrated_designs
from frame_cache import cached_render, frame_key

from calibration.profile import CalibrationProfile
from drivers.camera.classify import IndexRead
from drivers.camera.outline import CardOutline
from drivers.camera.reading import CardReading
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic.envelopes import ENVELOPES
from drivers.camera.synthetic.generator import random_scene
from drivers.camera.synthetic.scoring import overlap
from drivers.camera.synthetic.splits import SPLITS
from drivers.camera.tuning import LEARNED_TUNING

_WITHOUT_BOTH_ENDS = replace(LEARNED_TUNING, both_ends=2.0)
"""The recognizer's tuning with no outline read on both ends' leanings (no confidence is 2)."""
KINDS = ("one firm", "one guessed", "both ends firm", "both ends guessed")
"""The kinds of evidence under the bar (see the module docstring)."""


@dataclass(frozen=True)
class Leaning:
    """One decided outline whose corners leaned to one code with no corner naming it."""

    kind: str
    code: str
    confidence: float
    corners: npt.NDArray[Any]


def leaning(outline: CardOutline, reads: list[IndexRead]) -> Leaning | None:
    """The evidence `reads` (an outline's corner reads) give under the bar, or None."""
    if any(r.code is not None for r in reads):
        return None
    hints = [r for r in reads if r.hint is not None]
    if not hints or len({r.hint for r in hints}) != 1 or hints[0].hint is None:
        return None
    made = "guessed" if outline.speculative else "firm"
    kind = f"both ends {made}" if len(hints) == 2 else f"one {made}"
    weaker = min(r.confidence for r in hints)
    return Leaning(kind, hints[0].hint, weaker, outline.corners.copy())


@dataclass
class Leanings:
    """The leanings of one frame's decided outlines (a `DecisionListener`; `clear` per frame)."""

    seen: list[Leaning] = field(default_factory=list)

    def clear(self) -> None:
        """Forget the frame before."""
        self.seen.clear()

    def decided(
        self, outline: CardOutline, reads: list[IndexRead], reading: CardReading | None
    ) -> None:
        found = leaning(outline, reads)
        if found is not None:
            self.seen.append(found)

    def scaled(self, found: list[IndexRead | None], checked: list[IndexRead | None]) -> None:
        pass  # the leanings are taken from the decisions alone


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--envelope", choices=("studio", "harsh"), default="studio")
    parser.add_argument("--designs", type=int, default=4, help="first N tuning designs")
    parser.add_argument("--frames", type=int, default=120, help="frames")
    parser.add_argument("--seed", type=int, default=20261129, help="scene seed")
    parser.add_argument("--frame-cache", type=Path, help="read drawn frames back from here")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    seeds = SPLITS["tuning"][: args.designs]
    style = ENVELOPES[args.envelope]
    # (kind, bin) -> [outlines, right, missing from the readings]
    table: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0, 0, 0])
    print(f"tuning/{args.envelope}: {len(seeds)} designs, {args.frames} frames", flush=True)
    for design_seed, design, deck, templates in calibrated_designs(seeds):
        leanings = Leanings()
        recognizer = CardRecognizer(
            CalibrationProfile(deck=deck),
            templates,
            tuning=_WITHOUT_BOTH_ENDS,
            listeners=[leanings],
        )
        rng = np.random.default_rng([args.seed, design_seed])
        for index in range(max(1, args.frames // len(seeds))):
            scene = random_scene(rng, style, design)
            frame = cached_render(
                scene, args.frame_cache, frame_key(design.name, args.envelope, args.seed, index)
            )
            leanings.clear()
            read = {r.code for r in recognizer.recognize(frame.image) if r.code is not None}
            drawn = {t.code: t for t in frame.cards if t.face_up}
            for lean in leanings.seen:
                truth = drawn.get(lean.code)
                right = (
                    truth is not None
                    and max(
                        overlap(truth.corners, lean.corners), overlap(lean.corners, truth.corners)
                    )
                    > 0.3
                )
                row = table[(lean.kind, min(19, int(lean.confidence * 20)))]
                row[0] += 1
                row[1] += right
                row[2] += right and lean.code not in read
    print("    kind               confidence  outlines  right  accuracy  not in the readings")
    for kind in KINDS:
        for (k, b), (n, ok, lost) in sorted(table.items()):
            if k == kind:
                print(
                    f"    {kind:18s} {b / 20:.2f}-{(b + 1) / 20:.2f}  {n:8d}  {ok:5d}  "
                    f"{ok / n:8.2%}  {lost:5d}"
                )


if __name__ == "__main__":
    main()
