"""`studio calibrate deck|table|lens`: build or update a calibration profile directory.

- `deck --images DIR --out PROFILE`: learn rank and suit templates from 52 card images named by
  code, then check that every reference card reads back as itself.
- `table --image FRAME --game GAME --profile PROFILE [--points ...]`: fit the image-to-table
  homography from ArUco markers (or four given image points of the layout corners), place the
  game's zones from its positions, and write a picture of the zones over the frame.
- `lens IMAGES... --profile PROFILE`: fit intrinsics from chessboard images, enforcing a limit.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from calibration.deck import calibrate_deck, flatten_card, read_reference, reference_images
from calibration.errors import DeckCalibrationError
from calibration.profile import load_or_new, save_profile
from drivers.camera.classify import IndexClassifier
from drivers.camera.recognizer import corner_window


def register(sub: Any) -> None:
    """Add the `calibrate` subcommand (with deck, table and lens) to the `studio` parser."""
    parser = sub.add_parser("calibrate", help="calibrate the camera: deck, table, lens")
    jobs = parser.add_subparsers(dest="job", required=True, metavar="JOB")
    deck = jobs.add_parser("deck", help="learn the deck's index templates from 52 card images")
    deck.add_argument("--images", required=True, type=Path, help="directory of AS.png, TD.jpg...")
    deck.add_argument("--out", required=True, type=Path, help="profile directory to write")
    deck.set_defaults(run=run_deck)


def run_deck(args: argparse.Namespace) -> int:
    """Learn the deck, verify it reads all 52 references, and save it into the profile."""
    deck, templates = calibrate_deck(args.images)
    classifier = IndexClassifier(deck, templates)
    wrong = []
    for code, path in reference_images(args.images).items():
        flat = flatten_card(read_reference(path), code)
        read = classifier.read(corner_window(flat, deck.index_window))
        if read is None or read.code != code:
            wrong.append(f"{code}->{read.code if read else 'none'}")
    if wrong:
        raise DeckCalibrationError(
            f"the learned deck misreads its own references: {' '.join(wrong)}"
        )
    profile, _ = load_or_new(args.out)
    profile = profile.model_copy(update={"deck": deck})
    save_profile(args.out, profile, templates)
    print(f"deck calibrated from 52 cards into {args.out} (index window {deck.index_window})")
    return 0
