"""The work of `studio recognize`: read every image with a profile, print and draw the cards.

Apart from `studio.commands.recognize` (its options and contract), so that `--help` loads
neither OpenCV nor the recognizer.
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
from studio.commands.images import read_image
from studio.commands.progress import ProgressReport
from studio.errors import InputError


def _image_zones(profile: CalibrationProfile) -> list[tuple[str, npt.NDArray[Any]]]:
    """The profile's zones in image pixels (none without a table calibration)."""
    geometry = TableGeometry.from_profile(profile)
    if geometry is None:
        return []
    return [(z.name, geometry.to_image(np.array(z.polygon, np.float64))) for z in profile.zones]


def recognize(args: argparse.Namespace) -> int:
    """Recognise every image (`studio recognize`); raise `InputError` for an unreadable image."""
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
