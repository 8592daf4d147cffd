"""Chessboard views through a known camera (intrinsics, radial distortion, pose), for lens tests.

`render_chessboard(camera, pose)` draws what a pinhole camera with the given distortion sees of
a flat chessboard, by tracing every pixel back to the board plane, so the lens calibration has a
known answer to recover.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt


@dataclass(frozen=True, slots=True)
class TrueCamera:
    """A camera's true model: image size, focal length (px), principal point, k1 and k2."""

    width: int = 800
    height: int = 600
    focal: float = 700.0
    cx: float = 400.0
    cy: float = 300.0
    k1: float = -0.2
    k2: float = 0.05

    def matrix(self) -> npt.NDArray[Any]:
        """The 3x3 camera matrix."""
        return np.array([[self.focal, 0, self.cx], [0, self.focal, self.cy], [0, 0, 1.0]])

    def distortion(self) -> npt.NDArray[Any]:
        """OpenCV's distortion vector (k1, k2, p1, p2, k3)."""
        return np.array([self.k1, self.k2, 0.0, 0.0, 0.0])


def random_pose(rng: np.random.Generator, board_mm: tuple[float, float]) -> tuple[Any, Any]:
    """A rotation vector and translation (mm) that keep a board of `board_mm` in a typical view."""
    rvec = np.array([rng.uniform(-0.45, 0.45), rng.uniform(-0.45, 0.45), rng.uniform(-0.3, 0.3)])
    w, h = board_mm
    tvec = np.array(
        [-w / 2 + rng.uniform(-40, 40), -h / 2 + rng.uniform(-30, 30), rng.uniform(420, 560)]
    )
    return rvec, tvec


def render_chessboard(
    camera: TrueCamera,
    rvec: npt.NDArray[Any],
    tvec: npt.NDArray[Any],
    pattern: tuple[int, int] = (9, 6),
    square_mm: float = 25.0,
) -> npt.NDArray[Any]:
    """A grey view of a chessboard with `pattern` inner corners (white margin of one square)."""
    ys, xs = np.mgrid[0 : camera.height, 0 : camera.width].astype(np.float64)
    pix = np.stack([xs.ravel(), ys.ravel()], axis=1).reshape(-1, 1, 2)
    norm = cv2.undistortPoints(pix, camera.matrix(), camera.distortion()).reshape(-1, 2)
    rot, _ = cv2.Rodrigues(np.asarray(rvec, np.float64))
    plane = np.column_stack([rot[:, 0], rot[:, 1], np.asarray(tvec, np.float64)])
    to_board = np.linalg.inv(plane)
    rays = np.column_stack([norm, np.ones(len(norm))]) @ to_board.T
    bx = rays[:, 0] / rays[:, 2]
    by = rays[:, 1] / rays[:, 2]
    cols, rows = pattern
    # Squares span -1..cols in x and -1..rows in y around the inner corners, plus a white margin.
    sx = np.floor(bx / square_mm) + 1
    sy = np.floor(by / square_mm) + 1
    on_board = (sx >= 0) & (sx <= cols) & (sy >= 0) & (sy <= rows)
    in_margin = (bx > -2 * square_mm) & (bx < (cols + 1) * square_mm) & (by > -2 * square_mm)
    in_margin &= by < (rows + 1) * square_mm
    value = np.full(len(bx), 90.0)
    value[in_margin] = 235.0
    dark = on_board & ((sx + sy) % 2 == 0)
    value[dark] = 25.0
    img: npt.NDArray[Any] = value.reshape(camera.height, camera.width).astype(np.float32)
    img = cv2.GaussianBlur(img, (0, 0), 0.7)
    out: npt.NDArray[Any] = np.clip(img, 0, 255).astype(np.uint8)
    return out
