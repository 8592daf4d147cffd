"""How well universal reader files read the index windows of tuning designs, and at what price.

    python bench/reader_starts.py MODEL.onnx [MODEL.onnx ...] [--designs N] [--seed S]
        [--inks two-colour four-colour ...]

Each model is a universal index reader written by `python -m drivers.camera.index_reader_training`
(any `--out`, any `--widths`/`--hidden`). Each of the first `--designs` tuning designs
(`splits.TUNING_SEEDS`: never a test design, and never one a build trains on, which draw
`TRAINING_SEEDS`) is calibrated from its scans and its windows are drawn as the builds draw
theirs (`index_reader_training.design_windows`: the start's camera and outline error, windows
of no index as "none"), once, and read by every model. Per design and model it prints the share
of index windows read right (rank and suit), "sure-right", the share read right with both heads
at least `ReaderTuning.abstain_guessed` sure (what a guessed outline's corner needs to read),
and "sure-wrong", the count of windows (index or not) read wrong that surely: the reads a table
would make wrong. Then each model's totals, its size (`corner_net.NetShape`, weights) and its
onnxruntime time per window on one thread in batches of 64 (best of `--repeats`), so a larger
network shows its price beside its reads. `--inks` prints the designs in other ink sets of
`deckgen.INKS` too (a four-colour deck's blue diamonds).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from calibration import corner_net
from calibration.universal_reader import onnx_weights
from drivers.camera.index_model import NONE, IndexModel
from drivers.camera.index_reader_training import RANKS, SUITS, design_windows
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.splits import TUNING_SEEDS
from drivers.camera.tuning import ReaderTuning

BATCH = 64
"""Windows per onnxruntime call when timing: about a frame's corners."""


def seconds_per_window(model: IndexModel, x: np.ndarray, repeats: int) -> float:
    """onnxruntime's time per window (one thread, batches of `BATCH`), best of `repeats`."""
    batches = [x[i : i + BATCH] for i in range(0, len(x) - BATCH + 1, BATCH)][:8] or [x]
    model.probabilities(batches[0])  # warm
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for b in batches:
            model.probabilities(b)
        best = min(best, (time.perf_counter() - start) / sum(len(b) for b in batches))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("models", type=Path, nargs="+", help="universal reader ONNX files")
    parser.add_argument("--designs", type=int, default=6, help="first N tuning designs")
    parser.add_argument("--seed", type=int, default=5, help="seed of the drawn windows")
    parser.add_argument("--inks", nargs="+", default=[deckgen.TWO_COLOUR], choices=deckgen.INKS)
    parser.add_argument("--repeats", type=int, default=5, help="timings per model (best kept)")
    args = parser.parse_args()
    sure_at = ReaderTuning().abstain_guessed
    models = {p.name: IndexModel(RANKS, SUITS, p.read_bytes()) for p in args.models}
    weights = {name: onnx_weights(model.onnx) for name, model in models.items()}
    totals = {name: np.zeros(4) for name in models}  # index windows, right, sure-right, sure-wrong
    seen = []
    for ink_set in args.inks:
        for seed in TUNING_SEEDS[: args.designs]:
            got = design_windows(seed, np.random.default_rng(args.seed), ink_set)
            if got is None:
                print(f"gen-{seed} {ink_set}: not calibrated, skipped", flush=True)
                continue
            x, ry, sy = got
            seen.append(x)
            index = ry != RANKS.index(NONE)
            line = f"gen-{seed} {ink_set:11s}"
            for name, model in models.items():
                pr, ps = model.probabilities(x)
                right = (pr.argmax(1) == ry) & (ps.argmax(1) == sy)
                sure = np.minimum(pr.max(1), ps.max(1)) >= sure_at
                wrong = int((sure & ~right).sum())
                totals[name] += (
                    index.sum(),
                    right[index].sum(),
                    (sure & right)[index].sum(),
                    wrong,
                )
                line += (
                    f" | right {right[index].mean():.3f} "
                    f"sure-right {(sure & right)[index].mean():.3f} sure-wrong {wrong}"
                )
            print(line, flush=True)
    if not seen:
        return
    x = np.concatenate(seen)
    for name, model in models.items():
        n, good, sure_good, bad = totals[name]
        print(
            f"{name}: {corner_net.NetShape.of(weights[name])}, "
            f"{sum(v.size for v in weights[name].values()):,} weights | {int(n)} index windows: "
            f"right {good / n:.2%}, sure-right {sure_good / n:.2%}, sure-wrong {int(bad)} | "
            f"{1e6 * seconds_per_window(model, x, args.repeats):.1f} us a window "
            f"(one thread, batches of {BATCH})"
        )


if __name__ == "__main__":
    main()
