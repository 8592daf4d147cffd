"""The jobs of `studio calibrate` (deck, table, lens): the work behind its options.

Apart from `studio.commands.calibrate` (its options and contract), so that `--help` loads
neither OpenCV nor the calibration code.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2

from calibration.deck import calibrate_deck, flatten_card, read_reference, reference_images
from calibration.errors import DeckCalibrationError
from calibration.index_sheet import index_sheet
from calibration.lens import MAX_RMS_PX, calibrate_lens
from calibration.profile import DeckCalibration, load_or_new, save_profile
from calibration.table import (
    DEFAULT_MARKERS,
    TableGeometry,
    homography_from_aruco,
    homography_from_points,
    layout_corners,
)
from calibration.zones import draw_zones, layout_zones
from drivers.camera.classify import IndexClassifier
from drivers.camera.recognizer import corner_window
from studio.commands.calibrate import SHEET_NAME
from studio.commands.images import read_image
from studio.commands.progress import StageReport
from studio.config import cache_dir
from studio.errors import InputError
from studio.games import get_rules
from studio.runtime.camera import position_rows


def deck_job(args: argparse.Namespace) -> int:
    """Learn the deck, verify it reads all 52 references, write the index sheet, save the deck.

    Rendering, training and checking show their progress on stderr (`StageReport`).
    """
    sheet_path: Path = args.sheet or args.out / SHEET_NAME
    if sheet_path.suffix.lower() not in SHEET_SUFFIXES:
        raise InputError(f"--sheet {sheet_path}: name the index sheet .png or .jpg")
    units = {"render": "windows", "train": "epochs", "check": "cards"}
    with StageReport("calibrate deck", units=units) as progress:
        deck, templates = calibrate_deck(args.images, model_cache=cache_dir(), progress=progress)
        classifier = IndexClassifier(deck, templates)
        paths = reference_images(args.images)
        crops: dict[str, cv2.typing.MatLike] = {}
        reads: dict[str, str | None] = {}
        for n, (code, path) in enumerate(paths.items()):
            crops[code] = corner_window(flatten_card(read_reference(path), code), deck.index_window)
            read = classifier.read(crops[code])
            reads[code] = read.code if read is not None else None
            progress("check", n + 1, len(paths))
    sheet = index_sheet(crops, reads)
    wrong = [f"{code}->{read or 'none'}" for code, read in reads.items() if read != code]
    if wrong:
        seen = _write_sheet(sheet_path, sheet) if sheet_path.parent.is_dir() else None
        raise DeckCalibrationError(
            f"the learned deck misreads its own references: {' '.join(wrong)}"
            + (f" (see {seen})" if seen is not None else "")
        )
    profile, _ = load_or_new(args.out)
    profile = profile.model_copy(update={"deck": deck})
    save_profile(args.out, profile, templates)
    if not sheet_path.parent.is_dir():
        raise InputError(
            f"the deck is saved in {args.out}, but --sheet {sheet_path}: no directory "
            f"{sheet_path.parent}"
        )
    if _write_sheet(sheet_path, sheet) is None:
        raise InputError(f"the deck is saved in {args.out}, but {sheet_path} cannot be written")
    print(deck_summary(deck, args.out, sheet_path))
    return 0


def deck_summary(deck: DeckCalibration, out: Path, sheet: Path) -> str:
    """The line `studio calibrate deck` prints for a saved deck (a four-index deck says so)."""
    four = "; four-index: read at all four corners" if deck.four_index else ""
    return (
        f"deck calibrated from 52 cards into {out} (index window {deck.index_window}, "
        f"card aspect {deck.card_aspect:.3f}{four}); "
        f"index sheet {sheet}"
    )


SHEET_SUFFIXES = (".png", ".jpg", ".jpeg")


def _write_sheet(path: Path, sheet: cv2.typing.MatLike) -> Path | None:
    """Write the index sheet to `path`; None when it cannot be written."""
    ok, data = cv2.imencode(path.suffix.lower(), sheet)
    if not ok:
        return None
    try:
        path.write_bytes(bytes(data))
    except OSError:
        return None
    return path


def _parse_points(text: str) -> list[tuple[float, float]]:
    try:
        pts = [tuple(float(v) for v in pair.split(",")) for pair in text.replace(";", " ").split()]
    except ValueError as err:
        raise InputError(f"--points must be 'x,y x,y x,y x,y', got {text!r}") from err
    if len(pts) != 4 or any(len(p) != 2 for p in pts):
        raise InputError(f"--points needs exactly four x,y pairs, got {text!r}")
    return [(p[0], p[1]) for p in pts]


def _encode_overlay(path: Path, picture: cv2.typing.MatLike) -> bytes:
    """`picture` encoded in the format `path`'s extension names; InputError if there is none."""
    try:
        ok, data = cv2.imencode(path.suffix, picture)
    except cv2.error:  # OpenCV raises, rather than returns False, for an unknown extension
        ok = False
    if not ok:
        raise InputError(f"--overlay {path}: name the zone picture .png or .jpg")
    return bytes(data)


def table_job(args: argparse.Namespace) -> int:
    """Fit the homography (ArUco or --points), place the game's zones, save, draw the overlay."""
    frame = read_image(args.image)
    rules = get_rules(args.game)
    size = (int(frame.shape[1]), int(frame.shape[0]))
    if args.points:
        try:
            w, h = (float(v) for v in args.layout_mm.lower().split("x"))
        except ValueError as err:
            raise InputError(f"--layout-mm must be WxH, got {args.layout_mm!r}") from err
        table = homography_from_points(_parse_points(args.points), layout_corners(w, h), size)
    else:
        table = homography_from_aruco(frame, DEFAULT_MARKERS)
    zones = layout_zones(position_rows(rules.positions))
    profile, templates = load_or_new(args.profile)
    profile = profile.model_copy(update={"table": table, "zones": zones})
    geometry = TableGeometry.from_profile(profile)
    assert geometry is not None
    overlay: Path = args.overlay or args.profile / "zones.png"
    picture = _encode_overlay(overlay, draw_zones(frame, geometry, zones))
    if not overlay.parent.is_dir() and overlay.parent != args.profile:
        raise InputError(f"--overlay {overlay}: no directory {overlay.parent}")
    save_profile(args.profile, profile, templates)
    try:
        overlay.write_bytes(picture)
    except OSError as err:
        raise InputError(
            f"the table is saved in {args.profile}, but the zone picture {overlay} cannot be "
            f"written: {err.strerror}"
        ) from err
    print(
        f"table calibrated by {table.method} (residual {table.residual_mm} mm), "
        f"{len(zones)} zones for {args.game}; check {overlay}"
    )
    return 0


def lens_job(args: argparse.Namespace) -> int:
    """Fit the lens from the chessboard images and save it; report the reprojection error."""
    try:
        cols, rows = (int(v) for v in args.pattern.lower().split("x"))
    except ValueError as err:
        raise InputError(f"--pattern must be COLSxROWS, got {args.pattern!r}") from err
    images = []
    for path in args.images:
        images.append(read_image(path, cv2.IMREAD_GRAYSCALE))
    limit = MAX_RMS_PX if args.max_error is None else args.max_error
    lens = calibrate_lens(images, (cols, rows), args.square_mm, limit)
    profile, templates = load_or_new(args.profile)
    save_profile(args.profile, profile.model_copy(update={"lens": lens}), templates)
    print(
        f"lens calibrated from {lens.images_used} of {len(images)} images: "
        f"reprojection error {lens.rms_error} px (limit {limit} px)"
    )
    return 0
