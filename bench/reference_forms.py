"""Deck calibration from reference images in the forms studios and card packages give them.

Every other figure calibrates from our own renders (`synthetic/reference.py`: "scan", cropped to
the card, or "photo", on a plain dark background). This bench writes the 52 references of each
of the first N tuning designs in other forms made from the design's flat renders (PNG with an
alpha channel and transparent rounded corners or margin, thumbnails and large scans, a white
margin, a thin dark outline, JPEG, a slight tilt on a light or textured background), calibrates
each through `studio calibrate deck`'s code path (`calibrate_deck` on the directory, then the
command's check that the deck reads its own references back), and reads the same frames with
each calibration. Per form it prints the calibration's refusal or the recall, wrong reads,
phantoms and faces called down, against the baseline form ("scan", the one `bench/camera.py`
calibrates from, whose trained readers are therefore already in the model cache).

Before any training it prints, per form, how far the flattened references lie from the
baseline's (`flatten_card(read_reference(...))`, mean absolute difference in grey levels over the
whole card and over the baseline's index window), which shows in seconds a form the calibration
would flatten wrong; `--flats-only` stops there.

    python bench/reference_forms.py [--designs N] [--forms F ...] [--frames-per-design N]
                                    [--seed S] [--frame-cache DIR] [--flats-only]

With `--seed 20261211 --frames-per-design 30 --frame-cache /tmp/frames-studio-20261211` it reads
the shared small studio cache's frames of its first designs (nothing is written there: each
frame is already stored). Each form's calibration trains the deck's reader once (about a minute
of CPU, cached by content in `~/.cache/studio`), so a repeated run is cheap.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np
from camera import tags_for
from frame_cache import cached_render, frame_key

from calibration.deck import calibrate_deck, flatten_card, read_reference, reference_images
from calibration.errors import CalibrationError
from calibration.profile import CalibrationProfile, DeckCalibration, DeckTemplates
from drivers.camera.classify import IndexClassifier
from drivers.camera.recognizer import CardRecognizer, corner_window
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.envelopes import ENVELOPES
from drivers.camera.synthetic.faces import Image
from drivers.camera.synthetic.generator import random_scene
from drivers.camera.synthetic.reference_forms import FORMS, write_form
from drivers.camera.synthetic.scoring import Score
from drivers.camera.synthetic.splits import SPLITS
from studio.config import cache_dir


def flats(directory: Path) -> dict[str, Image]:
    """The 52 references in `directory` read and flattened as calibration does."""
    return {
        code: flatten_card(read_reference(path), code)
        for code, path in reference_images(directory).items()
    }


def check_references(directory: Path, deck: DeckCalibration, templates: DeckTemplates) -> list[str]:
    """The cards `studio calibrate deck` would refuse because the deck misreads them."""
    classifier = IndexClassifier(deck, templates)
    wrong = []
    for code, flat in flats(directory).items():
        read = classifier.read(corner_window(flat, deck.index_window))
        if read is None or read.code != code:
            wrong.append(f"{code}->{(read.code if read is not None else None) or 'none'}")
    return wrong


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--designs", type=int, default=1, help="first N tuning designs")
    parser.add_argument("--forms", nargs="+", choices=sorted(FORMS), default=list(FORMS))
    parser.add_argument("--frames-per-design", type=int, default=30)
    parser.add_argument("--seed", type=int, default=20261211)
    parser.add_argument("--frame-cache", type=Path)
    parser.add_argument("--flats-only", action="store_true")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    forms = ["scan", *[f for f in args.forms if f != "scan"]]
    seeds = SPLITS["tuning"][: args.designs]
    envelope = "studio"
    style = ENVELOPES[envelope]
    totals = {form: Score() for form in forms}
    refused: dict[str, list[str]] = {form: [] for form in forms}
    with tempfile.TemporaryDirectory(prefix="reference-forms-") as tmp:
        for design_seed in seeds:
            design = deckgen.design(design_seed)
            print(f"{design.name}:", flush=True)
            base_dir = Path(tmp) / design.name / "scan"
            write_form(base_dir, design, "scan")
            base = flats(base_dir)
            frames = []
            if not args.flats_only:
                rng = np.random.default_rng([args.seed, design_seed])
                for index in range(args.frames_per_design):
                    scene = random_scene(rng, style, design)
                    frame = cached_render(
                        scene, args.frame_cache, frame_key(design.name, envelope, args.seed, index)
                    )
                    frames.append((scene, frame))
            for form in forms:
                folder = Path(tmp) / design.name / form
                write_form(folder, design, form)
                try:
                    got = flats(folder)
                except CalibrationError as err:
                    print(f"  {form:15s} flattening refused: {err}", flush=True)
                    refused[form].append(f"{design.name}: {err}")
                    continue
                whole = np.mean(
                    [np.abs(got[c].astype(float) - base[c].astype(float)).mean() for c in base]
                )
                line = f"  {form:15s} flat drift {whole:5.1f} grey levels"
                if args.flats_only:
                    print(line, flush=True)
                    continue
                began = time.perf_counter()
                try:
                    deck, templates = calibrate_deck(folder, model_cache=cache_dir())
                except CalibrationError as err:
                    print(f"{line}  CALIBRATION REFUSED: {err}", flush=True)
                    refused[form].append(f"{design.name}: {err}")
                    continue
                spent = time.perf_counter() - began
                recognizer = CardRecognizer(CalibrationProfile(deck=deck), templates)
                misread = check_references(folder, deck, templates)
                if misread:
                    note = f"the deck misreads its own references: {' '.join(misread)}"
                    print(f"{line}  CALIBRATION REFUSED: {note}", flush=True)
                    refused[form].append(f"{design.name}: {note}")
                    continue
                score = Score()
                for scene, frame in frames:
                    readings = recognizer.recognize(frame.image)
                    tags = tags_for(scene, frame, style.height)
                    score.add(frame, readings, tags)
                    totals[form].add(frame, readings, tags)
                print(
                    f"{line}  window {tuple(round(v, 3) for v in deck.index_window)} "
                    f"aspect {deck.card_aspect:.3f}  recall {score.recall:6.1%} "
                    f"({score.read}/{score.readable}) wrong {score.wrong} "
                    f"phantoms {score.phantom} faces down {score.face_errors}"
                    + (f"  calibrated in {spent:.0f} s" if spent > 1 else ""),
                    flush=True,
                )
    if args.flats_only:
        return
    print(f"all {len(seeds)} designs, {args.frames_per_design} frames each (studio envelope):")
    base_score = totals["scan"]
    for form in forms:
        s = totals[form]
        if refused[form]:
            print(f"  {form:15s} refused on {len(refused[form])} design(s): {refused[form][0]}")
            continue
        print(
            f"  {form:15s} readable {s.readable}  recall {s.recall:.2%} "
            f"({s.recall - base_score.recall:+.2%})  wrong {s.wrong}  phantoms {s.phantom}  "
            f"faces called down {s.face_errors}   {FORMS[form][0]}"
        )


if __name__ == "__main__":
    main()
