"""Table geometry: the homography from camera pixels to table millimetres, and zone lookup.

`homography_from_points` fits it to four (or more) known points; `homography_from_aruco` finds
ArUco markers (dictionary 4x4_50) whose table positions are known. `TableGeometry` applies a
profile's lens, table and zones to image points: table position, card size there, zone name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.errors import TableCalibrationError
from calibration.profile import CalibrationProfile, TableCalibration, Zone

Image = npt.NDArray[Any]
Points = npt.NDArray[Any]

CARD_HEIGHT_MM = 88.0
"""Poker-size card height, used to predict a card's size in the image."""
ARUCO_DICTIONARY = cv2.aruco.DICT_4X4_50
"""The marker family printed on the felt; 4x4 bits stay decodable at ~20 px per marker."""


@dataclass(frozen=True, slots=True)
class MarkerPlacement:
    """Where marker `ident` lies on the table: its top-left corner (mm) and side length (mm)."""

    ident: int
    x: float
    y: float
    size: float

    def corners(self) -> Points:
        """The marker's corners in mm, in ArUco's order (top-left, clockwise)."""
        s = self.size
        return np.array(
            [[self.x, self.y], [self.x + s, self.y], [self.x + s, self.y + s], [self.x, self.y + s]]
        )


def _fit(
    image_pts: Points, table_pts: Points, method: str, size: tuple[int, int]
) -> TableCalibration:
    if len(image_pts) < 4:
        raise TableCalibrationError(f"need at least 4 points, got {len(image_pts)}")
    if not (np.isfinite(image_pts).all() and np.isfinite(table_pts).all()):
        # A nan passes the degeneracy test below (nan < 1e-12 is false) and poisons the profile.
        raise TableCalibrationError("the points must be finite numbers")
    h, _ = cv2.findHomography(image_pts.astype(np.float64), table_pts.astype(np.float64), 0)
    if h is None or abs(float(np.linalg.det(h))) < 1e-12:
        raise TableCalibrationError("the points are degenerate (three or more on one line?)")
    mapped = cv2.perspectiveTransform(image_pts.reshape(-1, 1, 2).astype(np.float64), h).reshape(
        -1, 2
    )
    residual = float(np.sqrt(np.mean(np.sum((mapped - table_pts) ** 2, axis=1))))
    return TableCalibration(
        image_to_table=h.tolist(),
        method=method,
        image_size=size,
        residual_mm=round(residual, 3),
    )


def homography_from_points(
    image_points: Sequence[tuple[float, float]],
    table_points: Sequence[tuple[float, float]],
    image_size: tuple[int, int],
) -> TableCalibration:
    """Fit the image-to-table homography to matching points (pixels, mm); at least four.

    Raises `TableCalibrationError` for too few or degenerate points.
    """
    if len(image_points) != len(table_points):
        raise TableCalibrationError("image and table point lists differ in length")
    return _fit(
        np.asarray(image_points, np.float64),
        np.asarray(table_points, np.float64),
        "points",
        image_size,
    )


def detect_markers(image: Image) -> dict[int, Points]:
    """Detect ArUco 4x4_50 markers; return each id's four image corners (ArUco order)."""
    detector = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY), cv2.aruco.DetectorParameters()
    )
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = detector.detectMarkers(gray)
    if ids is None:
        return {}
    return {
        int(i): np.asarray(c, np.float64).reshape(4, 2)
        for i, c in zip(ids.ravel(), corners, strict=True)
    }


def homography_from_aruco(image: Image, markers: Sequence[MarkerPlacement]) -> TableCalibration:
    """Fit the homography to the known markers found in `image` (at least one; four is better).

    Raises `TableCalibrationError` when no known marker is found.
    """
    seen = detect_markers(image)
    known = [m for m in markers if m.ident in seen]
    if not known:
        ids = ", ".join(str(m.ident) for m in markers)
        raise TableCalibrationError(f"no ArUco marker (4x4_50, ids {ids}) found in the image")
    image_pts = np.vstack([seen[m.ident] for m in known])
    table_pts = np.vstack([m.corners() for m in known])
    size = (int(image.shape[1]), int(image.shape[0]))
    return _fit(image_pts, table_pts, "aruco", size)


def _point_in(polygon: Sequence[tuple[float, float]], x: float, y: float) -> bool:
    arr = np.asarray(polygon, np.float32).reshape(-1, 1, 2)
    return cv2.pointPolygonTest(arr, (x, y), False) >= 0


class TableGeometry:
    """Image points to table mm (undistorted through the lens, if calibrated) and zone lookup."""

    def __init__(
        self,
        image_to_table: Points,
        zones: Sequence[Zone] = (),
        camera_matrix: Points | None = None,
        distortion: Points | None = None,
    ) -> None:
        self._h = np.asarray(image_to_table, np.float64)
        self._inv = np.linalg.inv(self._h)
        self._zones = tuple(zones)
        self._k = camera_matrix
        self._dist = distortion

    @classmethod
    def from_profile(cls, profile: CalibrationProfile) -> TableGeometry | None:
        """The geometry of a profile, or None when it has no table calibration."""
        if profile.table is None:
            return None
        k = dist = None
        if profile.lens is not None:
            k = np.asarray(profile.lens.camera_matrix, np.float64)
            dist = np.asarray(profile.lens.distortion, np.float64)
        return cls(np.asarray(profile.table.image_to_table), profile.zones, k, dist)

    def to_table(self, points: Points) -> Points:
        """Map (N, 2) image pixels to table mm."""
        pts: Points = np.asarray(points, np.float64).reshape(-1, 1, 2)
        if self._k is not None and self._dist is not None:
            pts = cv2.undistortPoints(pts, self._k, self._dist, P=self._k)
        out: Points = cv2.perspectiveTransform(pts, self._h).reshape(-1, 2)
        return out

    def to_image(self, points: Points) -> Points:
        """Map (N, 2) table mm to (undistorted) image pixels."""
        pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
        out: Points = cv2.perspectiveTransform(pts, self._inv).reshape(-1, 2)
        return out

    def card_height_px(self, x: float, y: float) -> float | None:
        """The expected height in pixels of a card lying at image point (x, y)."""
        tx, ty = self.to_table(np.array([[x, y]]))[0]
        ends = self.to_image(
            np.array([[tx, ty - CARD_HEIGHT_MM / 2], [tx, ty + CARD_HEIGHT_MM / 2]])
        )
        across = self.to_image(
            np.array([[tx - CARD_HEIGHT_MM / 2, ty], [tx + CARD_HEIGHT_MM / 2, ty]])
        )
        # A card may lie any way round: average the two axes' scale.
        return float(
            (np.linalg.norm(ends[1] - ends[0]) + np.linalg.norm(across[1] - across[0])) / 2
        )

    def zone_at(self, x: float, y: float) -> str | None:
        """The name of the zone holding image point (x, y), or None outside every zone."""
        tx, ty = self.to_table(np.array([[x, y]]))[0]
        for zone in self._zones:
            if _point_in(zone.polygon, float(tx), float(ty)):
                return zone.name
        return None


DEFAULT_MARKERS: tuple[MarkerPlacement, ...] = (
    MarkerPlacement(0, -450.0, -300.0, 50.0),
    MarkerPlacement(1, 400.0, -300.0, 50.0),
    MarkerPlacement(2, 400.0, 250.0, 50.0),
    MarkerPlacement(3, -450.0, 250.0, 50.0),
)
"""The studio's felt: four 50 mm markers (ids 0-3) around a 900 x 600 mm layout centred at 0."""


def layout_corners(width_mm: float, height_mm: float) -> list[tuple[float, float]]:
    """Table mm of a centred layout rectangle's corners, clockwise from the top-left."""
    w, h = width_mm / 2, height_mm / 2
    return [(-w, -h), (w, -h), (w, h), (-w, h)]


def markers_from_mapping(
    placements: Mapping[int, tuple[float, float, float]],
) -> list[MarkerPlacement]:
    """Build marker placements from {id: (x_mm, y_mm, size_mm)}."""
    return [MarkerPlacement(i, x, y, s) for i, (x, y, s) in sorted(placements.items())]
