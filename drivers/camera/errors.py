"""The camera driver's errors, split by phase, under one `CameraError` root.

`CameraError` derives from `studio.errors.StudioError` so the command line reports it as one
line. (It will also derive from the drivers package's `DriverError` once that root is shared.)
"""

from __future__ import annotations

from studio.errors import StudioError


class CameraError(StudioError):
    """Root of every error raised by the camera driver."""


class RecognizerConfigurationError(CameraError):
    """The recognizer or a frame source is misconfigured (no deck, bad source URL)."""


class CameraConnectionError(CameraError):
    """A frame source cannot be opened, or was lost and could not be reopened."""


class CameraStalledError(CameraError):
    """A device fault: no frame arrived for longer than the configured stall time."""
