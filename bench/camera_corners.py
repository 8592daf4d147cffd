"""Index classifier alone: read index corners warped from rendered scenes at their true outline.

Detection is taken out of the measure: every face-up card's two index corners are warped from
the frame with the ground-truth corners (each moved by random jitter, as a found outline is a
pixel or two off), exactly as the recognizer warps a found card, and read by the classifier. A
corner another card or a chip covers is skipped (the recognizer does not read those). Prints
corners read, wrong reads and the unknown rate by design and by card size.

    python bench/camera_corners.py [--frames 400] [--seed 31] [--jitter 1.0]
"""

from __future__ import annotations

import argparse
from collections import Counter

import cv2
import numpy as np
from camera import bench_scene

from calibration.deck import CANON_SIZE, learn_deck
from drivers.camera.classify import IndexClassifier
from drivers.camera.synthetic.designs import DESIGNS
from drivers.camera.synthetic.reference import render_reference
from drivers.camera.synthetic.scene import project, render_scene
from drivers.camera.synthetic.scoring import card_height_px
from studio.cards import DECK
from studio.config import cache_dir

# The index corner region (fractions of the card) that must be uncovered to count.
_CORNER = np.array([[0.0, 0.0], [0.3, 0.0], [0.3, 0.36], [0.0, 0.36]])


def _corner_quad(quad: np.ndarray) -> np.ndarray:
    tl, tr, br, bl = quad
    u, v = _CORNER[:, :1], _CORNER[:, 1:]
    pts = (1 - u) * (1 - v) * tl + u * (1 - v) * tr + u * v * br + (1 - u) * v * bl
    return pts.astype(np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=400)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--jitter", type=float, default=1.0, help="corner jitter, frame px (sd)")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    cw, ch = CANON_SIZE
    canon = np.array([[0, 0], [cw - 1, 0], [cw - 1, ch - 1], [0, ch - 1]], np.float32)
    readers = {}
    for name, design in DESIGNS.items():
        refs = {c.code: render_reference(c, design, "photo", 1000 + i) for i, c in enumerate(DECK)}
        deck, templates = learn_deck(refs, model_cache=cache_dir())
        x0, y0, x1, y1 = deck.index_window
        window = (round(x0 * cw), round(y0 * ch), round(x1 * cw), round(y1 * ch))
        readers[name] = (IndexClassifier(deck, templates), window)
    rng = np.random.default_rng(args.seed)
    jitter = np.random.default_rng(args.seed + 1)
    counts: Counter[tuple[str, str, str]] = Counter()
    wrongs = []
    for i in range(args.frames):
        style, design, scene = bench_scene(rng, i)
        frame = render_scene(scene)
        classifier, (x0, y0, x1, y1) = readers[design]
        quads = [t.corners for t in frame.cards]
        for k, truth in enumerate(frame.cards):
            if not truth.face_up:
                continue
            size = card_height_px(truth) * 1080 / style.height
            band = "small" if size < 160 else "large"
            for turn in (0, 2):
                quad = np.roll(truth.corners, -turn, axis=0)
                region = _corner_quad(quad)
                covered = any(
                    cv2.intersectConvexConvex(region, q.astype(np.float32))[0] > 1
                    for q in quads[k + 1 :]
                )
                for chip in scene.chips:
                    c = project(
                        scene.table_to_image,
                        np.array([[chip.x, chip.y], [chip.x + chip.radius, chip.y]]),
                    )
                    r = float(np.hypot(*(c[1] - c[0])))
                    centre = (float(c[0, 0]), float(c[0, 1]))
                    covered |= cv2.pointPolygonTest(region.reshape(-1, 1, 2), centre, True) > -r
                if covered:
                    continue
                moved = (quad + jitter.normal(0, args.jitter, quad.shape)).astype(np.float32)
                h = cv2.getPerspectiveTransform(canon, moved)
                m = h @ np.array([[1, 0, x0], [0, 1, y0], [0, 0, 1]], np.float64)
                win = cv2.warpPerspective(
                    frame.image, m, (x1 - x0, y1 - y0),
                    flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE,
                )  # fmt: skip
                read = classifier.read(win)
                code = read.code if read else None
                outcome = "read" if code == truth.code else "unknown" if code is None else "wrong"
                if outcome == "wrong":
                    wrongs.append(f"{truth.code}->{code}")
                for key in ((design, "all"), (design, band)):
                    counts[(*key, outcome)] += 1
    total = sum(v for (d, b, _), v in counts.items() if b == "all")
    wrong = sum(v for (d, b, o), v in counts.items() if b == "all" and o == "wrong")
    read = sum(v for (d, b, o), v in counts.items() if b == "all" and o == "read")
    print(f"corners {total}  read {read / max(1, total):.1%}  wrong {wrong}  {' '.join(wrongs)}")
    for design in sorted(DESIGNS):
        for band in ("all", "small", "large"):
            n = sum(counts[(design, band, o)] for o in ("read", "unknown", "wrong"))
            if n:
                got = {o: counts[(design, band, o)] for o in ("read", "unknown", "wrong")}
                print(
                    f"  {design:8s} {band:6s} {n:5d} corners  read {got['read'] / n:.1%}"
                    f"  unknown {got['unknown'] / n:.1%}  wrong {got['wrong']}"
                )


if __name__ == "__main__":
    main()
