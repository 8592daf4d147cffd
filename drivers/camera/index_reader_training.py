"""Rebuilds the shipped universal index reader (`calibration.universal_reader`) from many designs.

    python -m drivers.camera.index_reader_training [--designs N] [--epochs N] [--out FILE]
        [--other-inks] [--widths 12,24,48] [--hidden 96] [--windows FILE.npz]

The defaults build the shipped start: 256 designs, 8 epochs, seed 20261205 (about 36 minutes
on one core; 100, 164 and 400 designs measured against it in docs/camera-history.md, "The universal
reader trained on 256 designs").

Each design of `synthetic.splits.TRAINING_SEEDS` (tuning side; the test designs are never drawn
here) is calibrated as `studio calibrate deck` would (its 52 scans flattened, its indices
located, its index window taken from them), and its windows are rendered through the camera
model of the deck reader's own training (`calibration.corner_training.training_windows`: scale,
rotation, perspective, defocus, motion, noise, JPEG, glare, casts, a cut through a slightly
wrong outline), with windows that are no index (other parts of faces, backs, chips) as "none".
With `--other-inks` every other design is printed in one of the other suit ink sets of
`deckgen.INKS` (in turn: four-colour, navy or brown "black", orange or pink "red";
`design_inks`), so the start sees inks weak in the blue channel (a four-colour deck's blue
diamonds); measured, not kept: docs/camera-history.md, "The universal reader taught other inks".
`--widths` and `--hidden` set the network's size (`corner_net.NetShape`; default the shipped
one), and every deck's reader started from the result takes its size. `--windows FILE.npz`
keeps the drawn windows: a later build with the same designs, seed and inks reads them instead
of drawing them again (builds of several sizes on the same windows; measured in
docs/camera-history.md, "Is the reader's size what limits it?").
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
OTHER_INKS = tuple(name for name in deckgen.INKS if name != deckgen.TWO_COLOUR)
"""The ink sets other than the designs' own red and black that half the designs are printed in."""
RANKS = (*RANK_CHARS, NONE)
SUITS = (*SUIT_CHARS, NONE)


def design_inks(k: int) -> str:
    """The ink set the `k`-th design is printed in: its own for even `k`, else `OTHER_INKS` in turn.

    Half the designs keep their own red and black (the common deck); the other half cycle
    through every other set, so each is seen on as many designs and typefaces.
    """
    return deckgen.TWO_COLOUR if k % 2 == 0 else OTHER_INKS[(k // 2) % len(OTHER_INKS)]


def design_windows(
    seed: int, rng: np.random.Generator, ink_set: str = deckgen.TWO_COLOUR
) -> tuple[Array, Array, Array] | None:
    """The training windows of design `seed` printed in `ink_set`; None if refused.

    The windows are cut by the design's own calibrated index window.
    """
    d = deckgen.with_inks(deckgen.design(seed), ink_set)
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


def dataset(
    seeds: tuple[int, ...], seed: int, other_inks: bool = False
) -> tuple[Array, np.ndarray, np.ndarray]:
    """Windows and rank and suit labels of every design of `seeds` that calibrates.

    With `other_inks`, every other design is printed in another ink set (`design_inks`).
    """
    rng = np.random.default_rng(seed)
    xs, rs, ss = [], [], []
    for k, s in enumerate(seeds):
        ink_set = design_inks(k) if other_inks else deckgen.TWO_COLOUR
        got = design_windows(s, rng, ink_set)
        if got is None:
            print(f"  design {s} ({ink_set}): not calibrated, skipped", flush=True)
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


def _shape(widths: str, hidden: int) -> corner_net.NetShape:
    try:
        return corner_net.NetShape(tuple(int(w) for w in widths.split(",")), hidden)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"--widths {widths} --hidden {hidden}: {e}") from e


def windows(
    seeds: tuple[int, ...], seed: int, other_inks: bool, keep: Path | None
) -> tuple[Array, np.ndarray, np.ndarray, Array, np.ndarray, np.ndarray]:
    """The training windows of `seeds` but the last `HOLD_OUT`, then the held-out ones.

    With `keep`, read from that .npz when it was written for the same designs, seed and inks,
    else drawn and written there.
    """
    key = np.asarray([*seeds, seed, int(other_inks)], np.int64)
    if keep is not None and keep.exists():
        with np.load(keep) as f:
            if np.array_equal(f["key"], key):
                print(f"windows read from {keep}", flush=True)
                return f["x"], f["ry"], f["sy"], f["xv"], f["ryv"], f["syv"]
    x, ry, sy = dataset(seeds[:-HOLD_OUT], seed, other_inks)
    xv, ryv, syv = dataset(seeds[-HOLD_OUT:], seed + 1, other_inks)
    if keep is not None:
        keep.parent.mkdir(parents=True, exist_ok=True)
        np.savez(keep, key=key, x=x, ry=ry, sy=sy, xv=xv, ryv=ryv, syv=syv)
    return x, ry, sy, xv, ryv, syv


def main() -> None:
    """Build the universal reader, report it on held-out designs, write it, print its digest."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--designs", type=int, default=256, help="training designs (incl. held out)"
    )
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=20261205)
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    parser.add_argument(
        "--other-inks",
        action="store_true",
        help="print every other design in another ink set of deckgen.INKS (not kept)",
    )
    default = corner_net.NetShape()
    parser.add_argument(
        "--widths",
        default=",".join(map(str, default.widths)),
        help="output channels of each convolution, comma-separated",
    )
    parser.add_argument("--hidden", type=int, default=default.hidden, help="dense layer units")
    parser.add_argument("--windows", type=Path, help="keep the drawn windows in this .npz")
    args = parser.parse_args()
    try:
        shape = _shape(args.widths, args.hidden)
    except argparse.ArgumentTypeError as e:
        parser.error(str(e))
    cv2.setNumThreads(1)
    seeds = TRAINING_SEEDS[: args.designs]
    start = time.perf_counter()
    x, ry, sy, xv, ryv, syv = windows(seeds, args.seed, args.other_inks, args.windows)
    print(f"{len(x)} training windows, {len(xv)} held out ({time.perf_counter() - start:.0f} s)")
    fit = time.perf_counter()
    weights = corner_net.train(
        x,
        ry,
        sy,
        len(RANKS),
        len(SUITS),
        seed=args.seed,
        recipe=corner_net.Recipe(epochs=args.epochs),
        progress=lambda done, total: print(f"  epoch {done}/{total}", flush=True),
        shape=shape,
    )
    fit = time.perf_counter() - fit
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
        f" ({shape}: {fit / max(1, args.epochs):.0f} s an epoch)"
    )
    print(f"sha256 {hashlib.sha256(data).hexdigest()}")


if __name__ == "__main__":
    main()
