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
from pathlib import Path
from typing import Any

from drivers.camera.tuning import INDEX_READERS


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


def run(args: argparse.Namespace) -> int:
    """Recognise every image; raise `InputError` for an unreadable image."""
    # Imported here: `studio recognize --help` need not load OpenCV and the recognizer.
    from studio.commands.recognize_images import recognize

    return recognize(args)
