"""Frame sources: a camera, a video file, a stream URL, or the synthetic table, by one string.

`open_source(url)` picks the backend from the string (`synthetic://?design=jumbo&seed=1`,
`device:0`, a file path, `rtsp://...`). Every source is a context manager with an idempotent
`close()` and a `read()` that returns the next `Frame` or raises `CameraStalledError` (a device
fault) when no frame arrived for `stall_seconds`. `CaptureSource` reads `cv2.VideoCapture` on
its own thread, so a hung driver cannot hang the caller, and reopens a lost device.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Protocol
from urllib.parse import parse_qs, urlparse

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.backends import source_schemes
from drivers.camera.errors import (
    CameraConnectionError,
    CameraStalledError,
    RecognizerConfigurationError,
)
from drivers.camera.synthetic.designs import DESIGNS
from drivers.camera.synthetic.generator import SceneStyle, random_scene
from drivers.camera.synthetic.scene import render_scene

log = logging.getLogger(__name__)

STALL_SECONDS = 2.0
"""Default silence after which a source reports a stall: 2 s is ~50 frames at 25 fps, far past
any jitter, and short enough for the table's confirmation timeout to notice."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame: BGR pixels, its number in this source, UTC capture time and monotonic time."""

    image: npt.NDArray[Any]
    number: int
    ts: datetime
    at: float


class FrameSource(Protocol):
    """What every frame source offers."""

    def read(self) -> Frame:
        """The next frame; raises `CameraStalledError` after `stall_seconds` without one."""
        ...

    def close(self) -> None:
        """Release the device; calling it again does nothing."""
        ...

    def __enter__(self) -> FrameSource: ...

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None: ...


class Capture(Protocol):
    """The part of `cv2.VideoCapture` a `CaptureSource` uses (tests pass a fake)."""

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        """True when the device, file or stream is open."""
        ...

    def read(self) -> tuple[bool, Any]:
        """Block for the next frame: (True, image), or (False, None) when none came."""
        ...

    def release(self) -> None:
        """Close the device."""
        ...


def _open_capture(target: int | str) -> Capture:
    capture: Capture = cv2.VideoCapture(target)
    return capture


class CaptureSource:
    """Frames from `cv2.VideoCapture` (device index, file or URL), read on a worker thread.

    A failed read closes the capture and reopens it after `reconnect_delay`, at most
    `reconnect_attempts` times in a row; `read()` raises `CameraStalledError` when no new frame
    came for `stall_seconds`, and `CameraConnectionError` once reconnection is given up.
    """

    def __init__(
        self,
        target: int | str,
        *,
        stall_seconds: float = STALL_SECONDS,
        reconnect_attempts: int = 5,
        reconnect_delay: float = 0.5,
        opener: Callable[[int | str], Capture] = _open_capture,
    ) -> None:
        self._target = target
        self._stall = stall_seconds
        self._attempts = reconnect_attempts
        self._delay = reconnect_delay
        self._opener = opener
        self._cond = threading.Condition()
        self._latest: Frame | None = None
        self._returned = 0
        self._count = 0
        self._failure: CameraConnectionError | None = None
        self._stop = threading.Event()
        self._closed = False
        self.last_frames: list[Frame] = []
        capture = opener(target)
        if not capture.isOpened():
            capture.release()
            raise CameraConnectionError(f"cannot open camera source {target!r}")
        self._thread = threading.Thread(
            target=self._run, args=(capture,), name=f"camera-{target}", daemon=True
        )
        self._thread.start()

    def _run(self, capture: Capture) -> None:
        failures = 0
        while not self._stop.is_set():
            ok, image = capture.read()
            if ok and image is not None:
                failures = 0
                self._publish(np.asarray(image, np.uint8))
                continue
            capture.release()
            failures += 1
            if failures > self._attempts:
                with self._cond:
                    self._failure = CameraConnectionError(
                        f"camera source {self._target!r} lost; "
                        f"{self._attempts} reconnections failed"
                    )
                    self._cond.notify_all()
                return
            log.warning("camera %r gave no frame; reopening (attempt %d)", self._target, failures)
            if self._stop.wait(self._delay):
                return
            capture = self._opener(self._target)
        capture.release()

    def _publish(self, image: npt.NDArray[Any]) -> None:
        with self._cond:
            self._count += 1
            frame = Frame(image, self._count, datetime.now(UTC), time.monotonic())
            self._latest = frame
            # Keep the last few raw frames for an incident report.
            self.last_frames = [*self.last_frames[-4:], frame]
            self._cond.notify_all()

    def read(self) -> Frame:
        """The newest frame not yet returned (frames in between are dropped: live view)."""
        deadline = time.monotonic() + self._stall
        with self._cond:
            while True:
                if self._closed:
                    raise CameraConnectionError(f"camera source {self._target!r} is closed")
                latest = self._latest
                if latest is not None and latest.number > self._returned:
                    self._returned = latest.number
                    return latest
                if self._failure is not None:
                    raise self._failure
                left = deadline - time.monotonic()
                if left <= 0:
                    raise CameraStalledError(
                        f"camera source {self._target!r} gave no frame for {self._stall:g} s"
                    )
                self._cond.wait(left)

    def close(self) -> None:
        """Stop the reader thread and release the capture; idempotent."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        self._thread.join(timeout=5.0)

    def __enter__(self) -> CaptureSource:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class SyntheticSource:
    """Rendered table frames (random scenes of one design), numbered and time-stamped."""

    def __init__(
        self, design: str = "classic", seed: int = 0, style: SceneStyle | None = None
    ) -> None:
        if design not in DESIGNS:
            raise RecognizerConfigurationError(
                f"unknown card design {design!r} (expected one of {', '.join(DESIGNS)})"
            )
        self._design = DESIGNS[design]
        self._rng = np.random.default_rng(seed)
        self._style = style or SceneStyle()
        self._count = 0
        self._closed = False

    def read(self) -> Frame:
        """Render and return the next frame."""
        if self._closed:
            raise CameraConnectionError("synthetic camera is closed")
        self._count += 1
        image = render_scene(random_scene(self._rng, self._style, self._design)).image
        return Frame(image, self._count, datetime.now(UTC), time.monotonic())

    def close(self) -> None:
        """Mark the source closed; idempotent."""
        self._closed = True

    def __enter__(self) -> SyntheticSource:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _synthetic(url: str, stall_seconds: float) -> FrameSource:
    query = parse_qs(urlparse(url).query)
    try:
        seed = int(query.get("seed", ["0"])[0])
    except ValueError as err:
        raise RecognizerConfigurationError(f"bad seed in {url!r}") from err
    return SyntheticSource(query.get("design", ["classic"])[0], seed)


def _device(url: str, stall_seconds: float) -> FrameSource:
    index = url.split(":", 1)[1]
    # isdigit() alone admits digits int() refuses (superscripts); VideoCapture takes a C int.
    if not (index.isascii() and index.isdigit()) or int(index) > 2**31 - 1:
        raise RecognizerConfigurationError(f"device index must be a number in {url!r}")
    return CaptureSource(int(index), stall_seconds=stall_seconds)


def _capture(url: str, stall_seconds: float) -> FrameSource:
    return CaptureSource(url, stall_seconds=stall_seconds)


_OPENERS: dict[str, Callable[[str, float], FrameSource]] = {
    "synthetic": _synthetic,
    "device": _device,
}
# An opener for a scheme no backend names would never be reached: the registry is the one list.
if not set(_OPENERS) <= set(source_schemes()):
    raise ImportError("drivers.camera.sources: an opener's scheme is in no camera backend")
# Every other scheme the camera backends name (`backends.CAMERA_BACKENDS`) is OpenCV's to open.
_BY_SCHEME: dict[str, Callable[[str, float], FrameSource]] = {
    scheme: _OPENERS.get(scheme, _capture) for scheme in source_schemes()
}


def open_source(url: str, stall_seconds: float = STALL_SECONDS) -> FrameSource:
    """Open the frame source named by `url` (see the module docstring).

    Raises `RecognizerConfigurationError` for an unknown scheme and `CameraConnectionError` when
    the device, file or stream cannot be opened.
    """
    scheme = url.split(":", 1)[0].lower() if ":" in url else "file"
    if len(scheme) == 1:  # a Windows drive letter, not a scheme
        scheme = "file"
    backend = _BY_SCHEME.get(scheme)
    if backend is None:
        raise RecognizerConfigurationError(
            f"unknown camera source {url!r} (schemes: {', '.join(sorted(_BY_SCHEME))})"
        )
    target = url[len("file://") :] if url.startswith("file://") else url
    return backend(target, stall_seconds)
