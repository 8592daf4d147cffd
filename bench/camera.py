"""Card recognition on generated deck designs, per split of designs and per camera envelope.

Each design of a split (`drivers/camera/synthetic/splits.py`) is calibrated from its own 52 flat
renders only, through `studio calibrate deck`'s code path (`calibrate_deck` on a directory of
reference images), as a studio would from photographs; a design that fails to calibrate is
reported as a failure with the reason, and its cards count as missed. Then random scenes of each
envelope (`drivers/camera/synthetic/envelopes.py`: studio, harsh) are read. Prints, per split and
envelope: recall of readable face-up cards, wrong reads (target zero), phantoms, face-up cards
reported face down (a face taken for a back: the table would take it for one), unknown rate,
recall by difficulty tag, fps at 1920x1080 on one core, and a reliability table (confidence bin
against the share of coded reads that were right). **The test split's figures are the ones that
count**; the tuning split is for choosing things.

    python bench/camera.py [--split test|tuning|both] [--envelope studio|harsh|both]
                           [--designs N] [--frames N] [--seed N] [--json]
                           [--dump DIR] [--no-miss-causes] [--frame-cache DIR]
                           [--aspect H/W] [--inks NAME]

`--dump DIR` writes every wrong read and phantom out to be looked at (`camera_dump.py`: one
JSON line each in `DIR/<split>-<envelope>/events.jsonl`, a crop with the outline drawn and the
whole frame); their counts by kind and by outline source are printed either way.
`--no-miss-causes` skips looking again at each missed card (about a third of the CPU on a long
run looking for wrong reads). `--frame-cache DIR` keeps each drawn frame (lossless) and its
ground truth, and reads them back on a later run with the same seed (`frame_cache.py`): drawing
a frame costs more than recognising it, so a long run repeated to compare two recognizers costs
a fraction of the first. `--aspect 1.544` prints the split's designs on cards of another shape
(`deckgen.with_aspect`: bridge size is 88 x 57 mm, 1.544; poker size, 1.397, is every design's
own), so the same designs are compared at two shapes, calibration included. `--inks four-colour`
prints them in another suit ink set (`deckgen.with_inks`, the sets of `deckgen.INKS`: clubs green
and diamonds blue, a dark blue or brown black, an orange or pink red; two-colour is every design's
own), calibration included.

`bench_scene` and `bench_recognizers` serve the older benches on the two hand-set designs.
"""

from __future__ import annotations

import argparse
import functools
import json
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np
from camera_dump import EventDump, FrameOrigin
from frame_cache import cached_render, frame_key
from miss_causes import CAUSES, MissCauses, MissDiagnosis

from calibration.deck import calibrate_deck, learn_deck
from calibration.errors import DeckCalibrationError
from calibration.profile import CalibrationProfile, DeckCalibration, DeckTemplates
from calibration.reader_pair import SEEDS
from drivers.camera.reading import CardReading
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.designs import DESIGNS, Design
from drivers.camera.synthetic.envelopes import ENVELOPES
from drivers.camera.synthetic.generator import SceneStyle, random_scene
from drivers.camera.synthetic.reference import render_reference, write_reference_deck
from drivers.camera.synthetic.scene import RenderedFrame, Scene
from drivers.camera.synthetic.scoring import Score, card_height_px, overlap
from drivers.camera.synthetic.splits import SPLITS
from drivers.camera.tuning import INDEX_READERS, LEARNED_TUNING, ReaderTuning
from studio.cards import DECK
from studio.config import cache_dir

BENCH_1080 = SceneStyle(
    width=1920, height=1080, card_px=(120.0, 300.0), blur=(0.0, 1.6), motion=(0.0, 5.0),
    noise=(0.0, 8.0), jpeg=(50, 95), gain=(0.8, 1.15), gradient=(0.0, 0.35), glares=(0, 3),
    glare_strength=(0.2, 0.7), tilt=0.00035,
)  # fmt: skip
BENCH_720 = SceneStyle(
    width=1280, height=720, card_px=(90.0, 200.0), blur=(0.0, 1.2), motion=(0.0, 4.0),
    noise=(0.0, 8.0), jpeg=(50, 95), gain=(0.8, 1.15), gradient=(0.0, 0.35), glares=(0, 3),
    glare_strength=(0.2, 0.7), tilt=0.00035,
)  # fmt: skip


def tags_for(scene: Scene, frame: RenderedFrame, full_height: int) -> dict[int, set[str]]:
    """Difficulty tags per drawn card: overlap, small, blur, glare."""
    out: dict[int, set[str]] = {}
    blurred = scene.blur_sigma > 0.8 or scene.motion > 2.5
    for i, truth in enumerate(frame.cards):
        tags = set()
        if truth.visible < 0.95:
            tags.add("overlap")
        if card_height_px(truth) * 1080 / full_height < 160:
            tags.add("small")
        if blurred:
            tags.add("blur")
        centre = truth.corners.mean(axis=0)
        size = card_height_px(truth)
        if any(
            np.hypot(g.x - centre[0], g.y - centre[1]) < g.radius + size / 2 for g in scene.glares
        ):
            tags.add("glare")
        out[i] = tags
    return out


def bench_scene(rng: np.random.Generator, i: int) -> tuple[SceneStyle, str, Scene]:
    """The camera benches' `i`-th random scene: 1080p two times in three, designs in turn."""
    style = BENCH_1080 if i % 3 else BENCH_720
    design = sorted(DESIGNS)[i % len(DESIGNS)]
    return style, design, random_scene(rng, style, DESIGNS[design])


def bench_recognizers() -> dict[str, CardRecognizer]:
    """A recognizer per deck design, the deck learned from 52 "photo" references."""
    recognizers = {}
    for name, design in DESIGNS.items():
        refs = {c.code: render_reference(c, design, "photo", 1000 + i) for i, c in enumerate(DECK)}
        deck, templates = learn_deck(refs, model_cache=cache_dir())
        recognizers[name] = CardRecognizer(CalibrationProfile(deck=deck), templates)
    return recognizers


@dataclass
class Reliability:
    """Coded reads per confidence bin: (reads, right reads) for bins of width 0.1."""

    bins: dict[int, list[int]] = field(default_factory=dict)

    def add(self, frame: RenderedFrame, readings: list[CardReading]) -> None:
        """Count each coded reading of `frame` as right or wrong in its confidence bin."""
        by_code = {t.code: t for t in frame.cards}
        for r in readings:
            if r.code is None:
                continue
            truth = by_code.get(r.code)
            right = (
                truth is not None
                and truth.face_up
                and overlap(truth.corners, np.array(r.corners)) >= 0.3
            )
            counts = self.bins.setdefault(min(9, int(r.confidence * 10)), [0, 0])
            counts[0] += 1
            counts[1] += right

    def table(self) -> list[dict[str, float | int | str]]:
        """One row per non-empty bin: its range, reads and accuracy."""
        return [
            {
                "confidence": f"{k / 10:.1f}-{(k + 1) / 10:.1f}",
                "reads": n,
                "accuracy": round(ok / n, 4),
            }
            for k, (n, ok) in sorted(self.bins.items())
        ]


@dataclass
class DesignRun:
    """One design's outcome in one envelope: its score, or why it could not be calibrated."""

    name: str
    score: Score
    failure: str | None = None


@dataclass
class BenchReader:
    """The index reader and learned tuning the bench reads with (`--reader`, `--abstain`)."""

    reader: str = "learned"
    tuning: ReaderTuning = LEARNED_TUNING


READER = BenchReader()


@functools.cache
def design_deck(
    design: Design, reader_seeds: tuple[int, ...] = SEEDS
) -> tuple[DeckCalibration, DeckTemplates] | str:
    """`design`'s deck, learned as `studio calibrate deck --images DIR` learns it from the
    design's 52 flat renders, or the calibration's refusal; once per design and reader seeds
    (`learn_deck`'s `reader_seeds`: `SEEDS` as every table, one seed alone for
    `bench/reader_seeds.py`).
    """
    with tempfile.TemporaryDirectory(prefix="bench-deck-") as tmp:
        write_reference_deck(Path(tmp), design, "scan")
        try:
            return calibrate_deck(Path(tmp), model_cache=cache_dir(), reader_seeds=reader_seeds)
        except DeckCalibrationError as exc:
            return str(exc)


def calibrated_designs(
    seeds: Sequence[int],
) -> Iterator[tuple[int, Design, DeckCalibration, DeckTemplates]]:
    """Each design of `seeds` (its seed, the design, its learned deck), for the benches that
    explain misses; a design whose calibration refused is printed and left out."""
    for seed in seeds:
        design = deckgen.design(seed)
        learned = design_deck(design)
        if isinstance(learned, str):
            print(f"  {design.name}: calibration failed: {learned}")
            continue
        yield seed, design, *learned


@functools.cache
def calibrate_design(design: Design) -> tuple[CardRecognizer | None, str | None]:
    """A recognizer for `design` (its deck from `design_deck`), or None and the calibration's
    refusal; once per design.
    """
    learned = design_deck(design)
    if isinstance(learned, str):
        return None, learned
    deck, templates = learned
    recognizer = CardRecognizer(
        CalibrationProfile(deck=deck), templates, reader=READER.reader, tuning=READER.tuning
    )
    return recognizer, None


def run_split(
    seeds: tuple[int, ...],
    style: SceneStyle,
    frames: int,
    seed: int,
    *,
    envelope: str = "",
    dump: EventDump | None = None,
    causes_wanted: bool = True,
    frame_cache: Path | None = None,
    aspect: float | None = None,
    inks: str = deckgen.TWO_COLOUR,
) -> tuple[list[DesignRun], Score, Reliability, list[float], MissCauses]:
    """Calibrate each design of `seeds` and read `frames` scenes of `style` spread over them;
    also find why each missed card was missed (`miss_causes`, unless `causes_wanted` is
    False), and hand each frame to `dump` (wrong reads and phantoms written out). `aspect`
    prints every design on cards of that height/width (None: the design's own, poker size), and
    `inks` in that suit ink set of `deckgen.INKS`."""
    runs: list[DesignRun] = []
    total = Score()
    reliability = Reliability()
    causes = MissCauses()
    timing: list[float] = []
    per_design = max(1, frames // len(seeds))
    for design_seed in seeds:
        d = deckgen.design(design_seed)
        if aspect is not None:
            d = deckgen.with_aspect(d, aspect)
        d = deckgen.with_inks(d, inks)
        rng = np.random.default_rng([seed, design_seed])
        score = Score()
        began = time.perf_counter()
        recognizer, failure = calibrate_design(d)
        calibration = time.perf_counter() - began
        learned = design_deck(d)
        diagnosis = (
            None
            if isinstance(learned, str) or not causes_wanted
            else MissDiagnosis(*learned, READER.tuning)
        )
        for index in range(per_design):
            scene = random_scene(rng, style, d)
            frame = cached_render(scene, frame_cache, frame_key(d.name, envelope, seed, index))
            if recognizer is None:
                readings: list[CardReading] = []
            else:
                start = time.perf_counter()
                readings = recognizer.recognize(frame.image)
                timing.append(time.perf_counter() - start)
            tags = tags_for(scene, frame, style.height)
            score.add(frame, readings, tags)
            total.add(frame, readings, tags)
            reliability.add(frame, readings)
            if diagnosis is not None:
                diagnosis.frame(scene, frame, readings, tags, causes)
            if dump is not None:
                origin = FrameOrigin(d.name, design_seed, envelope, seed, index)
                dump.frame(frame, readings, origin)
        runs.append(DesignRun(d.name, score, failure))
        print(
            f"  {d.name:9s} {d.font.path.stem:24s} {d.size:7s} {d.placement:6s} "
            + (f"CALIBRATION FAILED: {failure}" if failure else
               f"recall {score.recall:6.1%} wrong {score.wrong} phantoms {score.phantom}")
            + (f"  calibrated in {calibration:.0f} s" if calibration > 0.5 else ""),
            flush=True,
        )  # fmt: skip
    return runs, total, reliability, timing, causes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--split", choices=("test", "tuning", "both"), default="both")
    parser.add_argument("--envelope", choices=("studio", "harsh", "both"), default="both")
    parser.add_argument("--designs", type=int, default=40, help="first N designs of each split")
    parser.add_argument("--frames", type=int, default=400, help="frames per split and envelope")
    parser.add_argument("--seed", type=int, default=20261129, help="scene seed (tests use others)")
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument("--reader", choices=sorted(INDEX_READERS), default=READER.reader)
    parser.add_argument("--dump", type=Path, help="write each wrong read and phantom here")
    parser.add_argument("--frame-cache", type=Path, help="keep drawn frames here, read them back")
    parser.add_argument(
        "--aspect", type=float, help="card height/width of every design (1.544: bridge size)"
    )
    parser.add_argument(
        "--inks",
        choices=tuple(deckgen.INKS),
        default=deckgen.TWO_COLOUR,
        help="suit ink set of every design (two-colour: the design's own red and black)",
    )
    parser.add_argument(
        "--no-miss-causes", action="store_true", help="skip finding why missed cards were missed"
    )
    parser.add_argument(
        "--abstain",
        type=float,
        nargs=2,
        metavar=("FIRM", "GUESSED"),
        help="the learned reader's abstain thresholds, to choose them on the tuning split",
    )
    args = parser.parse_args()
    READER.reader = args.reader
    if args.abstain:
        READER.tuning = replace(
            LEARNED_TUNING, abstain=args.abstain[0], abstain_guessed=args.abstain[1]
        )
    cv2.setNumThreads(1)
    splits = ("tuning", "test") if args.split == "both" else (args.split,)
    envelopes = ("studio", "harsh") if args.envelope == "both" else (args.envelope,)
    out: dict[str, dict[str, object]] = {}
    for split in splits:
        seeds = SPLITS[split][: args.designs]
        for env in envelopes:
            label = f"{split}/{env}" + ("  <- the figure that counts" if split == "test" else "")
            print(f"{label}: {len(seeds)} designs, {args.frames} frames", flush=True)
            dump = EventDump(None if args.dump is None else args.dump / f"{split}-{env}")
            runs, score, reliability, timing, causes = run_split(
                seeds, ENVELOPES[env], args.frames, args.seed, envelope=env, dump=dump,
                causes_wanted=not args.no_miss_causes, frame_cache=args.frame_cache,
                aspect=args.aspect, inks=args.inks,
            )  # fmt: skip
            events = dump.summary()
            fps = round(len(timing) / sum(timing), 1) if timing else None
            failures = {r.name: r.failure for r in runs if r.failure}
            print(
                f"{split}/{env}: readable {score.readable}  recall {score.recall:.2%}  "
                f"wrong reads {score.wrong}  phantoms {score.phantom}  "
                f"faces called down {score.face_errors}  unknown rate {score.unknown_rate:.2%}  "
                f"fps(1080p, 1 core) {fps}  "
                f"calibration failures {len(failures)}/{len(runs)}  reader {READER.reader}"
            )
            for line in score.wrongs[:10]:
                print(f"    wrong: {line}")
            print(
                "    wrong reads and phantoms by kind: "
                + "  ".join(f"{k} {n}" for k, n in events["kinds"].items())
                + "  by outline: "
                + "  ".join(f"{k} {n}" for k, n in events["sources"].items())
            )
            for tag, (n, hit) in sorted(score.by_tag.items()):
                print(f"    {tag:8s} {n:5d} cards  recall {hit / n:.2%}")
            print(
                "    misses by cause: "
                + "  ".join(f"{c} {n}" for c, n in causes.table().items() if n)
            )
            for tag, counts in sorted(causes.by_tag.items()):
                if tag != "all":
                    print(
                        f"      {tag:8s} "
                        + "  ".join(f"{c} {counts[c]}" for c in CAUSES if counts[c])
                    )
            print("    confidence  reads  accuracy")
            for row in reliability.table():
                print(f"    {row['confidence']}  {row['reads']:6d}  {row['accuracy']:.2%}")
            out[f"{split}/{env}"] = {
                "counts": split == "test",
                "designs": len(runs),
                "frames": args.frames,
                "readable_cards": score.readable,
                "recall": round(score.recall, 4),
                "wrong_reads": score.wrong,
                "phantom_cards": score.phantom,
                "faces_called_down": score.face_errors,
                "unknown_rate": round(score.unknown_rate, 4),
                "fps_1080p": fps,
                "calibration_failures": failures,
                "recall_by_tag": {
                    tag: round(hit / n, 4) for tag, (n, hit) in sorted(score.by_tag.items()) if n
                },
                "per_design": {
                    r.name: {"recall": round(r.score.recall, 4), "wrong_reads": r.score.wrong}
                    for r in runs
                },
                "reliability": reliability.table(),
                "wrongs": score.wrongs[:20],
                "miss_causes": causes.table(),
                "miss_causes_by_tag": {
                    tag: {c: counts[c] for c in CAUSES if counts[c]}
                    for tag, counts in sorted(causes.by_tag.items())
                },
                "unsure_miss_confidence": sorted(round(c, 4) for c in causes.unsure),
                "error_kinds": events["kinds"],
                "error_sources": events["sources"],
                "cards_read": score.read,
            }
    if args.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
