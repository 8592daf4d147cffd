"""Rebuilds the shipped universal index reader (`calibration.universal_reader`) from many designs.

    python -m drivers.camera.index_reader_training [--designs N] [--epochs N] [--out FILE]

Each design of `synthetic.splits.TRAINING_SEEDS` (tuning side; the test designs are never drawn
here) is calibrated as `studio calibrate deck` would (its 52 scans flattened, its indices
located, its index window taken from them), and its windows are rendered through the camera
model of the deck reader's own training (`calibration.corner_training.training_windows`: scale,
rotation, perspective, defocus, motion, noise, JPEG, glare, casts, a cut through a slightly
wrong outline), with windows that are no index (other parts of faces, backs, chips) as "none".
The last `HOLD_OUT` designs are held out and only report the trained network's accuracy on
designs it never saw. The network (`calibration.corner_net`, the deck reader's shape) is
trained with JAX and optax (seeded: same data, same weights), written as ONNX, and its SHA-256
printed for `universal_reader.MODEL_SHA256`. Every deck's reader then starts from it.
"""

from __future__ import annotations

import argparse
import hashlib
import time
from pathlib import Path

import cv2
import numpy as np

from calibration import corner_net
from calibration.corner_render import CameraLook
from calibration.corner_training import TrainingSize, training_windows
from calibration.deck import _misplaced, flatten_card, index_window, locate_index, window_pixels
from calibration.errors import DeckCalibrationError
from calibration.universal_reader import MODEL_PATH
from drivers.camera.index_model import NONE, Array, IndexModel
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.reference import render_reference
from drivers.camera.synthetic.splits import TRAINING_SEEDS
from studio.cards import DECK, RANK_CHARS, SUIT_CHARS

HOLD_OUT = 4
"""Designs held out of the fit, to report accuracy on typefaces the network never saw."""
PER_DESIGN = TrainingSize(positives_per_card=3, cuts=2, negatives=90, epochs=0)
"""Windows drawn from each design: few per design, many designs (the variety is the point)."""
LOOK = CameraLook(shift=0.009, turn_deg=1.5, scale=0.025)
"""The camera and outline error of the universal reader's windows: the deck reader's camera
with a wider outline error (a found outline, a proposal or a detected corner is placed less
exactly than a well-lit lone card's), so the start reads indices a little off in the window."""
RANKS = (*RANK_CHARS, NONE)
SUITS = (*SUIT_CHARS, NONE)


def design_windows(seed: int, rng: np.random.Generator) -> tuple[Array, Array, Array] | None:
    """The training windows of design `seed` cut by its own calibrated window; None if refused."""
    d = deckgen.design(seed)
    flats = {
        c.code: flatten_card(render_reference(c, d, "scan", i), c.code) for i, c in enumerate(DECK)
    }
    inks = {}
    for code, flat in flats.items():
        try:
            inks[code] = locate_index(flat, code)
        except DeckCalibrationError:
            continue
    for code in _misplaced(inks):
        inks.pop(code)
    if len(inks) < 26:
        return None
    window = window_pixels(index_window(inks))
    x, ry, sy = training_windows(flats, window, RANKS, SUITS, rng, PER_DESIGN, LOOK)
    return x, ry.astype(np.float32), sy.astype(np.float32)


def dataset(seeds: tuple[int, ...], seed: int) -> tuple[Array, np.ndarray, np.ndarray]:
    """Windows and rank and suit labels of every design of `seeds` that calibrates."""
    rng = np.random.default_rng(seed)
    xs, rs, ss = [], [], []
    for k, s in enumerate(seeds):
        got = design_windows(s, rng)
        if got is None:
            print(f"  design {s}: not calibrated, skipped", flush=True)
            continue
        xs.append(got[0])
        rs.append(got[1])
        ss.append(got[2])
        if k % 10 == 9:
            print(f"  {k + 1}/{len(seeds)} designs rendered", flush=True)
    return (
        np.concatenate(xs),
        np.concatenate(rs).astype(np.int64),
        np.concatenate(ss).astype(np.int64),
    )


def main() -> None:
    """Build the universal reader, report it on held-out designs, write it, print its digest."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--designs", type=int, default=64, help="training designs (incl. held out)")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--seed", type=int, default=20261205)
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    seeds = TRAINING_SEEDS[: args.designs]
    start = time.perf_counter()
    x, ry, sy = dataset(seeds[:-HOLD_OUT], args.seed)
    xv, ryv, syv = dataset(seeds[-HOLD_OUT:], args.seed + 1)
    print(f"{len(x)} training windows, {len(xv)} held out ({time.perf_counter() - start:.0f} s)")
    weights = corner_net.train(
        x,
        ry,
        sy,
        len(RANKS),
        len(SUITS),
        seed=args.seed,
        recipe=corner_net.Recipe(epochs=args.epochs),
        progress=lambda done, total: print(f"  epoch {done}/{total}", flush=True),
    )
    data = corner_net.to_onnx(weights, doc="universal index reader")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(data)
    model = IndexModel(RANKS, SUITS, data)
    pr, ps = model.probabilities(xv)
    right = (pr.argmax(1) == ryv) & (ps.argmax(1) == syv)
    index = ryv != RANKS.index(NONE)
    sure = np.minimum(pr.max(1), ps.max(1)) >= 0.99
    print(
        f"held-out designs: {int(index.sum())} index windows, {right[index].mean():.1%} read right;"
        f" at >= 0.99: {(sure & index).mean() / max(1e-9, index.mean()):.1%} read, "
        f"{int((sure & ~right).sum())} wrong; training {time.perf_counter() - start:.0f} s"
    )
    print(f"sha256 {hashlib.sha256(data).hexdigest()}")


if __name__ == "__main__":
    main()
