"""What the finder offered each `misplaced` miss, on the tuning split.

    python bench/misplaced_cards.py [--envelope studio|harsh] [--designs N] [--frames N]
                                    [--seed N] [--frame-cache DIR] [--pictures DIR]

`bench/miss_causes.py` calls a missed card `misplaced` when candidates cover it but none puts
one of its visible index windows within 4% of the card's height of where it is. For each such
card this prints (one line per item, under the card's design, frame, code and share in view):

- `truth`: the learned index-corner detector's score on the card's own index corner(s), drawn
  exactly (is the detector the limit?);
- `nearest`: per kind of candidate (firm, partial, proposal, corner, anchored copy), the
  least error of an index window it places, as a share of the card's height, with the
  corner's edge support (is a candidate near, and of which kind?);
- `weak`: candidates placing the window within 4% at a corner whose edge support is under
  `tuning.MIN_CORNER_SUPPORT`, with the detector's score there (held back by the support bar);
- `hypotheses`: the rim hypotheses (`corners.corner_quads`, at each region's height,
  `finder.region_heights`) whose corner lies within 15% of the card's, with their window error
  and score (is the corner on the rim at all, and is its size right?).

With `--pictures DIR` each card is also drawn: the true window green, the candidates covering
it by kind, the bright regions' rims magenta. The frames are those of `bench/camera.py` with
the same arguments (and may be read back from its `--frame-cache DIR`).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
from camera import calibrated_designs
from camera_finder import bilinear, visible_turns
from frame_cache import cached_render, frame_key
from miss_causes import WINDOW_TOL, MissDiagnosis, read_candidates

from calibration.profile import CalibrationProfile
from drivers.camera.corners import corner_quads
from drivers.camera.detect import detect_cards
from drivers.camera.finder import region_heights
from drivers.camera.index_corners import shipped_detector
from drivers.camera.outline import CardOutline
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic.envelopes import ENVELOPES
from drivers.camera.synthetic.generator import random_scene
from drivers.camera.synthetic.scoring import card_height_px, overlap
from drivers.camera.synthetic.splits import SPLITS
from drivers.camera.tuning import LEARNED_TUNING, MIN_CORNER_SUPPORT

WINDOW = np.array([[0.02, 0.02], [0.27, 0.02], [0.27, 0.33], [0.02, 0.33]])
COLOURS = {
    "firm": (255, 0, 0),
    "partial": (255, 128, 0),
    "proposal": (0, 200, 255),
    "anchored": (0, 128, 255),
    "corner": (0, 0, 255),
}


def kind(c: CardOutline) -> str:
    """The kind of candidate `c` is, as this bench names them."""
    if c.corner:
        return "corner"
    if c.speculative:
        return "anchored" if c.support == (1.0, 0.0, 0.0, 0.0) else "proposal"
    return "partial" if c.partial else "firm"


def window_error(quad: npt.NDArray[Any], truth: npt.NDArray[Any]) -> float:
    """The farthest corner (pixels) of the index window `quad` places from `truth`'s."""
    return float(np.linalg.norm(bilinear(quad, WINDOW) - bilinear(truth, WINDOW), axis=1).max())


def corner_offset(quad: npt.NDArray[Any], truth: npt.NDArray[Any], size: float) -> str:
    """Where `quad`'s first corner lies from `truth`'s, in the card's own axes (shares of its
    height): `side` along its short side (+: towards the other index's side), `end` along its
    long side (+: into the card), and the turn between their long sides (degrees)."""
    across = (truth[1] - truth[0]) / np.linalg.norm(truth[1] - truth[0])
    down = (truth[3] - truth[0]) / np.linalg.norm(truth[3] - truth[0])
    d = quad[0] - truth[0]
    a, b = quad[3] - quad[0], truth[3] - truth[0]
    turn = np.degrees(np.arctan2(a[0] * b[1] - a[1] * b[0], a @ b))
    return f"side {d @ across / size:+.3f} end {d @ down / size:+.3f} turn {turn:+.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--envelope", choices=("studio", "harsh"), default="studio")
    parser.add_argument("--designs", type=int, default=4, help="first N tuning designs")
    parser.add_argument("--frames", type=int, default=120)
    parser.add_argument("--seed", type=int, default=20261129, help="scene seed")
    parser.add_argument("--frame-cache", type=Path, help="read drawn frames back from here")
    parser.add_argument("--pictures", type=Path, help="draw each misplaced card here")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    detector = shipped_detector()
    seeds = SPLITS["tuning"][: args.designs]
    total = 0
    for design_seed, design, deck, templates in calibrated_designs(seeds):
        recognizer = CardRecognizer(CalibrationProfile(deck=deck), templates)
        diagnosis = MissDiagnosis(deck, templates, LEARNED_TUNING)
        rng = np.random.default_rng([args.seed, design_seed])
        for index in range(max(1, args.frames // len(seeds))):
            scene = random_scene(rng, ENVELOPES[args.envelope], design)
            key = frame_key(design.name, args.envelope, args.seed, index)
            frame = cached_render(scene, args.frame_cache, key)
            causes = diagnosis.causes(scene, frame, recognizer.recognize(frame.image))
            missed = [k for k, cause, _ in causes if cause == "misplaced"]
            if not missed:
                continue
            gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
            cands = read_candidates(frame.image, gray)
            found = detect_cards(gray, min_long_px=80.0, frame=frame.image)
            hyps = [
                (q, k)
                for k, (region, h) in enumerate(
                    zip(found.regions, region_heights(found), strict=True)
                )
                if h is not None
                for q in corner_quads(region.contour, h)
            ]
            scores = detector.scores(gray, [q for q, _ in hyps])
            for k in missed:
                total += 1
                truth = frame.cards[k]
                size = card_height_px(truth)
                turns = visible_turns(k, frame, scene)
                print(f"  {key} {truth.code:3s} in view {truth.visible:4.0%} {size:4.0f} px")
                wanted = [np.roll(truth.corners, -t, axis=0) for t in turns]
                truth_scores = detector.scores(gray, wanted)
                print("    truth: " + " ".join(f"{s:.2f}" for s in truth_scores))
                nearest: dict[str, tuple[float, float]] = {}
                best: tuple[float, str, npt.NDArray[Any], npt.NDArray[Any]] | None = None
                weak: list[tuple[float, str, float, npt.NDArray[Any]]] = []
                for c in cands:
                    for own in (0, 2):
                        quad = np.roll(c.corners, -own, axis=0)
                        err, w = min(
                            ((window_error(quad, w) / size, w) for w in wanted),
                            key=lambda e: e[0],
                        )
                        if best is None or err < best[0]:
                            best = (err, kind(c), quad, w)
                        if err < nearest.get(kind(c), (9.0, 0.0))[0]:
                            nearest[kind(c)] = (err, c.support[own])
                        if err <= WINDOW_TOL and c.support[own] < MIN_CORNER_SUPPORT:
                            weak.append((err, kind(c), c.support[own], quad))
                print(
                    "    nearest: "
                    + "  ".join(f"{n} {e:.3f} (support {s:.2f})" for n, (e, s) in nearest.items())
                )
                if best is not None:
                    print(f"    offset ({best[1]}): " + corner_offset(best[2], best[3], size))
                if weak:
                    weak_scores = detector.scores(gray, [q for *_, q in weak])
                    print(
                        "    weak: "
                        + "  ".join(
                            f"{n} {e:.3f} support {s:.2f} score {d:.2f}"
                            for (e, n, s, _), d in zip(weak, weak_scores, strict=True)
                        )
                    )
                near = sorted(
                    (min(window_error(q, w) for w in wanted) / size, float(score))
                    for (q, _), score in zip(hyps, scores, strict=True)
                    if min(float(np.linalg.norm(q[0] - w[0])) for w in wanted) < 0.15 * size
                )
                print(
                    "    hypotheses: "
                    + ("  ".join(f"{e:.3f} score {s:.2f}" for e, s in near[:4]) or "none")
                )
                if args.pictures is not None:
                    _draw(args.pictures / f"{key}-{truth.code}.png", frame.image, found, cands,
                          truth.corners, wanted, size)  # fmt: skip
    print(f"tuning/{args.envelope}: misplaced {total}")


def _draw(
    path: Path,
    image: Any,
    found: Any,
    cands: list[CardOutline],
    card: npt.NDArray[Any],
    wanted: list[npt.NDArray[Any]],
    size: float,
) -> None:
    """The card's surroundings with the candidates covering it, its rims and true windows."""
    out = image.copy()
    for region in found.regions:
        cv2.drawContours(out, [region.contour], -1, (255, 0, 255), 1)
    for c in cands:
        if overlap(c.corners, card) > 0.3 or overlap(card, c.corners) > 0.3:
            cv2.polylines(out, [np.round(c.corners).astype(np.int32)], True, COLOURS[kind(c)], 1)
    for w in wanted:
        cv2.polylines(out, [np.round(bilinear(w, WINDOW)).astype(np.int32)], True, (0, 255, 0), 2)
    x0, y0 = np.maximum(0, np.floor(card.min(axis=0) - 0.3 * size).astype(int))
    x1, y1 = np.ceil(card.max(axis=0) + 0.3 * size).astype(int)
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), out[y0:y1, x0:x1])


if __name__ == "__main__":
    main()
