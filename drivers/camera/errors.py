"""The camera driver's errors, split by phase, in the drivers package's error tree.

`CameraError` derives from `drivers.errors.DriverError` (the drivers' one root) and from
`studio.errors.StudioError`, so the command line reports it as one line. Each subclass also
takes the drivers' class for its phase: configuration, connection, device fault.
"""

from __future__ import annotations

from drivers.errors import (
    DeviceFaultError,
    DriverConfigurationError,
    DriverConnectionError,
    DriverError,
)
from studio.errors import StudioError


class CameraError(DriverError, StudioError):
    """Root of every error raised by the camera driver."""


class RecognizerConfigurationError(CameraError, DriverConfigurationError):
    """The recognizer or a frame source is misconfigured (no deck, bad source URL)."""


class CameraConnectionError(CameraError, DriverConnectionError):
    """A frame source cannot be opened, or was lost and could not be reopened."""


class CameraStalledError(CameraError, DeviceFaultError):
    """A device fault: no frame arrived for longer than the configured stall time."""
