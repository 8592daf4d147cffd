"""The camera backends: the one registry of their names, what each does and what it opens.

`camera.backend` in the configuration (its allowed values), `studio run --camera` (its choices),
the runtime's camera builders and the frame sources' URL schemes are all taken from
`CAMERA_BACKENDS`; adding a backend here is the only place its name is written.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CameraBackend:
    """One camera backend.

    `summary` says what it does, for help texts. `schemes` are the frame-source URL schemes it
    reads frames through (`sources.open_source`; "file" also stands for a plain path); a backend
    without schemes reads no frames from a source URL.
    """

    summary: str
    schemes: tuple[str, ...] = ()


CAMERA_BACKENDS: dict[str, CameraBackend] = {
    "none": CameraBackend("no camera: the table does not wait for confirmations"),
    "simulated": CameraBackend("the simulated dealer reports what lies where (no frames)"),
    "synthetic": CameraBackend(
        "the felt the simulated dealer lays cards on, drawn and read by the recognizer",
        ("synthetic",),
    ),
    "capture": CameraBackend(
        "a real camera, video file or stream at camera.url, read with camera.profile",
        ("device", "file", "rtsp", "http", "https"),
    ),
}
"""Every camera backend by its `camera.backend` name."""


def source_schemes() -> dict[str, str]:
    """Every frame-source URL scheme, mapped to the backend that reads through it."""
    return {s: name for name, b in CAMERA_BACKENDS.items() for s in b.schemes}
