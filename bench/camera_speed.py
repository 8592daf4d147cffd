"""Recognition speed at 1080p on one core, beside the 30 fps target, with where the time goes.

Each design of a split (tuning by default: speed work is tuned there) is calibrated as
`bench/camera.py` does (cached after the first time), scenes of an envelope (1-9 cards at
1920x1080, `drivers/camera/synthetic/envelopes.py`) are rendered first, then each frame is
recognised with OpenCV and onnxruntime on one thread. Times are CPU seconds of this process
(`time.process_time`), so other jobs on a shared machine slow them less than wall-clock time;
the wall-clock figure is printed too. Per envelope: recognition ms per frame (mean, median,
90th percentile), fps from the mean (target >= 30), the mean by the number of cards the scene
holds (the target counts up to 9; the envelopes draw 1-9 a scene, evenly), and the
finder alone (`detect_cards`, the outline stage every frame pays).

Then where a frame's time goes: the same frames are recognised again under cProfile (CPU
clock), and each stage's share of that run is printed as ms of the unprofiled mean: the finder
(`detect_cards`), row proposals, snapping unread outlines onto edges, edge maps of open regions,
the learned index-corner detector (finding, vouching for and placing again index corners), the
dense index-corner detector (its network round the open regions, decoding, sizing, and leaving
out windows read already; its corners' vouching counts as the detector's),
fitting firm outlines onto the paper's edge, anchoring guesses on the paper's corner, the
bookkeeping of guesses (which index corners are read already, merging, the card sizes of
regions, the parts of strips in view), then the reading of index corners split into cutting the
windows, making the network's inputs (`window_tensors`, and the moved cuts of
`ReaderTuning.moved`), the network itself (onnxruntime) and deciding each card (paper shares
included); "other" is the rest (the frame's grey copy and threshold, region areas, the Python
between the stages). Also per frame: corners cut, network inputs made and network calls.

With `--still N`, also a video-like sequence beside the independent frames: each of `--scenes`
scenes is shown still for N frames, then with one face-up card replaced by another card at the
same place for N frames, then with that card taken away for N frames; every frame is rendered
afresh (its own sensor noise and JPEG, the felt's texture kept, as a real table's). The same
frames are read three times: by the recognizer alone, through `StillRecognizer` reading every
changed picture whole (`reuse_whole`), and through it as `studio run` reads (`reuse`: a frame
whose block means moved less than `STILL_TOLERANCE` from the frame last read reuses that read,
and a picture changed from a settled one is read in its changed parts where the recognizer has
a table calibration; these scenes have none, so `reuse` reads changes whole too, and the two
should agree: `CardRecognizer.reads_parts`). Each is scored against
the drawn cards: CPU ms per frame, recall, wrong reads, phantoms, reads made in parts, and how
many frames right after a change were answered from an old read (must be 0).

    python bench/camera_speed.py [--split tuning|test] [--envelope studio|harsh|both]
                                 [--designs N] [--frames N] [--seed N] [--json]
                                 [--still N [--scenes N]]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import time
from dataclasses import replace

import cv2
import numpy as np
from camera import calibrate_design

from drivers.camera.detect import detect_cards
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.still import StillRecognizer
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.envelopes import ENVELOPES
from drivers.camera.synthetic.generator import random_scene
from drivers.camera.synthetic.scene import RenderedFrame, Scene, render_scene
from drivers.camera.synthetic.scoring import Score
from drivers.camera.synthetic.splits import SPLITS
from studio.cards import DECK

TARGET_FPS = 30.0
"""1080p frames with up to 9 cards, recognised on one core."""

STAGES: dict[str, tuple[tuple[str, str, str | None], ...]] = {
    "finder": (("detect.py", "detect_cards", "_recognize"),),
    "proposals": (("proposals.py", "propose", "_recognize"),),
    "snapping": (("proposals.py", "snap_outline", "<listcomp>"),),
    "region edges": (("edges.py", "local_edges", "region_edges"),),
    "corner detector": (
        ("finder.py", "detected_corners", "_recognize"),
        ("finder.py", "confirmed_corners", "_recognize"),
        ("finder.py", "refined_corners", "_read_again"),
    ),
    "dense corners": (
        ("finder.py", "dense_found_corners", "_recognize"),
        ("finder.py", "not_read_again", "_recognize"),
    ),
    "outline fitting": (("outline_fit.py", "fitted_for_reading", "_read_many"),),
    "anchoring": (("finder.py", "anchored", "_recognize"),),
    "guess bookkeeping": (
        ("guesses.py", "off_read_indices", None),
        ("guesses.py", "merge_guesses", "_recognize"),
        ("recognizer.py", "_without_repeats", "_recognize"),
        ("visible.py", "visible_part", None),
        ("finder.py", "region_heights", "_recognize"),
    ),
    "corner cuts": (
        ("recognizer.py", "_corner", None),
        ("recognizer.py", "_window_visible", None),
    ),
    "network inputs": (
        ("classify.py", "window_tensors", None),
        ("~", "<warpAffine>", "_moved"),
    ),
    "network": (("index_model.py", "probabilities", None),),
    "deciding": (("recognizer.py", "_decide", None), ("classify.py", "_decide", None)),
}
"""Each stage of `CardRecognizer.recognize` as (file, function, caller or None for any) whose
cumulative profiled time it is; the entries do not nest in one another."""


def _stage_ms(
    stats: pstats.Stats, mean_ms: float
) -> tuple[dict[str, float], dict[str, int], list[str]]:
    """Each stage's share of the profiled `recognize` time, as ms of `mean_ms`; call counts; and
    the `STAGES` entries no profiled call matched.

    An entry matching nothing is named rather than counted as 0 ms: a renamed function or caller
    would otherwise move its stage's time into "other" unseen (as `recognize` -> `_recognize`
    once did to the finder's 18 ms).
    """
    table = stats.stats  # type: ignore[attr-defined]  # pstats keeps its table undocumented
    total = sum(ct for (f, _, n), (_, _, _, ct, _) in table.items() if n == "recognize")
    shares: dict[str, float] = {}
    unseen: list[str] = []
    for stage, entries in STAGES.items():
        spent = 0.0
        for file, name, caller in entries:
            seen = False
            for (f, _, n), (_, _, _, ct, callers) in table.items():
                if n != name or not f.endswith(file):
                    continue
                if caller is None:
                    spent += ct
                    seen = True
                else:
                    by = [c[3] for (_, _, cn), c in callers.items() if cn == caller]
                    spent += sum(by)
                    seen = seen or bool(by)
            if not seen:
                unseen.append(f"{file}:{name}" + (f" from {caller}" if caller else ""))
        shares[stage] = spent
    shares["other"] = max(0.0, total - sum(shares.values()))
    ms = {k: round(mean_ms * v / max(total, 1e-9), 1) for k, v in shares.items()}

    def calls(file: str, name: str) -> int:
        return sum(
            nc for (f, _, n), (_, nc, _, _, _) in table.items() if n == name and f.endswith(file)
        )

    counts = {
        "corners": calls("recognizer.py", "_corner"),
        # Every window cut is made into an input: the corners' own and their moved cuts.
        "inputs": calls("recognizer.py", "_corner") + calls("~", "<warpAffine>"),
        "network_calls": calls("index_model.py", "probabilities"),
    }
    return ms, counts, unseen


def run(split: str, env: str, designs: int, frames: int, seed: int) -> dict[str, object]:
    """Time recognition of `frames` scenes of `env` spread over the first `designs` designs."""
    work: list[tuple[CardRecognizer, np.ndarray]] = []
    cards: list[int] = []  # each frame's drawn cards, face up or down
    for design_seed in SPLITS[split][:designs]:
        design = deckgen.design(design_seed)
        recognizer, failure = calibrate_design(design)
        if recognizer is None:
            print(f"  gen-{design_seed}: calibration failed ({failure}); left out")
            continue
        rng = np.random.default_rng([seed, design_seed])
        for _ in range(max(1, frames // designs)):
            scene = random_scene(rng, ENVELOPES[env], design)
            work.append((recognizer, render_scene(scene).image))
            cards.append(len(scene.cards))
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
    profile = cProfile.Profile(time.process_time)
    profile.enable()
    for recognizer, image in work:
        recognizer.recognize(image)
    profile.disable()
    ms = np.array(cpu) * 1000
    stages, counts, unseen = _stage_ms(pstats.Stats(profile), float(ms.mean()))
    return {
        "frames": len(work),
        "mean_ms": round(float(ms.mean()), 1),
        "median_ms": round(float(np.median(ms)), 1),
        "p90_ms": round(float(np.percentile(ms, 90)), 1),
        "fps_cpu": round(1000 / float(ms.mean()), 1),
        "fps_wall": round(len(work) / wall, 1),
        "detect_ms": round(1000 * float(np.mean(finder)), 1),
        "by_cards": by_cards(cards, ms),
        "stages_ms": stages,
        "stages_unseen": unseen,
        "per_frame": {k: round(v / len(work), 1) for k, v in counts.items()},
    }


def by_cards(cards: list[int], ms: np.ndarray) -> dict[int, tuple[int, float]]:
    """Per number of cards in a scene: how many frames held that many, and their mean ms."""
    held = np.array(cards)
    return {
        n: (int((held == n).sum()), round(float(ms[held == n].mean()), 1))
        for n in sorted(set(cards))
    }


def still_sequence(scene: Scene, window: int, rng: np.random.Generator) -> list[RenderedFrame]:
    """`scene` still for `window` frames, then one face-up card replaced, then taken away.

    Each frame has its own sensor noise (seed); the felt's texture is the scene's throughout.
    """
    scene = replace(scene, felt_seed=scene.seed)
    up = [k for k, c in enumerate(scene.cards) if c.face_up]
    phases = [scene]
    if up:
        k = up[int(rng.integers(len(up)))]
        others = [c for c in DECK if c.code not in {p.card.code for p in scene.cards}]
        cards = list(scene.cards)
        cards[k] = replace(cards[k], card=others[int(rng.integers(len(others)))])
        phases.append(replace(scene, cards=tuple(cards)))
        phases.append(replace(scene, cards=tuple(cards[:k] + cards[k + 1 :])))
    return [
        render_scene(replace(p, seed=scene.seed + 1000 * n + i))
        for n, p in enumerate(phases)
        for i in range(window)
    ]


STILL_READS = ("independent", "reuse_whole", "reuse")
"""How the video-like run reads its frames: each on its own; through `StillRecognizer` reading a
changed picture whole; through it as `studio run` reads (a changed picture in its changed parts)."""


def run_still(
    split: str, env: str, designs: int, scenes: int, window: int, seed: int
) -> dict[str, object]:
    """Read video-like sequences (`still_sequence`) frame by frame, with and without reuse."""
    sequences: list[tuple[CardRecognizer, list[RenderedFrame]]] = []
    for design_seed in SPLITS[split][:designs]:
        design = deckgen.design(design_seed)
        recognizer, _ = calibrate_design(design)
        if recognizer is None:
            continue
        rng = np.random.default_rng([seed, design_seed, window])
        for _ in range(max(1, scenes // designs)):
            scene = random_scene(rng, ENVELOPES[env], design)
            sequences.append((recognizer, still_sequence(scene, window, rng)))
    out: dict[str, object] = {"scenes": len(sequences), "window": window}
    for label in STILL_READS:
        score = Score()
        cpu: list[float] = []
        stale = reused = parts = 0
        for recognizer, frames in sequences:
            still = StillRecognizer(recognizer, parts=label == "reuse")
            for i, frame in enumerate(frames):
                start = time.process_time()
                if label != "independent":
                    before = still.reuses
                    readings = still.recognize(frame.image)
                    again = still.reuses > before
                    reused += again
                    # The first frame of a phase shows a change: it must be read afresh.
                    stale += again and i % window == 0
                else:
                    readings = recognizer.recognize(frame.image)
                cpu.append(time.process_time() - start)
                score.add(frame, readings)
            parts += still.part_reads
        ms = np.array(cpu) * 1000
        out[label] = {
            "frames": len(cpu),
            "mean_ms": round(float(ms.mean()), 1),
            "fps_cpu": round(1000 / float(ms.mean()), 1),
            "reused_frames": reused,
            "part_reads": parts,
            "stale_after_change": stale,
            "recall": round(score.recall, 4),
            "readable": score.readable,
            "wrong": score.wrong,
            "phantoms": score.phantom,
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--split", choices=("tuning", "test"), default="tuning")
    parser.add_argument("--envelope", choices=("studio", "harsh", "both"), default="both")
    parser.add_argument("--designs", type=int, default=2, help="first N designs of the split")
    parser.add_argument("--frames", type=int, default=40, help="frames per envelope")
    parser.add_argument("--seed", type=int, default=20261205, help="scene seed")
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument(
        "--still", type=int, default=0, help="also a video-like run: N frames per still phase"
    )
    parser.add_argument("--scenes", type=int, default=6, help="scenes of the video-like run")
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
        cards, stages, n = r["by_cards"], r["stages_ms"], r["per_frame"]
        assert isinstance(cards, dict) and isinstance(stages, dict) and isinstance(n, dict)
        print(
            "  ms/frame by cards in the scene (frames): "
            + ", ".join(f"{k}: {m} ({f})" for k, (f, m) in cards.items())
        )
        print("  ms/frame by stage: " + ", ".join(f"{k} {v}" for k, v in stages.items()))
        if r["stages_unseen"]:
            print(f"  stage entries no profiled call matched (renamed?): {r['stages_unseen']}")
        print(
            f"  per frame: {n['corners']} corners cut, {n['inputs']} network inputs, "
            f"{n['network_calls']} network calls"
        )
        if args.still:
            v = run_still(args.split, env, args.designs, args.scenes, args.still, args.seed)
            out[f"{args.split}/{env}/still"] = v
            for label in STILL_READS:
                f = v[label]
                assert isinstance(f, dict)
                print(
                    f"  video-like, {v['scenes']} scenes x 3 phases x {v['window']} frames, "
                    f"{label}: {f['mean_ms']} ms CPU/frame = {f['fps_cpu']} fps; recall "
                    f"{f['recall']:.2%} of {f['readable']}, wrong {f['wrong']}, phantoms "
                    f"{f['phantoms']}; reused {f['reused_frames']} frames, read"
                    f" {f['part_reads']} in parts, {f['stale_after_change']} stale after a change"
                )
    if args.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
