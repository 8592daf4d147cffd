"""`studio calibrate deck|table|lens`: build or update a calibration profile directory.

- `deck --images DIR --out PROFILE [--sheet PATH]`: learn the deck's index window and train its
  index reader from 52 card images named by code, then check that every reference card reads
  back as itself, and write the index sheet (the 52 index crops, labelled;
  `PROFILE/index_sheet.png` by default). Rendering, training and checking show a progress bar
  on a terminal, a line every few seconds elsewhere.
- `table --image FRAME --game GAME --profile PROFILE [--points ...]`: fit the image-to-table
  homography from ArUco markers (or four given image points of the layout corners), place the
  game's zones from its positions, and write a picture of the zones over the frame.
- `lens IMAGES... --profile PROFILE`: fit intrinsics from chessboard images, enforcing a limit.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

SHEET_NAME = "index_sheet.png"
"""The index sheet's file name in the profile directory when `--sheet` does not name one."""


def register(sub: Any) -> None:
    """Add the `calibrate` subcommand (with deck, table and lens) to the `studio` parser."""
    parser = sub.add_parser("calibrate", help="calibrate the camera: deck, table, lens")
    jobs = parser.add_subparsers(dest="job", required=True, metavar="JOB")
    deck = jobs.add_parser("deck", help="learn the deck's index reader from 52 card images")
    deck.add_argument("--images", required=True, type=Path, help="directory of AS.png, TD.jpg...")
    deck.add_argument("--out", required=True, type=Path, help="profile directory to write")
    deck.add_argument(
        "--sheet",
        type=Path,
        help=f"picture of the 52 learned index crops (default PROFILE/{SHEET_NAME})",
    )
    deck.set_defaults(run=run_deck)
    table = jobs.add_parser("table", help="fit the table homography and place the game's zones")
    table.add_argument("--image", required=True, type=Path, help="a frame of the empty table")
    table.add_argument("--game", required=True, help="game whose positions become zones")
    table.add_argument("--profile", required=True, type=Path, help="profile directory to update")
    table.add_argument(
        "--points",
        help="image points of the layout's corners instead of ArUco markers: "
        "'x,y x,y x,y x,y' (top-left, top-right, bottom-right, bottom-left)",
    )
    table.add_argument(
        "--layout-mm", default="900x600", help="layout rectangle for --points, WxH in mm"
    )
    table.add_argument("--overlay", type=Path, help="zone picture (default PROFILE/zones.png)")
    table.set_defaults(run=run_table)
    lens = jobs.add_parser("lens", help="fit intrinsics and distortion from chessboard images")
    lens.add_argument("images", nargs="+", type=Path, metavar="IMAGE")
    lens.add_argument("--profile", required=True, type=Path, help="profile directory to update")
    lens.add_argument("--pattern", default="9x6", help="inner corners, COLSxROWS (default 9x6)")
    lens.add_argument("--square-mm", type=float, default=25.0, help="square size in mm")
    lens.add_argument(
        "--max-error", type=float, default=None, help="RMS reprojection limit in pixels"
    )
    lens.set_defaults(run=run_lens)


# The jobs are imported when one runs: `studio calibrate --help` need not load OpenCV.


def run_deck(args: argparse.Namespace) -> int:
    """Learn the deck from its 52 images (`studio.commands.calibrate_jobs.deck_job`)."""
    from studio.commands.calibrate_jobs import deck_job

    return deck_job(args)


def run_table(args: argparse.Namespace) -> int:
    """Fit the table and place the zones (`studio.commands.calibrate_jobs.table_job`)."""
    from studio.commands.calibrate_jobs import table_job

    return table_job(args)


def run_lens(args: argparse.Namespace) -> int:
    """Fit the lens (`studio.commands.calibrate_jobs.lens_job`)."""
    from studio.commands.calibrate_jobs import lens_job

    return lens_job(args)
