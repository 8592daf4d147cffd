"""The simulated table's camera: whether every card of a demo round reads, and at what cost.

Builds the synthetic felt of each game (`drivers.camera.synthetic.felt`) and its profile as
`studio run` does, then deals shuffled rounds onto it card by card (each face as the game deals
it), reading the whole felt after every card and again after the reveal turns the face-down
cards. Every card on the felt must read as laid (face-up code, or a back): prints misses (a card
unread, or a back taken for an unreadable face: the table would wait and straighten it, then
pause with `camera_mismatch`), wrong reads (another code, or a face taken for a back: an
immediate mismatch), the deck-learning time and the median time to draw and to read one frame
on one core.

    python bench/felt_camera.py [--rounds 15] [--design jumbo] [--seed N] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import time

import cv2
import numpy as np

from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic.designs import DESIGNS
from drivers.camera.synthetic.felt import Felt, FeltLayout, FeltSource, felt_profile
from studio.cards import DECK
from studio.config import cache_dir
from studio.games import get_rules
from studio.runtime.camera import position_rows

GAMES = ("caribbean-stud", "ultimate-holdem")


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


def main() -> None:
    """Parse arguments, run, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--design", choices=sorted(DESIGNS), default="jumbo")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(args.rounds, args.design, args.seed)
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"{result['design']}: {result['reads']} card reads over {args.rounds} rounds of each game:"
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
