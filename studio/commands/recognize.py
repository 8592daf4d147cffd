"""`studio recognize --profile PROFILE IMAGE... --json`: read the cards in still images.

With `--json`, prints one JSON line per image: {"image": path, "cards": [{"code": "AS" or null,
"face_down": bool, "corners": [[x, y] x 4], "confidence": float, "zone": name or null}]}. Other
tools parse this line: keep its shape. Without `--json`, prints a short human summary per image.
Progress over many images shows on stderr (a bar on a terminal, else a line every few seconds).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from calibration.profile import load_profile
from drivers.camera.recognizer import CardRecognizer
from studio.commands.images import read_image
from studio.commands.progress import ProgressReport


def register(sub: Any) -> None:
    """Add the `recognize` subcommand to the `studio` parser's subparsers."""
    parser = sub.add_parser("recognize", help="read the cards in still images with a profile")
    parser.add_argument("--profile", required=True, type=Path, help="profile directory")
    parser.add_argument("images", nargs="+", type=Path, metavar="IMAGE")
    parser.add_argument("--json", action="store_true", help="one JSON line per image")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Recognise every image; raise `InputError` for an unreadable image."""
    profile, templates = load_profile(args.profile)
    recognizer = CardRecognizer(profile, templates)
    with ProgressReport("recognize", unit="images") as progress:
        for done, path in enumerate(args.images):
            progress(done, len(args.images))
            _recognize_one(recognizer, path, as_json=args.json)
        progress(len(args.images), len(args.images))
    return 0


def _recognize_one(recognizer: CardRecognizer, path: Path, *, as_json: bool) -> None:
    """Print what `recognizer` reads in the image at `path` (see the module docstring)."""
    cards = recognizer.recognize(read_image(path))
    if as_json:
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
