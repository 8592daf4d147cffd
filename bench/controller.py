"""Controller throughput: inputs per second through `TableController.handle`, both games.

Records the inputs of N clean rounds (with a camera, so every card also has a sighting), then
times a fresh controller handling exactly those inputs. Prints one line per configuration.

    .venv/bin/python bench/controller.py [--rounds N]
"""

from __future__ import annotations

import argparse
import random
import time
from datetime import UTC, datetime, timedelta

from studio.cards import DECK
from studio.controller import TableController, TableSettings
from studio.games.model import Face
from studio.messages import CardDrawn, CardSeen, Command, DeviceStatus, Input, Tick

CONFIGS = [
    ("caribbean-stud", "live", "hidden"),
    ("caribbean-stud", "live", "late"),
    ("ultimate-holdem", "live", None),
]


def record(settings: TableSettings, rounds: int, seed: int) -> list[Input]:
    """Play `rounds` clean rounds and return every input fed, in order."""
    ctl = TableController(settings)
    rng = random.Random(seed)
    faces = {d.position: d.face for d in settings.rules().deals}
    t = datetime(2026, 11, 29, 14, 0, 0, tzinfo=UTC)
    inputs: list[Input] = []

    def feed(inp: Input) -> None:
        inputs.append(inp)
        ctl.handle(inp)

    for _ in range(rounds):
        deck = list(DECK)
        rng.shuffle(deck)
        t += timedelta(seconds=1)
        feed(Command(ts=t, actor="d1", role="dealer", command="start_round"))
        beat = 0
        while (view := ctl.view()).phase != "idle":
            if view.paused:
                raise SystemExit(f"the bench round paused: {view.incidents}")
            expecting = view.expecting
            t += timedelta(seconds=0.5)
            if expecting is None:
                # Devices send a heartbeat every second; between them the clock ticks.
                beat += 1
                device = ("shoe", "camera")[beat % 2]
                feed(DeviceStatus(ts=t, device=device, status="ok") if beat % 4 < 2 else Tick(ts=t))
                continue
            card = deck.pop().code
            feed(CardDrawn(ts=t, card=card))
            up = faces[expecting] is Face.UP
            t += timedelta(seconds=0.1)
            feed(
                CardSeen(
                    ts=t, zone=expecting, face="up" if up else "down", card=card if up else None
                )
            )
    return inputs


def main() -> None:
    """Print inputs per second and events per second for each configuration."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args()
    for game, variant, procedure in CONFIGS:
        settings = TableSettings(
            game=game, variant=variant, procedure=procedure, camera=True, device_silence_seconds=30
        )
        inputs = record(settings, args.rounds, seed=1)
        ctl = TableController(settings)
        start = time.perf_counter()
        events = sum(len(ctl.handle(inp)) for inp in inputs)
        elapsed = time.perf_counter() - start
        name = f"{game}/{variant}" + (f"/{procedure}" if procedure else "")
        print(
            f"{name:32s} {len(inputs):7d} inputs {events:7d} events in {elapsed:6.3f} s: "
            f"{len(inputs) / elapsed:9.0f} inputs/s, {events / elapsed:9.0f} events/s, "
            f"{args.rounds / elapsed:7.0f} rounds/s"
        )


if __name__ == "__main__":
    main()
