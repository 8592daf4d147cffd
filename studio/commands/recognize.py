"""`studio recognize --profile PROFILE IMAGE... --json`: read the cards in still images.

With `--json`, prints one JSON line per image: {"image": path, "cards": [{"code": "AS" or null,
"face_down": bool, "corners": [[x, y] x 4], "confidence": float, "zone": name or null}]}. Other
tools parse this line: keep its shape. Without `--json`, prints a short human summary per image.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from calibration.profile import load_profile
from drivers.camera.recognizer import CardRecognizer
from studio.commands.images import read_image


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
    for path in args.images:
        frame = read_image(path)
        cards = recognizer.recognize(frame)
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
    return 0
