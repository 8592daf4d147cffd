"""Finding cards alone, deck-agnostic: per scene kind, split of designs and camera envelope.

No deck is calibrated and nothing is read: the finder (`drivers.camera.finder.find_candidates`:
firm outlines, their edge-snapped copies, row proposals in bright regions and, where the learned
index-corner detector runs, its corners) is run on random scenes of the generated designs of a
split (`drivers/camera/synthetic/splits.py`) in an envelope (`envelopes.py`). For each readable
face-up card (an index window >= 97% in view) it asks:

- `outline`: is there a candidate whose four corners lie within `--tol` (a share of the card's
  height, 0.08) of the truth, either way up?
- `corner`: is one of the card's *visible* index windows placed by some candidate, i.e. the
  window's four corners (as the candidate's corner frame puts them) within `--win-tol` (0.04) of
  where the true outline puts them, at a corner the candidate says is worth reading (edge support
  or detector score)? This is what a reader needs.
- `either`: outline or corner, from the outline finder alone (firm outlines, snapped copies,
  proposals): the finder's recall without the learned detector;
- `found`: `either`, or a corner the learned index-corner detector kept places the window: the
  finder's recall (`--no-corners` leaves the detector out, and `found` equals `either`).

Scene kinds, from the drawn geometry: `single` (no card touches it), `touch` (a neighbour within
3% of its height, none over it), `row` (overlaps a neighbour turned the same way), `fan` (overlaps
a neighbour turned 6-40 degrees from it), `sideways` (a neighbour turned a quarter, touching or
over it); `small` adds every card under 160 px at 1080p. Also prints the candidates per frame and
the finder's CPU time per 1080p frame on one core.

    python bench/camera_finder.py [--split tuning|test|both] [--envelope studio|harsh|both]
                                  [--designs N] [--frames N] [--seed N] [--no-corners]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import cv2
import numpy as np

from drivers.camera.finder import find_candidates, readable_turns
from drivers.camera.index_corner_training import window_shown
from drivers.camera.outline import CardOutline
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.envelopes import ENVELOPES
from drivers.camera.synthetic.generator import random_scene
from drivers.camera.synthetic.scene import RenderedFrame, Scene, render_scene
from drivers.camera.synthetic.scoring import card_height_px
from drivers.camera.synthetic.splits import SPLITS

# The renderer's index window (fractions of the card): its visibility defines "readable".
WINDOW = np.array([[0.02, 0.02], [0.27, 0.02], [0.27, 0.33], [0.02, 0.33]])
KINDS = ("single", "touch", "row", "fan", "sideways", "small", "all")


def bilinear(quad: np.ndarray, uv: np.ndarray) -> np.ndarray:
    """Points at (u, v) fractions of a quad's TL-TR-BR-BL frame."""
    tl, tr, br, bl = quad
    u, v = uv[:, :1], uv[:, 1:]
    out: np.ndarray = (1 - u) * (1 - v) * tl + u * (1 - v) * tr + u * v * br + (1 - u) * v * bl
    return out


def visible_turns(k: int, frame: RenderedFrame, scene: Scene) -> list[int]:
    """Turns (0: top-left, 2: bottom-right) of card k whose index window is >= 97% in view.

    As the renderer counts it (cards drawn later and chips lie on top); the renderer's cards have
    rounded corners, so where it calls a card readable and no window here reaches 97%, the best
    window is taken when it reaches 90%.
    """
    shares = []
    for turn in (0, 2):
        corners = np.roll(frame.cards[k].corners, -turn, axis=0)
        shares.append((window_shown(corners, k, frame, scene), turn))
    out = [turn for share, turn in shares if share >= 0.97]
    best, turn = max(shares)
    return out or ([turn] if best >= 0.9 else [])


def scene_kind(k: int, frame: RenderedFrame, scene: Scene) -> str:
    """The card's scene kind (see the module docstring) from the drawn quads and angles."""
    me = frame.cards[k].corners.astype(np.float32)
    size = card_height_px(frame.cards[k])
    kinds = set()
    for j, other in enumerate(frame.cards):
        if j == k:
            continue
        q = other.corners.astype(np.float32)
        area, _ = cv2.intersectConvexConvex(me, q)
        gap = min(
            min(-cv2.pointPolygonTest(q.reshape(-1, 1, 2), tuple(map(float, p)), True) for p in me),
            min(-cv2.pointPolygonTest(me.reshape(-1, 1, 2), tuple(map(float, p)), True) for p in q),
        )
        if area <= 0 and gap > 0.03 * size:
            continue
        turn = abs(scene.cards[k].angle - scene.cards[j].angle) % 180
        turn = min(turn, 180 - turn)
        if turn > 60:
            kinds.add("sideways")
        elif area <= 0:
            kinds.add("touch")
        elif turn > 6:
            kinds.add("fan")
        else:
            kinds.add("row")
    for kind in ("sideways", "fan", "row", "touch"):
        if kind in kinds:
            return kind
    return "single"


def placed(cand: CardOutline, truth: np.ndarray, turns: list[int], tol: float) -> bool:
    """True when a corner of `cand` puts a visible index window of `truth` within `tol` px."""
    for own in readable_turns(cand):
        got = bilinear(np.roll(cand.corners, -own, axis=0), WINDOW)
        for turn in turns:
            want = bilinear(np.roll(truth, -turn, axis=0), WINDOW)
            if float(np.linalg.norm(got - want, axis=1).max()) <= tol:
                return True
    return False


def outline_ok(cand: CardOutline, truth: np.ndarray, tol: float) -> bool:
    """True when `cand` has a whole outline within `tol` px of `truth` either way up."""
    return any(
        float(np.linalg.norm(np.roll(cand.corners, -s, axis=0) - truth, axis=1).max()) <= tol
        for s in (0, 2)
    )


def run(
    split: str, env: str, designs: int, frames: int, seed: int, args: argparse.Namespace
) -> None:
    seeds = SPLITS[split][:designs]
    style = ENVELOPES[env]
    table: dict[str, Counter[str]] = {k: Counter() for k in KINDS}
    cpu = 0.0
    n_frames = 0
    n_cands = 0
    per_design = max(1, frames // len(seeds))
    for design_seed in seeds:
        d = deckgen.design(design_seed)
        rng = np.random.default_rng([seed, design_seed])
        for _ in range(per_design):
            scene = random_scene(rng, style, d)
            frame = render_scene(scene)
            start = time.process_time()
            cands = find_candidates(frame.image, corners=not args.no_corners)
            cpu += time.process_time() - start
            n_frames += 1
            n_cands += len(cands)
            for k, truth in enumerate(frame.cards):
                if not (truth.face_up and truth.readable):
                    continue
                size = card_height_px(truth)
                turns = visible_turns(k, frame, scene)
                kinds = {scene_kind(k, frame, scene), "all"}
                if size * 1080 / style.height < 160:
                    kinds.add("small")
                base = [c for c in cands if not c.corner]
                got_outline = any(outline_ok(c, truth.corners, args.tol * size) for c in base)
                got_corner = bool(turns) and any(
                    placed(c, truth.corners, turns, args.win_tol * size) for c in base
                )
                got_detected = bool(turns) and any(
                    placed(c, truth.corners, turns, args.win_tol * size) for c in cands if c.corner
                )
                for kind in kinds:
                    table[kind]["cards"] += 1
                    table[kind]["outline"] += got_outline
                    table[kind]["corner"] += got_corner
                    table[kind]["either"] += got_outline or got_corner
                    table[kind]["found"] += got_outline or got_corner or got_detected
    ms = 1000 * cpu / max(1, n_frames)
    print(
        f"{split}/{env}: {len(seeds)} designs, {n_frames} frames, "
        f"{n_cands / max(1, n_frames):.1f} candidates/frame, finder CPU {ms:.1f} ms/frame"
    )
    heads = ("outline", "corner", "either", "found")
    print(f"    {'kind':9s} {'cards':>6s} " + " ".join(f"{h:>8s}" for h in heads))
    for kind in KINDS:
        row = table[kind]
        n = row["cards"]
        if n:
            print(
                f"    {kind:9s} {n:6d} " + " ".join(f"{row[h] / n:8.1%}" for h in heads),
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--split", choices=("test", "tuning", "both"), default="both")
    parser.add_argument("--envelope", choices=("studio", "harsh", "both"), default="both")
    parser.add_argument("--designs", type=int, default=40, help="first N designs of each split")
    parser.add_argument("--frames", type=int, default=120, help="frames per split and envelope")
    parser.add_argument("--seed", type=int, default=20261204, help="scene seed")
    parser.add_argument("--tol", type=float, default=0.08, help="outline corner tolerance")
    parser.add_argument("--win-tol", type=float, default=0.04, help="index window tolerance")
    parser.add_argument("--no-corners", action="store_true", help="outlines only (no detector)")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    splits = ("tuning", "test") if args.split == "both" else (args.split,)
    envelopes = ("studio", "harsh") if args.envelope == "both" else (args.envelope,)
    for split in splits:
        for env in envelopes:
            run(split, env, args.designs, args.frames, args.seed, args)


if __name__ == "__main__":
    main()
