"""The dense index-corner detector measured against today's hypotheses, on held-out tuning designs.

    python bench/dense_corners.py [--model FILE] [--frames 8]

Frames of the last `HOLD_OUT` tuning designs (never trained on; never a test design), both
envelopes. For every face-up card's index corner whose window is in view (`SHOWN`), is some
detection there? Two measures: `window`, the index window the detection's outline puts within
`PLACED` of the card's height of the drawn one at each of its corners (what the reader needs:
the corner, the turn and the height all right), and `corner`, the corner itself within `PLACED`
of the height and the turn within `TURN` degrees. Compared on the same frames with
 - `kept`: today's rim hypotheses the shipped detector keeps (`finder.detected_corners`);
 - `finder`: every place the whole finder offers a reader (`finder.find_candidates`: firm,
   snapped, proposed, confirmed, detected and anchored outlines, at each turn it reads);
 - `dense-fed`: the dense detections as the finder would take them if fed: each sized by the
   card height the finder gives the bright region its corner lies on (`region_heights`; the
   network's own height elsewhere), with a copy anchored on the paper's corner
   (`outline_fit.fit_corners`, as `finder.anchored` makes for guesses);
 - `finder+fed`: the finder's outlines and those together, what feeding could place at most.
A detection is false when it is the corner of no face-up card's index at all (`corner` measure,
partly covered ones included). Broken down by envelope, by whether the card overlaps another,
and by card height; ms a frame of the dense net (downscaling and decoding included) on one
thread. The rendered frames' grey, truth and today's outlines are cached in `--cache`.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.dense_corner_training import (
    PARTLY,
    SHOWN,
    Truth,
    frame_truth,
    hold_seeds,
    save_arrays,
)
from drivers.camera.dense_corners import (
    MODEL_SHA256,
    STRIDE,
    corner_quad,
    corners,
    downscaled,
    load_dense,
    to_cells,
)
from drivers.camera.detect import card_threshold, detect_cards
from drivers.camera.finder import detected_corners, find_candidates, readable_turns, region_heights
from drivers.camera.index_corner_training import PLACED, WINDOW, _bilinear
from drivers.camera.outline_fit import fit_corners
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.envelopes import ENVELOPES
from drivers.camera.synthetic.generator import random_scene
from drivers.camera.synthetic.scene import render_scene

Array = npt.NDArray[Any]

TURN = 8.0
"""Degrees a detection's turn may be off for the `corner` measure."""


def _today(image: Array, gray: Array) -> tuple[Array, Array, Array]:
    """Today's kept rim hypotheses, every outline the finder offers (at their read corner), and
    the card height the finder gives each bright region, painted on the downscaled frame."""
    found = detect_cards(gray, min_long_px=80.0, frame=image)
    heights = region_heights(found)
    kept = [o.corners for o in detected_corners(gray, found, heights)]
    offered = [
        np.roll(o.corners, -t, axis=0) for o in find_candidates(image) for t in readable_turns(o)
    ]
    small = downscaled(gray)
    painted = np.zeros(small.shape, np.float32)
    for region, height in zip(found.regions, heights, strict=True):
        if height is not None:
            contour = np.round(to_cells(region.contour) * STRIDE).astype(np.int32)
            cv2.drawContours(painted, [contour], -1, float(height), -1)
            cv2.drawContours(painted, [contour], -1, float(height), 3)
    return np.array(kept).reshape(-1, 4, 2), np.array(offered).reshape(-1, 4, 2), painted


def _sized(quads: list[Array], painted: Array) -> Array:
    """`quads` re-sized to the card height the finder gives the bright region their corner is
    on (as a fed corner would be); a quad on no region keeps the network's height."""
    out = []
    for q in quads:
        x, y = np.round(to_cells(q[0]) * STRIDE).astype(int)
        inside = 0 <= y < painted.shape[0] and 0 <= x < painted.shape[1]
        height = float(painted[y, x]) if inside else 0.0
        if height <= 0:
            out.append(q)
            continue
        side = q[1] - q[0]
        out.append(corner_quad(q[0], float(np.arctan2(side[1], side[0])), height))
    return np.array(out).reshape(-1, 4, 2)


@dataclass(frozen=True, slots=True)
class Held:
    """A held-out frame as the bench keeps it (see `_today` for the last three)."""

    gray: Array
    truth: Truth
    kept: Array
    offered: Array
    painted: Array


def _frames(cache: Path, design_seed: int, envelope: str, frames: int, seed: int) -> list[Held]:
    """Held-out frames, drawn once and cached."""
    path = cache / f"held-{design_seed}-{envelope}-{frames}-{seed}.npz"
    if not path.exists():
        design = deckgen.design(design_seed)
        rng = np.random.default_rng([seed, design_seed, list(ENVELOPES).index(envelope)])
        arrays: dict[str, Array] = {}
        for n in range(frames):
            scene = random_scene(rng, ENVELOPES[envelope], design)
            frame = render_scene(scene)
            gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
            t = frame_truth(scene, frame)
            kept, offered, painted = _today(frame.image, gray)
            arrays[f"g{n}"] = gray
            arrays[f"t{n}"] = t.packed()
            arrays[f"k{n}"] = kept
            arrays[f"f{n}"] = offered
            arrays[f"p{n}"] = painted
        save_arrays(path, arrays)
    with np.load(path) as z:
        return [
            Held(z[f"g{n}"], Truth.unpacked(z[f"t{n}"]), z[f"k{n}"], z[f"f{n}"], z[f"p{n}"])
            for n in range(frames)
        ]


def _hits(truth: Truth, quads: Array) -> tuple[Array, Array, Array]:
    """Per truth corner: `window` hit, `corner` hit; per quad: whether it is some index corner."""
    n, m = len(truth.turn), len(quads)
    if n == 0 or m == 0:
        return np.zeros(n, bool), np.zeros(n, bool), np.zeros(m, bool)
    size = truth.height[:, None]
    turns = np.arctan2(quads[:, 1, 1] - quads[:, 0, 1], quads[:, 1, 0] - quads[:, 0, 0])
    off = np.abs((turns[None, :] - truth.turn[:, None] + np.pi) % (2 * np.pi) - np.pi)
    near = np.linalg.norm(quads[None, :, 0] - truth.corner[:, None], axis=2) <= PLACED * size
    corner = near & (np.degrees(off) <= TURN)
    windows = np.stack([_bilinear(q, WINDOW) for q in quads])
    truths = []
    for c, t, h in zip(truth.corner, truth.turn, truth.height, strict=True):
        along = np.array([np.cos(t), np.sin(t)])
        down = np.array([-along[1], along[0]])
        w = h * 63.0 / 88.0
        quad = np.array([c, c + w * along, c + w * along + h * down, c + h * down])
        truths.append(_bilinear(quad, WINDOW))
    err = np.linalg.norm(np.stack(truths)[:, None] - windows[None], axis=3).max(axis=2)
    window = err <= PLACED * size
    some = (corner & (truth.shown >= PARTLY)[:, None]).any(axis=0)
    return window.any(axis=1), corner.any(axis=1), some


def main() -> None:
    """Measure and print (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", help="a trained model (the shipped one if not given)")
    parser.add_argument("--sha256", default=MODEL_SHA256, help="the --model file's digest")
    parser.add_argument("--frames", type=int, default=8, help="frames per design and envelope")
    parser.add_argument("--seed", type=int, default=20261207)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/cam-dense"))
    parser.add_argument("--thresholds", type=float, nargs="+", default=[0.2, 0.5])
    args = parser.parse_args()
    cv2.setNumThreads(1)
    args.cache.mkdir(parents=True, exist_ok=True)
    net = load_dense(args.model, args.sha256)
    # (method, group) -> [corners, window hits, corner hits]; (method, envelope) -> [false, frames]
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    false: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    took: list[float] = []
    for envelope in ENVELOPES:
        for design_seed in hold_seeds():
            for held in _frames(args.cache, design_seed, envelope, args.frames, args.seed):
                truth = held.truth
                start = time.perf_counter()
                maps = net.maps(downscaled(held.gray))
                found = corners(maps, min(args.thresholds))
                took.append(time.perf_counter() - start)
                methods = {"kept": held.kept, "finder": held.offered}
                paper = card_threshold(held.gray)
                for thr in args.thresholds:
                    sure = [q for p, q in found if p >= thr]
                    methods[f"dense@{thr:g}"] = np.array(sure).reshape(-1, 4, 2)
                    # Fed to the finder, a corner would be sized by its region and anchored
                    # on the paper's corner (a copy beside it), as guesses are.
                    sized = _sized(sure, held.painted)
                    fed = np.concatenate([sized, fit_corners(held.gray, sized, paper)])
                    methods[f"dense-fed@{thr:g}"] = fed
                    # What feeding the finder the dense corners could place, at most.
                    methods[f"finder+fed@{thr:g}"] = np.concatenate([held.offered, fed])
                shown = truth.shown >= SHOWN
                size = np.where(truth.height < 160, "<160", "160-250")
                size = np.where(truth.height >= 250, ">=250", size)
                for name, quads in methods.items():
                    window, corner, some = _hits(truth, quads)
                    false[(name, envelope)][0] += int((~some).sum())
                    false[(name, envelope)][1] += 1
                    for k in np.nonzero(shown)[0]:
                        lap = "overlapped" if truth.overlapped[k] else "lone"
                        for group in (envelope, f"{envelope} {lap}", f"{envelope} {size[k]}"):
                            tally = counts[(name, group)]
                            tally[0] += 1
                            tally[1] += int(window[k])
                            tally[2] += int(corner[k])
    names = sorted({m for m, _ in counts}, key=lambda m: ("dense" in m, "+" in m, m))
    groups = sorted({g for _, g in counts})
    print(f"{'':26s}" + "".join(f"{m:>22s}" for m in names))
    print(f"{'(window / corner recall)':26s}")
    for g in groups:
        row = f"{g:20s}{counts[(names[0], g)][0]:6d}"
        for m in names:
            total, in_window, at_corner = counts[(m, g)]
            row += f"{in_window / max(1, total):>14.1%} /{at_corner / max(1, total):6.1%}"
        print(row)
    for envelope in ENVELOPES:
        row = f"{'false a frame ' + envelope:26s}"
        for m in names:
            wrong, frames = false[(m, envelope)]
            row += f"{wrong / max(1, frames):>22.2f}"
        print(row)
    ms = 1000 * np.array(took)
    p50, p90 = np.percentile(ms, [50, 90])
    print(f"dense net on one thread: {p50:.1f} ms a frame median, p90 {p90:.1f}")


if __name__ == "__main__":
    main()
