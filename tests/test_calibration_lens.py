"""Lens calibration recovers a known camera from rendered chessboards, and enforces its limit."""

from __future__ import annotations

import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.errors import LensCalibrationError
from calibration.lens import calibrate_lens, undistort_points
from calibration.profile import load_profile
from drivers.camera.synthetic.chessboard import TrueCamera, random_pose, render_chessboard
from studio.cli import main

CAMERA = TrueCamera()


@lru_cache(maxsize=1)
def _views() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(0)
    return tuple(render_chessboard(CAMERA, *random_pose(rng, (250, 175))) for _ in range(8))


def test_focal_length_principal_point_and_distortion_are_recovered() -> None:
    lens = calibrate_lens(list(_views()))
    k = np.array(lens.camera_matrix)
    assert lens.rms_error < 0.5
    assert abs(k[0, 0] / CAMERA.focal - 1) < 0.02 and abs(k[1, 1] / CAMERA.focal - 1) < 0.02
    assert abs(k[0, 2] - CAMERA.cx) < 8 and abs(k[1, 2] - CAMERA.cy) < 8
    # Distortion terms trade off against each other; what matters is where points end up, over
    # the part of the image the boards covered (a fit says nothing about corners it never saw).
    grid = np.array([[x, y] for x in range(200, 601, 50) for y in range(150, 451, 50)], float)
    truth = cv2.undistortPoints(
        grid.reshape(-1, 1, 2), CAMERA.matrix(), CAMERA.distortion(), P=CAMERA.matrix()
    ).reshape(-1, 2)
    assert float(np.abs(undistort_points(grid, lens) - truth).max()) < 1.5


def test_reprojection_limit_is_enforced() -> None:
    with pytest.raises(LensCalibrationError, match="exceeds the limit"):
        calibrate_lens(list(_views()), max_rms=0.01)


def test_too_few_boards_are_refused() -> None:
    blank = np.full((600, 800), 90, np.uint8)
    with pytest.raises(LensCalibrationError, match="found in 1 of 3"):
        calibrate_lens([_views()[0], blank, blank])


def test_cli_writes_the_lens_into_the_profile(tmp_path: Path) -> None:
    paths = []
    for i, view in enumerate(_views()[:5]):
        paths.append(str(tmp_path / f"board{i}.png"))
        cv2.imwrite(paths[-1], view)
    assert main(["calibrate", "lens", *paths, "--profile", str(tmp_path / "p")]) == 0
    lens = load_profile(tmp_path / "p")[0].lens
    assert lens is not None and lens.images_used == 5


@pytest.mark.parametrize(
    ("pattern", "square_mm", "max_rms", "named"),
    [
        ((2, 2), 25.0, 0.5, "pattern"),  # OpenCV's own check was a cv2.error traceback
        ((9, 6), 25.0, float("nan"), "limit"),  # nan was never exceeded: any fit passed
        ((9, 6), 25.0, -1.0, "limit"),
        ((9, 6), float("nan"), 0.5, "square"),
        ((9, 6), 0.0, 0.5, "square"),
    ],
)
def test_a_pattern_square_or_limit_that_cannot_work_is_refused(
    pattern: tuple[int, int], square_mm: float, max_rms: float, named: str
) -> None:
    with pytest.raises(LensCalibrationError, match=named):
        calibrate_lens(list(_views()[:3]), pattern, square_mm, max_rms)


def test_cli_refuses_a_limit_of_nan_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "board.png"
    cv2.imwrite(str(path), _views()[0])
    for extra in (["--max-error", "nan"], ["--pattern", "0x0"]):
        assert main(["calibrate", "lens", str(path), "--profile", str(tmp_path / "p"), *extra]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
    assert not (tmp_path / "p").exists()


def test_a_missing_or_undecodable_image_is_one_line_from_the_installed_command(
    tmp_path: Path,
) -> None:
    # OpenCV printed its own warning for a missing file, so the user saw two lines.
    studio = str(Path(sys.executable).parent / "studio")
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"\x89PNG not really")
    for image, reason in ((tmp_path / "missing.png", "no such file"), (junk, "decode")):
        for argv in (
            ["calibrate", "lens", str(image), "--profile", str(tmp_path / "p")],
            ["calibrate", "table", "--image", str(image), "--game", "caribbean-stud",
             "--profile", str(tmp_path / "p")],
        ):  # fmt: skip
            done = subprocess.run([studio, *argv], capture_output=True, text=True, check=False)
            assert done.returncode == 2
            assert done.stderr.count("\n") == 1 and reason in done.stderr, done.stderr
