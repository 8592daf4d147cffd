"""What the table sees of a card lying still: confirmation over frames, against one frame's read.

The table does not act on one frame. `ZoneStabilizer` reports a zone's card once it read the
same in `FRAMES_REQUIRED` consecutive frames, and a shoe card must be confirmed within
`camera_confirm_seconds` (2 s at 5 fps: 10 frames, `studio run`'s defaults). This bench renders
each of the camera bench's random scenes (`bench/camera.py`, same styles) `--window` times,
only the sensor noise and felt texture changing, as for a card lying still (a scene's defocus
and motion blur stay: pessimistic for motion). Each reading is given the zone of the drawn card
it covers, the frames go through the table's own `ZoneStabilizer`, and a readable face-up card
counts as confirmed when a `CardSeen` with its code comes out within the window.

Prints, over the same frames: the per-frame recall (the baseline, as `bench/camera.py` counts
it), the share of cards confirmed within the window, and wrong confirmations (target zero).

    python bench/camera_still.py [--scenes 120] [--window 10] [--seed N] [--json]
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import cv2
import numpy as np
from camera import bench_recognizers, bench_scene

from drivers.camera.reading import CardReading
from drivers.camera.stability import ZoneStabilizer
from drivers.camera.synthetic.scene import RenderedFrame, render_scene
from drivers.camera.synthetic.scoring import Score, overlap


def zoned(frame: RenderedFrame, readings: list[CardReading]) -> list[CardReading]:
    """Each reading with the zone of the drawn card it covers ("0", "1", ...), others dropped."""
    out = []
    for r in readings:
        quad = np.array(r.corners)
        best = max(
            range(len(frame.cards)),
            key=lambda i: overlap(frame.cards[i].corners, quad),
            default=None,
        )
        if best is not None and overlap(frame.cards[best].corners, quad) > 0.5:
            out.append(r.model_copy(update={"zone": str(best)}))
    return out


def main() -> None:
    """Parse arguments, run, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=120, help="random scenes (both designs)")
    parser.add_argument("--window", type=int, default=10, help="frames per still scene")
    parser.add_argument("--seed", type=int, default=20261130, help="scene seed")
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    recognizers = bench_recognizers()
    rng = np.random.default_rng(args.seed)
    per_frame = Score()
    readable = confirmed = wrong = 0
    wrongs: list[str] = []
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for i in range(args.scenes):
        _, design, scene = bench_scene(rng, i)
        frames = [render_scene(replace(scene, seed=scene.seed + k)) for k in range(args.window)]
        zones = [str(k) for k in range(len(frames[0].cards))]
        stabilizer = ZoneStabilizer(zones)
        seen: dict[str, set[str]] = {z: set() for z in zones}
        for k, frame in enumerate(frames):
            readings = recognizers[design].recognize(frame.image)
            per_frame.add(frame, readings)
            for event in stabilizer.update(zoned(frame, readings), start + timedelta(seconds=k)):
                if event.face == "up" and event.card is not None:
                    seen[event.zone].add(event.card)
        for k, truth in enumerate(frames[0].cards):
            codes = seen[str(k)]
            if codes - {truth.code}:
                wrong += 1
                wrongs.append(f"{sorted(codes)} on {truth.code}")
            if truth.face_up and truth.readable:
                readable += 1
                confirmed += truth.code in codes
    result = {
        "scenes": args.scenes,
        "window_frames": args.window,
        "readable_cards": readable,
        "per_frame_recall": round(per_frame.recall, 4),
        "per_frame_wrong_reads": per_frame.wrong,
        "confirmed_within_window": round(confirmed / readable, 4) if readable else None,
        "wrong_confirmations": wrong,
        "wrongs": wrongs[:20],
    }
    print(f"{args.scenes} still scenes x {args.window} frames, {readable} readable face-up cards")
    print(
        f"one frame (baseline): recall {per_frame.recall:.2%}, wrong reads {per_frame.wrong}\n"
        f"the table's view ({args.window} frames, {ZoneStabilizer.__name__}): confirmed "
        f"{result['confirmed_within_window']:.2%}, wrong confirmations {wrong}"
    )
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
