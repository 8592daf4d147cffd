"""How far each side of a firm reading's outline lies from its card's paper edge, and why.

    python bench/firm_insets.py [--envelope studio|harsh] [--designs N | --seeds S ...]
                                [--frames N] [--seed N] [--frame-cache DIR] [--tol 0.02]
                                [--list N]

Runs the recognizer on the frames `bench/camera.py` draws with the same arguments (read back
from its `--frame-cache DIR`; `--seeds` picks tuning designs by seed instead of the first N,
and keys its frames the same way). For every coded reading made on a firm outline (`firm`, or
`extended`: a strip grown to a card) the outline read is laid on the drawn card, and each of
its four sides' distance from the card's edge is measured (at the side's two ends, as a share
of the card's height; positive inside the card). The sides are named from the corner read:
`top` (the end the index was read at), `left` (the long side beside that index), `right`,
`bottom`. A reading with a side `--tol` or more off (either way) is listed with the stage that
placed that side:

- `strip`: an extended strip (not fitted: its outline is the strip grown to the frame's size);
- `fit-line`: `outline_fit.fit_outlines` fitted the side on a step that is not the paper's edge;
- `fit-opposite`: the fit found no line there and moved it as far as the opposite side;
- and, for either fit kind, where the finder (`detect`) and `paper_edge.out_to_paper_edges`
  had put that side before the fit.

Prints counts of readings with a side off by cause and side (and of those whose read corner's
sides lie inside the card), the frames' recall, wrong reads and phantoms, and `--list`
readings one per line (those with the read corner's sides inside first).
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest.mock import patch

import cv2
import numpy as np
import numpy.typing as npt
from camera import calibrated_designs
from frame_cache import cached_render, frame_key

from calibration.profile import CalibrationProfile
from drivers.camera import outline_fit
from drivers.camera.detect import card_threshold, detect_cards
from drivers.camera.outline import portrait
from drivers.camera.paper_edge import out_to_paper_edges
from drivers.camera.reading import CardReading, ReadingSource
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic.envelopes import ENVELOPES
from drivers.camera.synthetic.generator import random_scene
from drivers.camera.synthetic.scene import RenderedFrame
from drivers.camera.synthetic.scoring import Score, card_height_px, overlap
from drivers.camera.synthetic.splits import SPLITS

SIDES = ("top", "right", "bottom", "left")
"""Side k runs from corner k to corner k + 1 of a quad whose corner 0 is the corner read."""


@dataclass(frozen=True, slots=True)
class Stages:
    """One firm outline as each stage left it (4 x 2 quads), and which sides the fit found."""

    found: npt.NDArray[Any]
    bordered: npt.NDArray[Any]
    fitted: npt.NDArray[Any]
    lined: tuple[bool, ...]
    partial: bool


def firm_stages(gray: Any, image: Any) -> list[Stages]:
    """The frame's firm outlines, as the finder, the border rule and the fit placed them."""
    seen: list[tuple[npt.NDArray[Any], npt.NDArray[Any]]] = []
    lined: list[tuple[bool, ...]] = []

    def bordered(quads: Any, raw: Any) -> Any:
        out = out_to_paper_edges(quads, raw)
        seen.extend(zip(np.asarray(quads, np.float64).reshape(-1, 4, 2), out, strict=True))
        return out

    fitted_corners = outline_fit._corners

    def corners(q: Any, d: Any, u: Any, normal: Any, got: Any, reach: Any) -> Any:
        lined.append(tuple(line is not None for line in got))
        return fitted_corners(q, d, u, normal, got, reach)

    with patch("drivers.camera.detect.out_to_paper_edges", bordered):
        found = detect_cards(gray, min_long_px=80.0, frame=image)
    thr = card_threshold(gray)
    out: list[Stages] = []
    for o in found.outlines:
        if o.partial:
            (placed,) = outline_fit.fitted_for_reading(gray, [o], thr)
            out.append(Stages(o.corners, o.corners, placed.corners, (False,) * 4, True))
            continue
        before = next((a for a, b in seen if _same(portrait(b), o.corners)), o.corners)
        lined.clear()
        with patch.object(outline_fit, "_corners", corners):
            fitted = outline_fit.fit_outline(gray, o.corners, thr)
        out.append(Stages(before, o.corners, fitted, lined[-1] if lined else (False,) * 4, False))
    return out


def _same(a: npt.NDArray[Any], b: npt.NDArray[Any]) -> bool:
    return bool(np.abs(np.asarray(a) - np.asarray(b)).max() < 1e-6)


def _rolled_like(quad: npt.NDArray[Any], ref: npt.NDArray[Any]) -> npt.NDArray[Any] | None:
    """`quad` rolled so its corners lie on `ref`'s (0.2 px), or None when it is another quad."""
    for k in range(4):
        r = np.roll(quad, -k, axis=0)
        if np.abs(r - ref).max() < 0.2:
            return r
    return None


def _aligned(quad: npt.NDArray[Any], ref: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """`quad`'s corners in the order that lays them nearest `ref`'s, either way round."""
    ways = [np.roll(q, -k, axis=0) for q in (quad, quad[::-1]) for k in range(4)]
    return min(ways, key=lambda r: float(np.linalg.norm(r - ref, axis=1).sum()))


def insets(quad: npt.NDArray[Any], truth: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """Per side of `quad` (corner 0 the read one), its distance inside `truth`'s side (pixels).

    `truth` is rolled to lie on `quad` corner for corner; each side's distance is the mean of
    its two ends' distances from the true side's line, positive inside the card.
    """
    t = min(
        (np.roll(truth, -k, axis=0) for k in range(4)),
        key=lambda r: float(np.linalg.norm(r - quad, axis=1).sum()),
    )
    centre = t.mean(axis=0)
    out = np.empty(4)
    for k in range(4):
        a, b = t[k], t[(k + 1) % 4]
        along = (b - a) / max(1e-9, float(np.linalg.norm(b - a)))
        normal = np.array([along[1], -along[0]])
        if float((centre - a) @ normal) < 0:
            normal = -normal
        ends = np.array([quad[k], quad[(k + 1) % 4]])
        out[k] = float(((ends - a) @ normal).mean())
    return out


@dataclass(frozen=True, slots=True)
class FirmInset:
    """One firm reading against its drawn card."""

    key: str
    code: str
    truth: str
    source: str
    size: float
    read: npt.NDArray[Any]
    """Per side (`SIDES`), the read outline's inset as a share of the card's height."""
    stages: npt.NDArray[Any] | None
    """Per stage (finder, border rule) and side, the inset before the fit."""
    lined: tuple[bool, ...]

    def causes(self, tol: float) -> list[str]:
        """Each side `tol` or more off: the stage that put it there, and the side."""
        out = []
        for k in np.flatnonzero(np.abs(self.read) >= tol):
            if self.source == ReadingSource.EXTENDED:
                stage = "strip"
            else:
                stage = "fit-line" if self.lined[k] else "fit-opposite"
            way = "in" if self.read[k] > 0 else "out"
            out.append(f"{stage} {SIDES[k]} {way}")
        return out


def frame_insets(
    key: str, frame: RenderedFrame, readings: list[CardReading], stages: list[Stages]
) -> list[FirmInset]:
    """Every firm coded reading of `frame` measured against the card it lies on."""
    out = []
    for r in readings:
        if r.code is None or r.source not in (ReadingSource.FIRM, ReadingSource.EXTENDED):
            continue
        quad = np.array(r.corners, np.float64)
        cards = [c for c in frame.cards if c.face_up]
        if not cards:
            continue
        card = max(cards, key=lambda c: overlap(c.corners, quad))
        size = card_height_px(card)
        match = [
            (s, rolled) for s in stages if (rolled := _rolled_like(s.fitted, quad)) is not None
        ]
        stage_insets = None
        lined: tuple[bool, ...] = (False,) * 4
        if match:
            s, rolled = match[0]
            turn = next(k for k in range(4) if _same(np.roll(s.fitted, -k, axis=0), rolled))
            lined = tuple(np.roll(np.array(s.lined), -turn).tolist())
            stage_insets = (
                np.array([insets(_aligned(q, rolled), card.corners) for q in (s.found, s.bordered)])
                / size
            )
        out.append(
            FirmInset(
                key, r.code, card.code, str(r.source), size,
                insets(quad, card.corners) / size, stage_insets, lined,
            )
        )  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--envelope", choices=("studio", "harsh"), default="studio")
    parser.add_argument("--designs", type=int, default=4, help="first N tuning designs")
    parser.add_argument("--seeds", type=int, nargs="*", help="tuning design seeds instead")
    parser.add_argument("--frames", type=int, default=120)
    parser.add_argument("--seed", type=int, default=20261129, help="scene seed")
    parser.add_argument("--frame-cache", type=Path)
    parser.add_argument("--tol", type=float, default=0.02)
    parser.add_argument("--list", type=int, default=30)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    seeds = tuple(args.seeds) if args.seeds else SPLITS["tuning"][: args.designs]
    if any(s not in SPLITS["tuning"] for s in seeds):
        parser.error("only tuning designs are measured here")
    per_design = max(1, args.frames // len(seeds))
    everything: list[FirmInset] = []
    score = Score()
    for design_seed, design, deck, templates in calibrated_designs(seeds):
        recognizer = CardRecognizer(CalibrationProfile(deck=deck), templates)
        rng = np.random.default_rng([args.seed, design_seed])
        mine: list[FirmInset] = []
        for index in range(per_design):
            scene = random_scene(rng, ENVELOPES[args.envelope], design)
            key = frame_key(design.name, args.envelope, args.seed, index)
            frame = cached_render(scene, args.frame_cache, key)
            readings = recognizer.recognize(frame.image)
            score.add(frame, readings)
            gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
            mine += frame_insets(key, frame, readings, firm_stages(gray, frame.image))
        off = [f for f in mine if np.abs(f.read).max() >= args.tol]
        wrong = [f for f in mine if f.code != f.truth]
        print(
            f"  {design.name}: firm readings {len(mine)}, a side {args.tol:.0%}+ off {len(off)}, "
            f"wrong {len(wrong)}",
            flush=True,
        )
        everything += mine
    off = [f for f in everything if np.abs(f.read).max() >= args.tol]
    top_in = [f for f in everything if f.read[0] >= args.tol or f.read[3] >= args.tol]
    print(
        f"tuning/{args.envelope}: firm readings {len(everything)}, a side {args.tol:.0%}+ off "
        f"{len(off)}, the read corner's sides {args.tol:.0%}+ in {len(top_in)}, wrong "
        f"{sum(f.code != f.truth for f in everything)}; all readings: readable {score.readable} "
        f"recall {score.recall:.2%} wrong {score.wrong} phantoms {score.phantom}"
    )
    for line in score.wrongs:
        print(f"    wrong: {line}")
    causes = Counter(c for f in off for c in f.causes(args.tol))
    for cause, n in causes.most_common():
        print(f"    {cause:28s} {n}")
    print("  the read corner's sides in, by cause:")
    inward = Counter(
        c for f in top_in for c in f.causes(args.tol) if c.endswith(("top in", "left in"))
    )
    for cause, n in inward.most_common():
        print(f"    {cause:28s} {n}")
    first = {id(f) for f in top_in}
    shown = top_in + [f for f in off if id(f) not in first]
    for f in shown[: args.list]:
        stages = (
            ""
            if f.stages is None
            else " finder " + _fmt(f.stages[0]) + " border " + _fmt(f.stages[1])
        )
        mark = "" if f.code == f.truth else f" WRONG({f.truth})"
        print(
            f"  {f.key:24s} {f.code}{mark} {f.source:8s} {f.size:4.0f}px read {_fmt(f.read)}"
            f"{stages} lined {''.join('+' if x else '-' for x in f.lined)}"
        )


def _fmt(v: npt.NDArray[Any]) -> str:
    """Per side insets (top right bottom left) in percent of the card's height."""
    return "/".join(f"{100 * x:+.1f}" for x in v)


if __name__ == "__main__":
    main()
