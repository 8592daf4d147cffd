"""`studio recognize --profile PROFILE IMAGE... [--json] [--debug DIR]`: read cards in stills.

With `--json`, prints one JSON line per image: {"image": path, "cards": [{"code": "AS" or null,
"face_down": bool, "corners": [[x, y] x 4], "confidence": float, "zone": name or null}]}. Other
tools parse this line: keep its shape. Without `--json`, prints a short human summary per image.
`--debug DIR` also writes each image into DIR (created if missing) as `NNNN-NAME.png` with the
outlines, codes, confidences and zones drawn (`drivers.camera.overlay`); the output is the same.
Progress over many images shows on stderr (a bar on a terminal, else a line every few seconds).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.profile import CalibrationProfile, load_profile
from calibration.table import TableGeometry
from drivers.camera.errors import RecognizerConfigurationError
from drivers.camera.overlay import draw_readings
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.tuning import INDEX_READERS
from studio.commands.images import read_image
from studio.commands.progress import ProgressReport
from studio.errors import InputError


def register(sub: Any) -> None:
    """Add the `recognize` subcommand to the `studio` parser's subparsers."""
    parser = sub.add_parser("recognize", help="read the cards in still images with a profile")
    parser.add_argument("--profile", required=True, type=Path, help="profile directory")
    parser.add_argument("images", nargs="+", type=Path, metavar="IMAGE")
    parser.add_argument("--json", action="store_true", help="one JSON line per image")
    parser.add_argument(
        "--debug",
        type=Path,
        metavar="DIR",
        help="write each image with outlines, codes, confidences and zones drawn into DIR",
    )
    parser.add_argument(
        "--reader",
        choices=sorted(INDEX_READERS),
        default="learned",
        help="what decides a corner's code (default: learned, the deck's network)",
    )
    parser.set_defaults(run=run)


def _image_zones(profile: CalibrationProfile) -> list[tuple[str, npt.NDArray[Any]]]:
    """The profile's zones in image pixels (none without a table calibration)."""
    geometry = TableGeometry.from_profile(profile)
    if geometry is None:
        return []
    return [(z.name, geometry.to_image(np.array(z.polygon, np.float64))) for z in profile.zones]


def run(args: argparse.Namespace) -> int:
    """Recognise every image; raise `InputError` for an unreadable image."""
    profile, templates = load_profile(args.profile)
    try:
        recognizer = CardRecognizer(profile, templates, reader=args.reader)
    except RecognizerConfigurationError as err:
        raise InputError(str(err)) from err
    zones = _image_zones(profile)
    if args.debug is not None:
        try:
            args.debug.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise InputError(f"cannot create --debug directory {args.debug}: {err}") from err
    with ProgressReport("recognize", unit="images") as progress:
        for number, path in enumerate(args.images):
            progress(number, len(args.images))
            _recognize_one(args, recognizer, zones, number, path)
        progress(len(args.images), len(args.images))
    return 0


def _recognize_one(
    args: argparse.Namespace,
    recognizer: CardRecognizer,
    zones: list[tuple[str, npt.NDArray[Any]]],
    number: int,
    path: Path,
) -> None:
    """Read the image at `path` and print (and with `--debug` draw) what was found."""
    frame = read_image(path)
    cards = recognizer.recognize(frame)
    if args.debug is not None:
        picture = args.debug / f"{number:04d}-{path.stem}.png"
        if not cv2.imwrite(str(picture), draw_readings(frame, cards, zones)):
            raise InputError(f"cannot write {picture}")
    if args.json:
        line = {
            "image": str(path),
            "cards": [
                {
                    "code": c.code,
                    "face_down": c.face_down,
                    "corners": [list(p) for p in c.corners],
                    "confidence": c.confidence,
                    "zone": c.zone,
                }
                for c in cards
            ],
        }
        print(json.dumps(line), flush=True)
    else:
        names = [c.code or ("back" if c.face_down else "unknown") for c in cards]
        print(f"{path}: {len(cards)} card(s): {' '.join(names) or '-'}")
