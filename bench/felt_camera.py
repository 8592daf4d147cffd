"""The simulated table's camera: whether every card of a round reads, and how soon it is confirmed.

Two modes.

**Built-in designs** (`--design jumbo|classic`, the default mode):

Builds the synthetic felt of each game (`drivers.camera.synthetic.felt`) and its profile as
`studio run` does, then deals shuffled rounds onto it card by card (each face as the game deals
it), reading the whole felt after every card and again after the reveal turns the face-down
cards. Every card on the felt must read as laid (face-up code, or a back): prints misses (a card
unread, or a back taken for an unreadable face: the table would wait and straighten it, then
pause with `camera_mismatch`), wrong reads (another code, or a face taken for a back: an
immediate mismatch), the deck-learning time and the median time to draw and to read one frame
on one core.

    python bench/felt_camera.py [--rounds 15] [--design jumbo] [--seed N] [--json]

**Generated designs, time to confirmation** (`--split test|tuning`): the first `--designs` designs
of the split (`drivers/camera/synthetic/splits.py`) are each calibrated from their own 52 flat
renders only, through `studio calibrate deck`'s code path (`calibrate_deck` on a directory of
reference images, its profile given the felt's table and zones), then `--rounds` rounds of each
game are dealt onto the felt (round r of a game uses design r mod N), filmed by a camera in the
`--envelope` (studio: 1920x1080, cards 140-400 px as the rows fit, defocus <= 0.8 px, motion <=
2 px, noise, JPEG >= 80, glare; `drivers/camera/synthetic/still_table.py`). Cards lie still: each
frame of them gets its own defocus, motion, noise and JPEG; the lighting and glare stay for the
round (`--glare-per-frame` redraws them every frame). After each card is laid, and after the
reveal turns the face-down cards, frames are read as `studio run` reads them, through
`StillRecognizer` (`--fresh`: every frame read afresh; `--whole`: a changed picture read whole,
never only in its changed part), fed to the table's own `ZoneStabilizer` and judged with the
controller's `sighting_verdict` until the card is confirmed (at most `--window` frames: after
that it counts as never confirmed).

The time to confirm a card is the sum of the periods of the frames it took, the first showing it
to the one that confirmed it; a frame's period is `1 / --fps` (the camera's rate, 30 by default:
a studio camera; `studio run`'s default is 10 fps, 3 x 0.1 = 0.3 s; at 5 fps, 0.6 s) or the
CPU time that frame's read took on one core, whichever is longer (the reader grabs the next
frame only when it has read the last). Assumed: the card lands just before a frame is grabbed
(landing mid-period adds up to one period), and the machine reads nothing else. Drawing frames
is not counted. Prints rounds, cards, the share confirmed within 0.5 s beside the target (100%),
p50/p99/max time to confirm, cards never confirmed, wrong confirmations (target 0), per design,
the CPU time of a frame's read (median, mean, p99) and how many frames took longer to read than
the camera's period (where the reader falls behind the camera); on stderr, every late card as
it happens and the figures so far every 10 rounds of each game, so a run stopped early
(the target's scale takes hours) still reports;
`--json` prints one JSON object last. Each card not confirmed within 0.5 s is printed with its
cause (`still_table.late_cause`: slow frames, a late first read, reads that came and went, a
wrong view, its code read at another zone, only unknown views, nothing seen) and its zone's view
frame by frame (a frame answered from an earlier read marked "="); `--dump DIR` writes the frames
read while the table waited for it. The default (3 designs, 3 rounds of each game) runs in a few
minutes; the target's 1,000 rounds: `--split test --designs 40 --rounds 500` (hours).

    python bench/felt_camera.py --split test|tuning [--designs 3] [--rounds 3] [--fps 30]
                                [--window 12] [--game G] [--envelope studio|harsh]
                                [--glare-per-frame] [--seed N] [--fresh] [--whole]
                                [--dump DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

import cv2
import numpy as np

from calibration.deck import calibrate_deck
from calibration.errors import DeckCalibrationError
from calibration.profile import CalibrationProfile, DeckCalibration, DeckTemplates
from drivers.camera.reading import CardReading
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.stability import FRAMES_REQUIRED
from drivers.camera.still import StillRecognizer
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.designs import DESIGNS, Design
from drivers.camera.synthetic.envelopes import ENVELOPES
from drivers.camera.synthetic.felt import Felt, FeltLayout, FeltSource, felt_profile
from drivers.camera.synthetic.reference import write_reference_deck
from drivers.camera.synthetic.splits import SPLITS
from drivers.camera.synthetic.still_table import (
    CardConfirmation,
    ConfirmationFigures,
    ConfirmationKind,
    FrameRead,
    LateCause,
    RoundWatch,
    StillCamera,
    late_cause,
    still_layout,
)
from studio.cards import DECK
from studio.config import cache_dir
from studio.games import get_rules
from studio.runtime.camera import position_rows

GAMES = ("caribbean-stud", "ultimate-holdem")
TARGET_SECONDS = 0.5
"""The table's target: every card confirmed within half a second of landing."""


class Tally:
    """Reads, misses, wrong reads and timings over every frame."""

    def __init__(self) -> None:
        self.reads = self.misses = self.wrong = 0
        self.draw: list[float] = []
        self.read: list[float] = []
        self.examples: list[str] = []

    def frame(self, game: str, felt: Felt, source: FeltSource, recognizer: CardRecognizer) -> None:
        """Draw the felt, read it, and score every card lying on it."""
        t0 = time.process_time()
        image = source.read().image
        t1 = time.process_time()
        seen = {r.zone: (r.code, r.face_down) for r in recognizer.recognize(image)}
        self.draw.append(t1 - t0)
        self.read.append(time.process_time() - t1)
        for zone, card in felt.view()[1].items():
            want = (card.card.code if card.face_up else None, not card.face_up)
            got = seen.get(zone)
            self.reads += 1
            if got == want:
                continue
            # What the table would hear: another code, or a back where a face lies, is a mismatch
            # at once; an unreadable card is never reported (the table waits, then pauses).
            if got is not None and (got[0] is not None or (got[1] and not want[1])):
                self.wrong += 1
            else:
                self.misses += 1
            if len(self.examples) < 10:
                self.examples.append(f"{game} {zone}: laid {want}, read {got}")


def run(rounds: int, design: str, seed: int) -> dict[str, object]:
    """Deal `rounds` rounds of each game onto the felt and score every read."""
    cv2.setNumThreads(1)
    tally = Tally()
    learn: list[float] = []
    for game in GAMES:
        rules = get_rules(game)
        layout = FeltLayout.build(position_rows(rules.positions), DESIGNS[design])
        started = time.process_time()
        profile, templates = felt_profile(layout, model_cache=cache_dir())
        learn.append(time.process_time() - started)
        recognizer = CardRecognizer(profile, templates)
        felt = Felt(seed)
        source = FeltSource(felt, layout)
        faces = {deal.position: deal.face.value == "up" for deal in rules.deals}
        rng = random.Random(seed)
        for _ in range(rounds):
            deck = list(DECK)
            rng.shuffle(deck)
            felt.clear()
            for position in rules.positions:
                felt.place(position, deck.pop(), faces[position])
                tally.frame(game, felt, source, recognizer)
            for position in rules.positions:
                felt.turn(position)
            tally.frame(game, felt, source, recognizer)
    return {
        "design": design,
        "rounds_per_game": rounds,
        "reads": tally.reads,
        "misses": tally.misses,
        "wrong": tally.wrong,
        "learn_cpu_s": round(float(np.mean(learn)), 2),
        "draw_ms": round(1000 * float(np.median(tally.draw)), 1),
        "read_ms": round(1000 * float(np.median(tally.read)), 1),
        "examples": tally.examples,
    }


def calibrated_deck(design: Design) -> tuple[DeckCalibration, DeckTemplates] | str:
    """The deck of `design` learned as `studio calibrate deck --images DIR` learns it from the
    design's 52 flat renders, or the calibration's refusal.
    """
    with tempfile.TemporaryDirectory(prefix="bench-deck-") as tmp:
        write_reference_deck(Path(tmp), design, "scan")
        try:
            return calibrate_deck(Path(tmp), model_cache=cache_dir())
        except DeckCalibrationError as exc:
            return str(exc)


@dataclass
class DesignTally:
    """One design's cards: how soon each was confirmed, and what the table heard wrongly."""

    name: str
    failure: str | None = None
    cards: list[CardConfirmation] = field(default_factory=list)
    wrongs: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class TableSettings:
    """What a timed run deals and how the camera films it (see the module docstring)."""

    split: str
    designs: int
    rounds: int
    games: tuple[str, ...] = GAMES
    fps: float = 30.0
    window: int = 12
    envelope: str = "studio"
    seed: int = 7
    glare_per_frame: bool = False
    fresh: bool = False
    whole: bool = False
    dump: Path | None = None


Answer = Literal["whole", "part", "reused"]
"""How `StillRecognizer` answered a frame: read whole, read in its changed part only, or from an
earlier read of the same picture."""


@dataclass(frozen=True)
class Shot:
    """One frame read for a card: the picture (kept only for `--dump`), and how
    `StillRecognizer` answered it."""

    image: np.ndarray | None
    answer: Answer
    cost: float
    """The read's CPU time on one core, seconds."""


@dataclass(frozen=True)
class Waited:
    """A card's confirmation and the frames read while the table waited for it."""

    card: CardConfirmation
    shots: tuple[Shot, ...]


@dataclass
class Table:
    """One game on one design's felt: the felt, its camera, and the frames' reader."""

    game: str
    felt: Felt
    read: FrameRead
    camera: StillCamera | None
    shots: list[Shot] = field(default_factory=list)
    """The frames `read` took since the table last began waiting for a card."""
    reveal_costs: list[float] = field(default_factory=list)
    """The CPU time of every frame read while the table waited for revealed cards."""


def deal_round(game: str, table: Table, watch: RoundWatch, rng: random.Random) -> list[Waited]:
    """Deal one shuffled round of `game` card by card, then reveal; each card's confirmation."""
    rules = get_rules(game)
    deck = list(DECK)
    rng.shuffle(deck)
    felt = table.felt
    felt.clear()
    out: list[Waited] = []

    def confirm(zones: list[str], kind: ConfirmationKind) -> None:
        table.shots.clear()
        cards = watch.confirm(zones, kind, table.read)
        out.extend(Waited(c, tuple(table.shots)) for c in cards)
        if kind == "revealed":
            table.reveal_costs.extend(s.cost for s in table.shots)

    down = []
    for deal in rules.deals:
        card, up = deck.pop(), deal.face.value == "up"
        felt.place(deal.position, card, up)
        watch.lay(deal.position, card, up)
        confirm([deal.position], "laid")
        if not up:
            down.append(deal.position)
    for position in down:
        felt.turn(position)
        watch.reveal(position)
    if down:
        confirm(down, "revealed")
    return out


def _table(
    settings: TableSettings, seed: int, game: str, costs: list[float], answers: list[Answer]
) -> tuple[Table, str | None]:
    """The felt of `game` for `design`, filmed in the envelope, read by the design's own deck
    (through `StillRecognizer` unless `settings.fresh`); each read's CPU time is appended to
    `costs`, and how `StillRecognizer` answered it to `answers`."""
    design = deckgen.design(seed)
    rng = np.random.default_rng([settings.seed, seed, GAMES.index(game)])
    style = ENVELOPES[settings.envelope]
    rules = get_rules(game)
    layout = still_layout(position_rows(rules.positions), design, style, rng)
    felt = Felt(f"{settings.seed}-{seed}-{game}")
    learned = calibrated_deck(design)
    if isinstance(learned, str):
        # Nothing is read: every card of this design counts as never confirmed.
        return Table(game, felt, lambda: ([], 0.0), None), learned
    deck, templates = learned
    profile = CalibrationProfile(table=layout.calibration(), zones=list(layout.zones), deck=deck)
    recognizer = CardRecognizer(profile, templates)
    # The table's reader: `studio run`'s CameraReader reads through StillRecognizer.
    still = None if settings.fresh else StillRecognizer(recognizer, parts=not settings.whole)
    camera = StillCamera(layout, style, rng, glare_per_frame=settings.glare_per_frame)
    shots: list[Shot] = []

    def read() -> tuple[list[CardReading], float]:
        image = camera.frame(felt.view()[1])
        started = time.thread_time()
        before = (still.reuses, still.part_reads) if still is not None else (0, 0)
        readings = (still or recognizer).recognize(image)
        cost = time.thread_time() - started
        costs.append(cost)
        kept = image if settings.dump is not None else None
        after = (still.reuses, still.part_reads) if still is not None else (0, 0)
        answer: Answer = (
            "reused" if after[0] > before[0] else "part" if after[1] > before[1] else "whole"
        )
        shots.append(Shot(kept, answer, cost))
        answers.append(answer)
        return readings, cost

    return Table(game, felt, read, camera, shots), None


def run_timed(settings: TableSettings) -> dict[str, object]:
    """Deal `settings.rounds` rounds of each game over the split's first designs; the figures."""
    cv2.setNumThreads(1)
    # Round r of each game is dealt on design r mod N: fewer rounds than designs use fewer.
    seeds = SPLITS[settings.split][: min(settings.designs, settings.rounds)]
    names = {s: deckgen.design(s).name for s in seeds}
    tallies = {name: DesignTally(name) for name in names.values()}
    tables: dict[tuple[str, str], Table] = {}
    costs: list[float] = []
    late: list[str] = []
    causes: dict[LateCause, int] = {}
    answers: list[Answer] = []
    rng = random.Random(settings.seed)
    for r in range(settings.rounds):
        seed = seeds[r % len(seeds)]
        tally = tallies[names[seed]]
        for game in settings.games:
            key = (tally.name, game)
            if key not in tables:
                started = time.monotonic()
                tables[key], failure = _table(settings, seed, game, costs, answers)
                tally.failure = tally.failure or failure
                # Progress on stderr: a design's first calibration may train for minutes.
                print(
                    f"  {tally.name} {game}: ready in {time.monotonic() - started:.0f} s"
                    + (f" (calibration failed: {failure})" if failure else ""),
                    file=sys.stderr,
                    flush=True,
                )
            table = tables[key]
            if table.camera is not None:
                table.camera.relight()
            watch = RoundWatch(get_rules(game).positions, fps=settings.fps, window=settings.window)
            for waited in deal_round(game, table, watch, rng):
                tally.cards.append(waited.card)
                cause = late_cause(waited.card, TARGET_SECONDS)
                if cause is not None:
                    late.append(_late_line(f"{tally.name} {game} round {r}", waited, cause))
                    causes[cause] = causes.get(cause, 0) + 1
                    print(f"  late: {late[-1]}", file=sys.stderr, flush=True)
                    if settings.dump is not None:
                        _dump(settings.dump, f"{tally.name}-{game}-r{r}", waited)
            tally.wrongs += [f"{tally.name} {game} round {r}: {w}" for w in watch.wrongs]
        if (r + 1) % PROGRESS_EVERY == 0 and r + 1 < settings.rounds:
            _progress(r + 1, settings.rounds, tallies.values(), costs)
    everything = [c for t in tallies.values() for c in t.cards]
    reveal = [cost for t in tables.values() for cost in t.reveal_costs]
    wrongs = [w for t in tallies.values() for w in t.wrongs]
    return {
        **{k: v for k, v in asdict(settings).items() if k != "dump"},
        "designs": len(seeds),
        "rounds_total": settings.rounds * len(settings.games),
        "frames_required": FRAMES_REQUIRED,
        "read_ms_p50": round(1000 * float(np.median(costs)), 1) if costs else None,
        "read_ms_mean": round(1000 * float(np.mean(costs)), 1) if costs else None,
        "read_ms_p99": round(1000 * float(np.percentile(costs, 99)), 1) if costs else None,
        # Frames whose read outlasted the camera's period: there the reader falls behind.
        "frames_over_period": sum(c > 1 / settings.fps for c in costs),
        "frames_read": len(costs),
        "reveal_read_ms_p50": round(1000 * float(np.median(reveal)), 1) if reveal else None,
        "frames_reused": answers.count("reused"),
        "frames_part": answers.count("part"),
        "reader": "fresh" if settings.fresh else "whole" if settings.whole else "still",
        "target": {"within_seconds": TARGET_SECONDS, "within_target": 1.0, "wrong": 0},
        **asdict(ConfirmationFigures.of(everything, len(wrongs), TARGET_SECONDS)),
        "calibration_failures": {n: t.failure for n, t in tallies.items() if t.failure},
        "late_causes": causes,
        "per_design": {
            n: asdict(ConfirmationFigures.of(t.cards, len(t.wrongs), TARGET_SECONDS))
            for n, t in tallies.items()
        },
        "late": late[:40],
        "wrongs": wrongs[:20],
    }


PROGRESS_EVERY = 10
"""Rounds of each game between two progress lines: a long run stopped early keeps its tally."""


def _progress(done: int, rounds: int, tallies: Iterable[DesignTally], costs: list[float]) -> None:
    """The figures so far on stderr, so a run cut short (hours at the target's scale) reports."""
    cards = [c for t in tallies for c in t.cards]
    got = ConfirmationFigures.of(cards, 0, TARGET_SECONDS)
    share = "-" if got.within_target is None else f"{got.within_target:.2%}"
    mean = f"{1000 * float(np.mean(costs)):.1f} ms" if costs else "-"
    print(
        f"  after {done} of {rounds} rounds of each game: {len(cards)} cards, {share} within"
        f" {TARGET_SECONDS} s, {got.never_confirmed} never; a frame's read {mean} (mean)",
        file=sys.stderr,
        flush=True,
    )


def _late_line(where: str, waited: Waited, cause: LateCause) -> str:
    """One card not confirmed in time: where, why, and its zone's view frame by frame (a view
    answered from an earlier read of the same picture is marked with a trailing "=", one read
    in its changed part only with "~")."""
    c = waited.card
    when = f"{c.frames} frames, {c.seconds:.3f} s" if c.seconds is not None else "never"
    # A card confirmed early in a reveal stops its views while the others are still waited on.
    marks = ({"reused": "=", "part": "~", "whole": ""}[s.answer] for s in waited.shots)
    views = " ".join(v + m for v, m in zip(c.views, marks, strict=False))
    return f"{where} {c.zone} {c.code} {c.kind} ({c.expected}): {when}; {cause}: {views}"


def _dump(folder: Path, where: str, waited: Waited) -> None:
    """Write the frames read while the table waited for a late card, named by card and frame."""
    folder.mkdir(parents=True, exist_ok=True)
    c = waited.card
    for n, shot in enumerate(waited.shots, start=1):
        if shot.image is not None:
            cv2.imwrite(
                str(folder / f"{where}-{c.zone}-{c.code}-{c.kind}-f{n:02d}.png"), shot.image
            )


def print_timed(result: dict[str, object]) -> None:
    """The figures of `run_timed` in words, beside the target."""
    label = " (held out: the figure that counts)" if result["split"] == "test" else ""
    print(
        f"{result['split']} split{label}, {result['envelope']} envelope: {result['designs']}"
        f" designs, {result['rounds_total']} rounds, {result['cards']} cards"
        f" ({result['laid']} laid, {result['revealed']} revealed), {result['frames_read']} frames"
    )
    share = result["within_target"]
    print(
        f"confirmed within {TARGET_SECONDS} s: "
        + (f"{share:.2%}" if isinstance(share, float) else "-")
        + f"  (target 100%)   wrong confirmations: {result['wrong_confirmations']}  (target 0)"
    )
    print(
        f"time to confirm p50 {result['p50_s']} s, p99 {result['p99_s']} s, max"
        f" {result['max_s']} s (None: never); never confirmed within {result['window']} frames:"
        f" {result['never_confirmed']}"
    )
    print(
        f"camera {result['fps']:g} fps, {result['frames_required']} agreeing frames; a frame read"
        f" in {result['read_ms_p50']} ms (median, one core; mean {result['read_ms_mean']} ms,"
        f" p99 {result['read_ms_p99']} ms; {result['reveal_read_ms_p50']} ms while a reveal is"
        f" waited on); {result['frames_over_period']} frames read slower than the camera's"
        f" period; reader {result['reader']}:"
        f" {result['frames_reused']} of {result['frames_read']} frames answered from earlier reads,"
        f" {result['frames_part']} read in their changed part only"
    )
    print(f"not confirmed within {TARGET_SECONDS} s, by cause: {result['late_causes']}")
    per_design = result["per_design"]
    failures = result["calibration_failures"]
    assert isinstance(per_design, dict) and isinstance(failures, dict)
    for name, row in per_design.items():
        failed = f"  CALIBRATION FAILED: {failures[name]}" if name in failures else ""
        print(
            f"  {name:9s} {row['cards']:4d} cards  within {row['within_target']}"
            f"  never {row['never_confirmed']}  wrong {row['wrong_confirmations']}{failed}"
        )
    for line in [*result["late"], *result["wrongs"]]:  # type: ignore[misc]
        print(f"  {line}")


def main() -> None:
    """Parse arguments, run, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, help="rounds of each game (15; --split: 3)")
    parser.add_argument("--design", choices=sorted(DESIGNS), default="jumbo")
    parser.add_argument("--split", choices=sorted(SPLITS), help="generated designs, timed")
    parser.add_argument("--designs", type=int, default=3, help="--split: its first N designs")
    parser.add_argument("--game", choices=GAMES, help="--split: this game only (default: both)")
    parser.add_argument("--fps", type=float, default=30.0, help="--split: the camera's rate")
    parser.add_argument("--window", type=int, default=12, help="--split: frames to wait a card")
    parser.add_argument("--envelope", choices=sorted(ENVELOPES), default="studio")
    parser.add_argument("--glare-per-frame", action="store_true", help="--split: relight always")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--fresh", action="store_true", help="--split: read every frame afresh (no StillRecognizer)"
    )
    parser.add_argument(
        "--whole",
        action="store_true",
        help="--split: read a changed picture whole, never only its changed part",
    )
    parser.add_argument("--dump", type=Path, help="--split: write the late cards' frames here")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.split is not None:
        if args.designs < 1 or args.fps <= 0 or args.window < 1 or (args.rounds or 1) < 1:
            parser.error("--designs, --rounds and --window must be at least 1, --fps positive")
        settings = TableSettings(
            args.split, min(args.designs, len(SPLITS[args.split])),
            3 if args.rounds is None else args.rounds,
            GAMES if args.game is None else (args.game,), args.fps, args.window, args.envelope,
            args.seed, args.glare_per_frame, args.fresh, args.whole, args.dump,
        )  # fmt: skip
        timed = run_timed(settings)
        print_timed(timed)
        if args.json:
            print(json.dumps(timed))
        return
    rounds = 15 if args.rounds is None else args.rounds
    result = run(rounds, args.design, args.seed)
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"{result['design']}: {result['reads']} card reads over {rounds} rounds of each game:"
        f" {result['misses']} missed, {result['wrong']} wrong"
    )
    print(
        f"deck learned in {result['learn_cpu_s']} s of CPU; a frame drawn in"
        f" {result['draw_ms']} ms, read in {result['read_ms']} ms (one core, medians)"
    )
    for line in result["examples"]:  # type: ignore[attr-defined]
        print(f"  {line}")


if __name__ == "__main__":
    main()
