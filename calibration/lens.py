"""Lens calibration: camera intrinsics and distortion from chessboard images.

`calibrate_lens(images, pattern, square_mm, max_rms)` finds the chessboard's inner corners in
each image, fits OpenCV's pinhole model with radial and tangential distortion, and refuses a fit
whose RMS reprojection error exceeds `max_rms` pixels (a blurred or moved board, a wrong
pattern size). `undistort_points` applies the result to image points.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.errors import LensCalibrationError
from calibration.profile import LensCalibration

MAX_RMS_PX = 0.5
"""Default limit on the RMS reprojection error: half a pixel is the usual bar for a good fit."""
MIN_IMAGES = 3
"""Fewer views than this cannot separate focal length from distortion."""


def find_corners(image: npt.NDArray[Any], pattern: tuple[int, int]) -> npt.NDArray[Any] | None:
    """The chessboard's inner corners (N, 2) refined to sub-pixel, or None if not all are found."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    flags = cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE
    found, corners = cv2.findChessboardCorners(gray, pattern, flags=flags)
    if not found or corners is None:
        return None
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 40, 0.01)
    refined = cv2.cornerSubPix(gray, corners, (5, 5), (-1, -1), criteria)
    out: npt.NDArray[Any] = np.asarray(refined, np.float32).reshape(-1, 2)
    return out


def board_points(pattern: tuple[int, int], square_mm: float) -> npt.NDArray[Any]:
    """The inner corners' board coordinates (mm, z = 0) in OpenCV's row-major corner order."""
    cols, rows = pattern
    grid = np.zeros((rows * cols, 3), np.float32)
    grid[:, :2] = np.mgrid[0:cols, 0:rows].T.reshape(-1, 2) * square_mm
    return grid


def calibrate_lens(
    images: Sequence[npt.NDArray[Any]],
    pattern: tuple[int, int] = (9, 6),
    square_mm: float = 25.0,
    max_rms: float = MAX_RMS_PX,
) -> LensCalibration:
    """Fit intrinsics and distortion to the chessboards in `images` (all the same size).

    Raises `LensCalibrationError` when fewer than three images show the whole board, sizes
    differ, the RMS reprojection error exceeds `max_rms`, or the pattern, square size or limit
    cannot work (OpenCV needs at least 3x3 inner corners; a limit of nan is never exceeded).
    """
    if min(pattern) < 3:
        raise LensCalibrationError(
            f"the pattern needs at least 3x3 inner corners, got {pattern[0]}x{pattern[1]}"
        )
    if not (np.isfinite(square_mm) and square_mm > 0):
        raise LensCalibrationError(f"the square size must be above 0 mm, got {square_mm}")
    if not (np.isfinite(max_rms) and max_rms > 0):
        raise LensCalibrationError(f"the reprojection limit must be above 0 px, got {max_rms}")
    if not images:
        raise LensCalibrationError("no chessboard images given")
    h, w = images[0].shape[:2]
    if any(img.shape[:2] != (h, w) for img in images):
        raise LensCalibrationError("chessboard images differ in size")
    found = [c for c in (find_corners(img, pattern) for img in images) if c is not None]
    if len(found) < MIN_IMAGES:
        raise LensCalibrationError(
            f"the {pattern[0]}x{pattern[1]} chessboard was found in {len(found)} of "
            f"{len(images)} images; at least {MIN_IMAGES} are needed"
        )
    objects = [board_points(pattern, square_mm)] * len(found)
    rms, k, dist, _, _ = cv2.calibrateCamera(objects, found, (w, h), None, None)
    if not np.isfinite(rms) or rms > max_rms:
        raise LensCalibrationError(
            f"reprojection error {rms:.3f} px exceeds the limit of {max_rms} px"
        )
    return LensCalibration(
        image_size=(w, h),
        camera_matrix=np.asarray(k, np.float64).tolist(),
        distortion=np.asarray(dist, np.float64).ravel().tolist(),
        rms_error=round(float(rms), 4),
        images_used=len(found),
    )


def undistort_points(points: npt.NDArray[Any], lens: LensCalibration) -> npt.NDArray[Any]:
    """Map (N, 2) distorted image pixels to where an ideal pinhole camera would have seen them."""
    k = np.asarray(lens.camera_matrix, np.float64)
    dist = np.asarray(lens.distortion, np.float64)
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    out: npt.NDArray[Any] = cv2.undistortPoints(pts, k, dist, P=k).reshape(-1, 2)
    return out
