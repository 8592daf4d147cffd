"""Table calibration against rendered frames of known geometry: points, ArUco markers, zones."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from camera_support import deck_profile

from calibration.errors import TableCalibrationError
from calibration.profile import CalibrationProfile, load_profile
from calibration.table import (
    DEFAULT_MARKERS,
    TableGeometry,
    homography_from_aruco,
    homography_from_points,
    layout_corners,
)
from calibration.zones import layout_zones, zone_centre
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic.designs import JUMBO
from drivers.camera.synthetic.generator import SceneStyle, camera_view
from drivers.camera.synthetic.scene import PlacedCard, Scene, project, render_scene
from studio.cards import Card
from studio.cli import main

MARKERS = tuple((m.ident, m.x, m.y, m.size) for m in DEFAULT_MARKERS)


def _view(seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return camera_view(rng, SceneStyle(tilt=0.0003), px_per_mm=1.6)


def _error_mm(geometry: TableGeometry, table_to_image: np.ndarray) -> float:
    grid = np.array([[x, y] for x in range(-400, 401, 100) for y in range(-250, 251, 100)], float)
    back = geometry.to_table(project(table_to_image, grid))
    return float(np.abs(back - grid).max())


def test_four_points_recover_the_homography() -> None:
    h = _view()
    corners = layout_corners(900, 600)
    image_pts = project(h, np.array(corners)) + np.random.default_rng(1).normal(0, 0.3, (4, 2))
    table = homography_from_points([tuple(p) for p in image_pts], corners, (1920, 1080))
    geometry = TableGeometry(np.array(table.image_to_table))
    assert _error_mm(geometry, h) < 2.0


def test_aruco_markers_recover_the_homography() -> None:
    h = _view()
    frame = render_scene(Scene(1920, 1080, h, JUMBO, markers=MARKERS, noise=2.0)).image
    table = homography_from_aruco(frame, DEFAULT_MARKERS)
    assert table.method == "aruco"
    assert _error_mm(TableGeometry(np.array(table.image_to_table)), h) < 2.0


def test_degenerate_points_and_missing_markers_are_refused() -> None:
    with pytest.raises(TableCalibrationError):
        homography_from_points([(0, 0), (1, 1), (2, 2), (3, 3)], layout_corners(900, 600), (10, 10))
    blank = np.full((480, 640, 3), 60, np.uint8)
    with pytest.raises(TableCalibrationError, match="ArUco"):
        homography_from_aruco(blank, DEFAULT_MARKERS)


def test_cli_places_the_games_zones_and_draws_them(tmp_path: Path) -> None:
    h = _view()
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), render_scene(Scene(1920, 1080, h, JUMBO, markers=MARKERS)).image)
    args = ["calibrate", "table", "--image", str(image), "--game", "caribbean-stud"]
    assert main([*args, "--profile", str(tmp_path / "p")]) == 0
    profile, _ = load_profile(tmp_path / "p")
    assert profile.table is not None and len(profile.zones) == 10
    assert (tmp_path / "p" / "zones.png").exists()
    corners = " ".join(
        f"{x:.1f},{y:.1f}" for x, y in project(h, np.array(layout_corners(900, 600)))
    )
    assert main([*args, "--profile", str(tmp_path / "q"), "--points", corners]) == 0
    assert load_profile(tmp_path / "q")[0].table is not None


def test_cards_are_assigned_to_their_zones() -> None:
    h = _view()
    zones = layout_zones([["dealer-1", "dealer-2"], ["player-1", "player-2"]])
    deck_only, templates = deck_profile("jumbo")
    inverse = np.linalg.inv(h)
    profile = CalibrationProfile(
        deck=deck_only.deck,
        table={"image_to_table": inverse.tolist(), "method": "points", "image_size": (1920, 1080),
               "residual_mm": 0.0},
        zones=zones,
    )  # fmt: skip
    codes = {"dealer-1": "AS", "dealer-2": "KD", "player-1": "7C", "player-2": "QH"}
    cards = []
    for zone in zones:
        x, y = zone_centre(zone)
        cards.append(PlacedCard(Card.parse(codes[zone.name]), x + 4, y - 3, 6))
    frame = render_scene(Scene(1920, 1080, h, JUMBO, cards=tuple(cards))).image
    readings = CardRecognizer(profile, templates).recognize(frame)
    # Every card lands in its own zone; a card that is read carries its own code there (a small
    # black-suit index may stay unknown, which is not this test's concern).
    assert sorted(r.zone or "" for r in readings) == sorted(codes)
    assert all(r.code in (None, codes[r.zone or ""]) for r in readings)
    assert sum(r.code is not None for r in readings) >= 3


def test_points_that_are_not_numbers_are_refused() -> None:
    # A nan slipped past the degeneracy test (nan < 1e-12 is false) and was saved as the table.
    square = [(0.0, 0.0), (100.0, 0.0), (100.0, 100.0), (0.0, 100.0)]
    nan = float("nan")
    with pytest.raises(TableCalibrationError):
        homography_from_points([(nan, 0.0), *square[1:]], layout_corners(900, 600), (10, 10))
    with pytest.raises(TableCalibrationError):
        homography_from_points(square, layout_corners(nan, nan), (10, 10))


def test_cli_leaves_the_profile_alone_when_it_cannot_calibrate_or_draw(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), np.full((480, 640, 3), 60, np.uint8))
    args = ["calibrate", "table", "--image", str(image), "--game", "caribbean-stud",
            "--profile", str(tmp_path / "p"), "--points", "0,0 100,0 100,100 0,100"]  # fmt: skip
    for extra in (
        ["--layout-mm", "nanxnan"],
        ["--overlay", str(tmp_path / "no-such-dir" / "zones.png")],  # exit 0, no picture
        ["--overlay", str(tmp_path / "zones.txt")],  # a cv2.error traceback
    ):
        assert main([*args, *extra]) == 2, extra
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
        assert not (tmp_path / "p").exists()
