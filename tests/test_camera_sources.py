"""Frame sources: a video file through VideoCapture, stall detection, reconnection, closing."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from drivers.camera.errors import (
    CameraConnectionError,
    CameraStalledError,
    RecognizerConfigurationError,
)
from drivers.camera.sources import CaptureSource, SyntheticSource, open_source


class FakeCapture:
    """A capture that serves frames while `live` is set and blocks briefly otherwise."""

    def __init__(self, live: threading.Event, opened: list[int]) -> None:
        self.live = live
        opened.append(1)

    def isOpened(self) -> bool:  # noqa: N802
        return True

    def read(self) -> tuple[bool, Any]:
        if self.live.wait(0.02):
            return True, np.zeros((8, 8, 3), np.uint8)
        return False, None

    def release(self) -> None:
        pass


def test_video_file_frames_are_read_in_order(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for i in range(5):
        writer.write(np.full((48, 64, 3), 40 * i, np.uint8))
    writer.release()
    with open_source(str(path), stall_seconds=1.0) as source:
        first = source.read()
        assert first.number >= 1 and first.image.shape == (48, 64, 3)
        assert first.ts.tzinfo is not None


def test_silence_becomes_a_stall_and_frames_return_after_reconnection() -> None:
    live = threading.Event()
    live.set()
    opened: list[int] = []
    source = CaptureSource(
        "fake", stall_seconds=0.3, reconnect_delay=0.01, reconnect_attempts=1000,
        opener=lambda _t: FakeCapture(live, opened),
    )  # fmt: skip
    with source:
        assert source.read().image.shape == (8, 8, 3)
        live.clear()
        with pytest.raises(CameraStalledError):
            for _ in range(100):
                source.read()
        assert len(opened) > 1
        live.set()
        assert source.read().number > 1
    source.close()


def test_lost_device_is_reported_once_reconnection_gives_up() -> None:
    live = threading.Event()
    source = CaptureSource(
        "fake", stall_seconds=5.0, reconnect_delay=0.0, reconnect_attempts=2,
        opener=lambda _t: FakeCapture(live, []),
    )  # fmt: skip
    with source, pytest.raises(CameraConnectionError, match="lost"):
        source.read()


def test_bad_urls_and_missing_files_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(RecognizerConfigurationError):
        open_source("gopher://camera")
    with pytest.raises(CameraConnectionError):
        open_source(str(tmp_path / "missing.avi"))


def test_synthetic_source_numbers_frames_and_closes_idempotently() -> None:
    with open_source("synthetic://?design=jumbo&seed=4") as source:
        assert isinstance(source, SyntheticSource)
        assert [source.read().number for _ in range(2)] == [1, 2]
    source.close()
    with pytest.raises(CameraConnectionError):
        source.read()


@pytest.mark.parametrize("url", ["device:abc", "device:-1", "device:\u00b2", f"device:{2**64}"])
def test_a_device_index_that_is_no_camera_number_is_a_configuration_error(url: str) -> None:
    # A superscript digit passed isdigit() and failed int(); 2**64 overflowed VideoCapture:
    # both were tracebacks from `studio run`.
    with pytest.raises(RecognizerConfigurationError, match="device index"):
        open_source(url)
