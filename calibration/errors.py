"""The error tree of the `calibration` package, split by the phase that failed.

`CalibrationError` derives from `studio.errors.StudioError`, so the command line reports every
calibration failure as one line. Subclasses name the phase: a profile that cannot be read or
written, a lens, table or deck calibration whose input is unusable or whose result misses its limit.
"""

from __future__ import annotations

from studio.errors import StudioError


class CalibrationError(StudioError):
    """Root of every error raised by the calibration package."""


class ProfileError(CalibrationError):
    """A calibration profile is missing, unreadable, of another version, or lacks a needed part."""


class LensCalibrationError(CalibrationError):
    """Chessboard images are unusable, or the lens fit's reprojection error exceeds its limit."""


class TableCalibrationError(CalibrationError):
    """Markers or points are missing or degenerate, so the table homography cannot be found."""


class DeckCalibrationError(CalibrationError):
    """A deck image set has a missing or unreadable card, or a card's index corner is not found."""
