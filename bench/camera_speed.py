"""Recognition speed at 1080p on one core, beside the 30 fps target, with where the time goes.

Each design of a split (tuning by default: speed work is tuned there) is calibrated as
`bench/camera.py` does (cached after the first time), scenes of an envelope (1-9 cards at
1920x1080, `drivers/camera/synthetic/envelopes.py`) are rendered first, then each frame is
recognised with OpenCV and onnxruntime on one thread. Times are CPU seconds of this process
(`time.process_time`), so other jobs on a shared machine slow them less than wall-clock time;
the wall-clock figure is printed too. Per envelope: recognition ms per frame (mean, median,
90th percentile), fps from the mean (target >= 30), and the finder alone
(`detect_cards`, the outline stage every frame pays).

    python bench/camera_speed.py [--split tuning|test] [--envelope studio|harsh|both]
                                 [--designs N] [--frames N] [--seed N] [--json]
"""

from __future__ import annotations

import argparse
import json
import time

import cv2
import numpy as np
from camera import calibrate_design

from drivers.camera.detect import detect_cards
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.envelopes import ENVELOPES
from drivers.camera.synthetic.generator import random_scene
from drivers.camera.synthetic.scene import render_scene
from drivers.camera.synthetic.splits import SPLITS

TARGET_FPS = 30.0
"""1080p frames with up to 9 cards, recognised on one core."""


def run(split: str, env: str, designs: int, frames: int, seed: int) -> dict[str, float]:
    """Time recognition of `frames` scenes of `env` spread over the first `designs` designs."""
    work: list[tuple[CardRecognizer, np.ndarray]] = []
    for design_seed in SPLITS[split][:designs]:
        design = deckgen.design(design_seed)
        recognizer, failure = calibrate_design(design)
        if recognizer is None:
            print(f"  gen-{design_seed}: calibration failed ({failure}); left out")
            continue
        rng = np.random.default_rng([seed, design_seed])
        for _ in range(max(1, frames // designs)):
            work.append((recognizer, render_scene(random_scene(rng, ENVELOPES[env], design)).image))
    if not work:
        raise SystemExit("no design calibrated")
    work[0][0].recognize(work[0][1])  # first call loads the models
    cpu: list[float] = []
    wall = time.perf_counter()
    for recognizer, image in work:
        start = time.process_time()
        recognizer.recognize(image)
        cpu.append(time.process_time() - start)
    wall = time.perf_counter() - wall
    finder: list[float] = []
    for _, image in work:
        start = time.process_time()
        detect_cards(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), min_long_px=80.0, frame=image)
        finder.append(time.process_time() - start)
    ms = np.array(cpu) * 1000
    return {
        "frames": len(work),
        "mean_ms": round(float(ms.mean()), 1),
        "median_ms": round(float(np.median(ms)), 1),
        "p90_ms": round(float(np.percentile(ms, 90)), 1),
        "fps_cpu": round(1000 / float(ms.mean()), 1),
        "fps_wall": round(len(work) / wall, 1),
        "detect_ms": round(1000 * float(np.mean(finder)), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--split", choices=("tuning", "test"), default="tuning")
    parser.add_argument("--envelope", choices=("studio", "harsh", "both"), default="both")
    parser.add_argument("--designs", type=int, default=2, help="first N designs of the split")
    parser.add_argument("--frames", type=int, default=40, help="frames per envelope")
    parser.add_argument("--seed", type=int, default=20261205, help="scene seed")
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    envelopes = ("studio", "harsh") if args.envelope == "both" else (args.envelope,)
    out = {}
    for env in envelopes:
        r = run(args.split, env, args.designs, args.frames, args.seed)
        out[f"{args.split}/{env}"] = r
        print(
            f"{args.split}/{env}: {r['frames']} frames at 1920x1080, 1-9 cards: recognize "
            f"{r['mean_ms']} ms CPU/frame (median {r['median_ms']}, p90 {r['p90_ms']}) = "
            f"{r['fps_cpu']} fps (target >= {TARGET_FPS:.0f}); wall {r['fps_wall']} fps; "
            f"detect_cards {r['detect_ms']} ms"
        )
    if args.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
