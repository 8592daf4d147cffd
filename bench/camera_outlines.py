"""Card detection alone: does every readable card get an outline its index corner can be read on?

Runs the recognizer on bench scenes (`bench/camera.py`'s styles) and records every outline it
tries to read (firm outlines, snapped retries, proposals). For each readable face-up card (an
index corner in view) it asks: is there an outline whose four corners lie within `--tol` (a share
of the card's height, 0.08 by default) of the truth, and is one of its visible index windows
*placed* (the window's corners within `--win-tol` of where the true outline puts them, 0.03)
and *let through* (the recognizer's gates: edge support at that corner, window inside the
visible region)? Prints both shares by difficulty tag, an "oracle reader" recall (the card is
read, or a placed corner was let through: what recall would be if every such corner read), and
the failure kind of every card without a placed corner:

- `no outline`: no tried outline covers the card (nothing card-shaped was found there);
- `outline off`: outlines overlap it but none is within `--tol` (size misjudged, merged);
- `window off`: an outline within `--tol`, but no visible index window within `--win-tol`;
- `gated support`: a placed window whose corner the edge-support gate refused;
- `gated hidden`: a placed window the visibility gate refused (a partial outline's corner
  judged outside the visible region);
- `read failed`: a placed, let-through window the index reader left unknown (not a detection
  failure: counted apart).

Extra tags: `chip` (a chip within a quarter card of the card), `box` (a printed box line
crosses near it), `touch` (another card within 3% of its height but not over it), `one-corner`
(only one index window in view).

    python bench/camera_outlines.py [--frames 150] [--seed 31] [--list 20]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from typing import Any

import cv2
import numpy as np
from camera import bench_recognizers, bench_scene, tags_for

from drivers.camera.outline import CardOutline
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic.scene import RenderedFrame, Scene, project, render_scene
from drivers.camera.synthetic.scoring import Score, card_height_px
from drivers.camera.tuning import MIN_CORNER_SUPPORT

# The index window used for visibility (as the renderer's ground truth defines it).
_WINDOW = np.array([[0.02, 0.02], [0.27, 0.02], [0.27, 0.33], [0.02, 0.33]])
KINDS = ("no outline", "outline off", "window off", "gated support", "gated hidden")


def _bilinear(quad: np.ndarray, uv: np.ndarray) -> np.ndarray:
    """Points at (u, v) fractions of a quad's TL-TR-BR-BL frame (perspective ignored)."""
    tl, tr, br, bl = quad
    u, v = uv[:, :1], uv[:, 1:]
    out: np.ndarray = (1 - u) * (1 - v) * tl + u * (1 - v) * tr + u * v * br + (1 - u) * v * bl
    return out


def _window_pts(quad: np.ndarray, canon: np.ndarray, window: np.ndarray) -> np.ndarray:
    """The recognizer's index window corners of `quad`'s top-left corner, in the image."""
    h = cv2.getPerspectiveTransform(canon, quad.astype(np.float32))
    out: np.ndarray = cv2.perspectiveTransform(window[None].astype(np.float64), h)[0]
    return out


class Recorder:
    """Wraps a recognizer's per-outline read to record every outline tried and its gates."""

    def __init__(self, recognizer: CardRecognizer) -> None:
        self.tried: list[tuple[CardOutline, list[tuple[np.ndarray, bool, bool]]]] = []
        inner = recognizer._read

        def read(frame: Any, gray: Any, thr: float, outline: CardOutline) -> Any:
            turns = []
            for turn in (0, 2):
                quad = np.roll(outline.corners, -turn, axis=0)
                supported = outline.support[turn] >= MIN_CORNER_SUPPORT
                seen = not outline.partial or recognizer._window_visible(quad, outline)
                turns.append((quad, supported, seen))
            self.tried.append((outline, turns))
            return inner(frame, gray, thr, outline)

        recognizer._read = read  # type: ignore[method-assign]


def _visible_corners(k: int, frame: RenderedFrame, scene: Scene) -> list[int]:
    """Turns (0: top-left, 2: bottom-right) of card k whose index window nothing covers."""
    truth = frame.cards[k]
    out = []
    for turn in (0, 2):
        quad = np.roll(truth.corners, -turn, axis=0)
        win = _bilinear(quad, _WINDOW).astype(np.float32)
        covered = any(
            cv2.intersectConvexConvex(win, t.corners.astype(np.float32))[0] > 2
            for t in frame.cards[k + 1 :]
        )
        for chip in scene.chips:
            c = project(
                scene.table_to_image, np.array([[chip.x, chip.y], [chip.x + chip.radius, chip.y]])
            )
            r = float(np.hypot(*(c[1] - c[0])))
            covered |= (
                cv2.pointPolygonTest(win.reshape(-1, 1, 2), (float(c[0, 0]), float(c[0, 1])), True)
                > -r
            )
        if not covered:
            out.append(turn)
    return out


def _extra_tags(k: int, frame: RenderedFrame, scene: Scene) -> set[str]:
    truth = frame.cards[k]
    size = card_height_px(truth)
    poly = truth.corners.astype(np.float32).reshape(-1, 1, 2)
    tags = set()
    for chip in scene.chips:
        c = project(
            scene.table_to_image, np.array([[chip.x, chip.y], [chip.x + chip.radius, chip.y]])
        )
        r = float(np.hypot(*(c[1] - c[0])))
        if cv2.pointPolygonTest(poly, (float(c[0, 0]), float(c[0, 1])), True) > -r - 0.25 * size:
            tags.add("chip")
    for x, y, bw, bh in scene.boxes:
        corners = np.array([[x, y], [x + bw, y], [x + bw, y + bh], [x, y + bh]])
        box = project(scene.table_to_image, corners)
        for a, b in zip(box, np.roll(box, -1, axis=0), strict=True):
            for t in np.linspace(0, 1, 25):
                p = a + t * (b - a)
                if cv2.pointPolygonTest(poly, (float(p[0]), float(p[1])), True) > -0.05 * size:
                    tags.add("box")
    for j, other in enumerate(frame.cards):
        if j == k:
            continue
        area, _ = cv2.intersectConvexConvex(
            truth.corners.astype(np.float32), other.corners.astype(np.float32)
        )
        if area > 0:
            continue
        opoly = other.corners.astype(np.float32).reshape(-1, 1, 2)
        gap = min(
            -cv2.pointPolygonTest(opoly, (float(p[0]), float(p[1])), True) for p in truth.corners
        )
        edge_gap = min(
            -cv2.pointPolygonTest(poly, (float(p[0]), float(p[1])), True) for p in other.corners
        )
        if min(gap, edge_gap) < 0.03 * size:
            tags.add("touch")
    return tags


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=150)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--tol", type=float, default=0.08, help="outline corner tolerance")
    parser.add_argument("--win-tol", type=float, default=0.03, help="index window tolerance")
    parser.add_argument("--list", type=int, default=0, help="list this many failures")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    recognizers = bench_recognizers()
    recorders = {name: Recorder(r) for name, r in recognizers.items()}
    any_rec = next(iter(recognizers.values()))
    x0, y0, x1, y1 = any_rec._window
    window = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
    canon = any_rec._canon
    rng = np.random.default_rng(args.seed)
    # per tag: readable, outline ok, window placed, oracle, read
    table: dict[str, Counter[str]] = {}
    kinds: dict[str, Counter[str]] = {}
    failures: list[str] = []
    cpu = 0.0
    score = Score()
    for i in range(args.frames):
        style, design, scene = bench_scene(rng, i)
        frame = render_scene(scene)
        rec = recorders[design]
        rec.tried = []
        start = time.process_time()
        readings = recognizers[design].recognize(frame.image)
        cpu += time.process_time() - start
        codes = {r.code for r in readings}
        score.add(frame, readings)
        tags = tags_for(scene, frame, style.height)
        for k, truth in enumerate(frame.cards):
            if not (truth.face_up and truth.readable):
                continue
            size = card_height_px(truth)
            visible = _visible_corners(k, frame, scene)
            card_tags = tags[k] | _extra_tags(k, frame, scene) | {"all"}
            if len(visible) < 2:
                card_tags.add("one-corner")
            overlaps = False
            outline_ok = False
            best_outline = best_window = 9.9
            placed: list[tuple[bool, bool]] = []
            tpoly = truth.corners.astype(np.float32)
            for outline, turns in rec.tried:
                q = outline.corners.astype(np.float32)
                inter, _ = cv2.intersectConvexConvex(tpoly, q)
                if inter > 0.3 * min(cv2.contourArea(tpoly), max(1.0, cv2.contourArea(q))):
                    overlaps = True
                for shift in (0, 2):
                    turned = np.roll(outline.corners, -shift, axis=0)
                    err = np.linalg.norm(turned - truth.corners, axis=1)
                    outline_ok |= bool(err.max() <= args.tol * size)
                    best_outline = min(best_outline, float(err.max()) / size)
                for quad, supported, seen in turns:
                    qw = _window_pts(quad, canon, window)
                    for turn in visible:
                        tw = _window_pts(np.roll(truth.corners, -turn, axis=0), canon, window)
                        werr = float(np.linalg.norm(qw - tw, axis=1).max()) / size
                        best_window = min(best_window, werr)
                        if werr <= args.win_tol:
                            placed.append((supported, seen))
            let_through = any(s and v for s, v in placed)
            hit = truth.code in codes
            if let_through or hit:
                kind = None if let_through else "read by another"
            elif placed:
                kind = "gated support" if not any(s for s, _ in placed) else "gated hidden"
            elif outline_ok:
                kind = "window off"
            elif overlaps:
                kind = "outline off"
            else:
                kind = "no outline"
            for tag in card_tags:
                row = table.setdefault(tag, Counter())
                row["readable"] += 1
                row["outline"] += outline_ok
                row["placed"] += let_through
                row["oracle"] += let_through or hit
                row["read"] += hit
                if kind is not None:
                    kinds.setdefault(tag, Counter())[kind] += 1
                elif not hit:
                    kinds.setdefault(tag, Counter())["read failed"] += 1
            if kind is not None and kind != "read by another":
                failures.append(
                    f"frame {i} {design} {truth.code} {size:.0f}px {kind} "
                    f"(outline {best_outline:.0%}, window {best_window:.0%}) "
                    f"[{' '.join(sorted(card_tags - {'all'}))}]"
                )
    print(
        f"frames {args.frames} seed {args.seed}  outline tol {args.tol:.0%}, window tol "
        f"{args.win_tol:.0%} of card height  detection CPU {1000 * cpu / args.frames:.1f} ms/frame"
    )
    print(f"wrong reads {score.wrong}  phantoms {score.phantom}  face errors {score.face_errors}")
    for line in score.wrongs:
        print("  wrong: " + line)
    heads = ("cards", "outline", "placed", "oracle", "read")
    print(f"{'tag':11s} " + " ".join(f"{h:>8s}" for h in heads) + "  failures")
    for tag in sorted(table, key=lambda t: (t != "all", t)):
        row = table[tag]
        n = row["readable"]
        kind_text = ", ".join(f"{k} {v}" for k, v in kinds.get(tag, Counter()).most_common())
        print(
            f"{tag:11s} {n:8d} {row['outline'] / n:8.1%} {row['placed'] / n:8.1%} "
            f"{row['oracle'] / n:8.1%} {row['read'] / n:8.1%}  {kind_text}"
        )
    for line in failures[: args.list]:
        print("  " + line)


if __name__ == "__main__":
    main()
