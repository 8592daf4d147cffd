"""How fast the index reader's network trains per window, with its batch split or whole.

`calibration.corner_net.train` differentiates each batch of 128 windows in `MICRO_BATCHES`
equal parts (the same gradient: the loss is a mean). This times an epoch of the real network
on random windows with the batch in 1, 2 and 4 parts, in this one run, and prints each beside
the whole batch: the baseline the split is kept against. An epoch's time is taken as the
difference between a long and a short training (so XLA's compile of the step, paid once per
training, is left out), best of `--repeats`.

    python bench/training_step.py [--windows N] [--repeats R] [--json]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from calibration import corner_net
from drivers.camera.index_model import CHANNELS, INPUT_SIZE

SHORT, LONG = 1, 4
"""Epochs of the two trainings whose difference is three epochs' time."""


def train_seconds(x: np.ndarray, parts: int, epochs: int) -> float:
    """Wall seconds of one `corner_net.train` of `epochs` epochs with the batch in `parts`."""
    rank_y = np.arange(len(x)) % 14
    suit_y = np.arange(len(x)) % 5
    start = time.perf_counter()
    corner_net.train(
        x, rank_y, suit_y, 14, 5, seed=0, recipe=corner_net.Recipe(epochs=epochs), parts=parts
    )
    return time.perf_counter() - start


def epoch_ms_per_window(x: np.ndarray, parts: int, repeats: int) -> float:
    """Milliseconds of training per window per epoch with the batch in `parts` (best run)."""
    best = min(
        train_seconds(x, parts, LONG) - train_seconds(x, parts, SHORT) for _ in range(repeats)
    )
    return 1000 * best / (LONG - SHORT) / len(x)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--windows", type=int, default=1024, help="training windows")
    parser.add_argument("--repeats", type=int, default=2, help="timings per setting (best kept)")
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    args = parser.parse_args()
    shipped = corner_net.MICRO_BATCHES
    w, h = INPUT_SIZE
    x = np.random.default_rng(0).uniform(0, 1, (args.windows, CHANNELS, h, w)).astype(np.float32)
    train_seconds(x, 1, SHORT)  # warm: JAX's start-up is not the first setting's cost
    figures = {parts: epoch_ms_per_window(x, parts, args.repeats) for parts in (1, 2, 4)}
    whole = figures[1]
    for parts, ms in figures.items():
        mark = "  <- the setting in use" if parts == shipped else ""
        print(
            f"batch of 128 in {parts} part(s): {ms:.3f} ms per window per epoch "
            f"({whole / ms:.2f}x the whole batch's speed){mark}"
        )
    if args.json:
        print(json.dumps({"in_use": shipped, "ms_per_window": figures}))


if __name__ == "__main__":
    main()
