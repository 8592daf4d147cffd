"""The table's camera: frames -> recognizer -> stable zones -> `card_seen` inputs, off the loop.

`open_camera(config, positions, post)` builds the camera named by `camera.backend`:

- "synthetic": a `Felt` (what the simulated dealer laid on the table) drawn by
  `drivers.camera.synthetic.felt.FeltSource` in zones named by the game's positions, read with a
  profile learned at start-up from rendered scans of the same deck (`felt_profile`);
- "capture": `drivers.camera.sources.open_source(camera.url)` (a device, file or stream) with the
  calibration profile at `camera.profile`, whose zones must be the game's positions.

"none" and "simulated" (the simulated dealer reports sightings itself) build no camera.

A `CameraReader` thread grabs frames at `camera.fps`, runs `CardRecognizer` (OpenCV releases the
GIL while it works), feeds `ZoneStabilizer` and hands finished inputs to `post`, which the
runtime points at its loop: the loop only journals and applies them, so a frame never delays a
card from the shoe. A source that stalls or is lost becomes a `device_status` fault (the
controller pauses the round); frames coming back report the camera ok again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from calibration.errors import CalibrationError
from calibration.profile import CalibrationProfile, DeckTemplates, load_profile
from drivers.camera.backends import CAMERA_BACKENDS
from drivers.camera.errors import CameraError
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.sources import Frame, FrameSource, open_source
from drivers.camera.stability import ZoneStabilizer, camera_status
from drivers.camera.still import StillRecognizer
from drivers.camera.synthetic.designs import DESIGNS
from drivers.camera.synthetic.felt import Felt, FeltLayout, FeltSource, felt_profile
from studio.bus.replay import ZoneCrop
from studio.closing import Closing
from studio.config import RuntimeConfig, cache_dir
from studio.errors import ConfigurationError
from studio.messages import Envelope, Input
from studio.runtime.zone_crop import ZoneCropper

log = logging.getLogger(__name__)

Post = Callable[[list[Input]], None]
"""Hands inputs from the camera's thread to the table (the runtime's loop)."""


def position_rows(positions: Sequence[str]) -> list[list[str]]:
    """Arrange a game's positions in rows as the felt shows them: dealer, board, then player."""
    dealer = [p for p in positions if p.startswith("dealer")]
    player = [p for p in positions if p.startswith("player")]
    board = [p for p in positions if p not in dealer and p not in player]
    return [row for row in (dealer, board, player) if row]


class CameraReader(Closing):
    """Reads `source` at `fps` on its own thread and posts the table inputs the frames give.

    Per frame: the recognizer's readings (reused while the source hands back the same image
    object, and through `StillRecognizer` while the picture has not changed since it was last
    read: cards at rest; a picture changed in part is read in that part), `ZoneStabilizer` for
    `zones`, and the
    `card_seen` inputs that are due. The first frame, and the first after a fault, post the
    camera ok; a `CameraError` from the source (stalled, lost) posts a fault once. With
    `heartbeat` seconds, an ok is posted that often for the table's silence watch. `new_round()`
    makes every zone's content count afresh, so a card like the last round's at the same zone is
    reported again. Start with `start()`; `close()` is idempotent and closes the source.
    """

    def __init__(
        self,
        source: FrameSource,
        recognizer: CardRecognizer,
        zones: Sequence[str],
        post: Post,
        *,
        fps: float,
        heartbeat: float | None = None,
    ) -> None:
        self._source = source
        self._recognizer = StillRecognizer(recognizer)
        self._zones = tuple(zones)
        self._post = post
        self._period = 1.0 / fps
        self._heartbeat = heartbeat
        self._stop = threading.Event()
        self._reset = threading.Event()
        self._thread = threading.Thread(target=self._run, name="camera-reader", daemon=True)
        self._closed = False
        self._latest: Frame | None = None
        self.frames = 0
        self.recognitions = 0
        self.part_reads = 0
        self.reused = 0
        self.cpu_seconds = 0.0

    def start(self) -> None:
        """Start reading."""
        self._thread.start()

    def new_round(self) -> None:
        """Forget what was reported per zone (any thread): each zone's content counts again."""
        self._reset.set()

    def latest(self) -> Frame | None:
        """The last frame read (any thread; None before the first)."""
        return self._latest

    def _run(self) -> None:
        started = time.thread_time()
        try:
            self._read_frames()
        except Exception as err:  # a reader that dies must say so, not fall silent
            log.exception("the camera reader failed")
            self._post([camera_status(datetime.now(UTC), f"camera reader failed: {err!r}")])
        finally:
            self.cpu_seconds = time.thread_time() - started

    def _read_frames(self) -> None:
        stabilizer = ZoneStabilizer(self._zones)
        fault: str | None = "starting"
        image: Any = None
        readings: list[Any] = []
        beat_at = time.monotonic()
        due = time.monotonic()
        while not self._stop.is_set():
            try:
                frame = self._source.read()
            except CameraError as err:
                if self._stop.is_set():
                    return
                if fault != str(err):
                    fault = str(err)
                    log.warning("camera fault: %s", fault)
                    self._post([camera_status(datetime.now(UTC), fault)])
                self._stop.wait(self._period)
                continue
            self.frames += 1
            self._latest = frame  # one reference swapped whole: safe to read from any thread
            inputs: list[Input] = []
            if fault is not None or (
                self._heartbeat is not None and frame.at - beat_at >= self._heartbeat
            ):
                inputs.append(camera_status(frame.ts))
                fault, beat_at = None, frame.at
            if self._reset.is_set():
                self._reset.clear()
                stabilizer = ZoneStabilizer(self._zones)
            if frame.image is not image:
                readings = self._recognizer.recognize(frame.image)
                image = frame.image
                self.recognitions = self._recognizer.reads
                self.part_reads = self._recognizer.part_reads
                self.reused = self._recognizer.reuses
            for seen in stabilizer.update(readings, frame.ts):
                inputs.append(seen.model_copy(update={"raw": f"camera frame {frame.number}"}))
            if inputs:
                self._post(inputs)
            due = max(due + self._period, time.monotonic())
            self._stop.wait(max(0.0, due - time.monotonic()))

    def close(self) -> None:
        """Stop reading and close the source; idempotent."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        self._source.close()
        if self._thread.is_alive():
            self._thread.join(timeout=5.0)


@dataclass(frozen=True, slots=True)
class _Parts:
    source: FrameSource
    profile: CalibrationProfile
    templates: DeckTemplates | None
    felt: Felt | None
    text: str


def _synthetic(config: RuntimeConfig, positions: Sequence[str]) -> _Parts:
    camera = config.camera
    layout = FeltLayout.build(position_rows(positions), DESIGNS[camera.design])
    started = time.monotonic()
    profile, templates = felt_profile(layout, model_cache=cache_dir())
    learned = time.monotonic() - started
    felt = Felt(seed=config.dealer.seed)
    width, height = layout.size
    text = (
        f"synthetic: the felt drawn at {width}x{height} ({camera.design} deck, cards"
        f" ~{layout.card_height_px():.0f} px), {camera.fps:g} fps, deck learned in {learned:.1f} s"
    )
    return _Parts(FeltSource(felt, layout), profile, templates, felt, text)


def _capture(config: RuntimeConfig, positions: Sequence[str]) -> _Parts:
    camera = config.camera
    assert camera.url is not None and camera.profile is not None
    directory = config.expand(camera.profile)
    try:
        profile, templates = load_profile(directory)
    except CalibrationError as err:
        raise ConfigurationError(f"camera.profile: {err}") from err
    if profile.table is None:
        raise ConfigurationError(
            f"camera.profile: {directory} has no table calibration (studio calibrate table)"
        )
    names = [zone.name for zone in profile.zones]
    missing = [p for p in positions if p not in names]
    unknown = [n for n in names if n not in positions]
    if missing or unknown:
        raise ConfigurationError(
            f"camera.profile: the zones in {directory} must be the positions of "
            f"{config.table.game} (missing: {' '.join(missing) or '-'};"
            f" not positions: {' '.join(unknown) or '-'})"
        )
    source = open_source(camera.url, camera.stall_seconds)
    text = f"capture at {camera.url}, profile {directory}, {camera.fps:g} fps"
    return _Parts(source, profile, templates, None, text)


_BUILDERS: dict[str, Callable[[RuntimeConfig, Sequence[str]], _Parts]] = {
    "synthetic": _synthetic,
    "capture": _capture,
}
# How each backend of `CAMERA_BACKENDS` that reads frames is built (the others build nothing).
if set(_BUILDERS) != {n for n, b in CAMERA_BACKENDS.items() if b.schemes}:
    raise ImportError("studio.runtime.camera: a frame-reading camera backend has no builder")


class CameraDevice(Closing):
    """The table's camera: a frame source, its recognizer and the reader thread.

    `felt` is the synthetic camera's felt (None for a real camera): the simulated dealer lays
    cards on it. Context manager; `close()` is idempotent.
    """

    def __init__(self, parts: _Parts, reader: CameraReader) -> None:
        self.felt = parts.felt
        self._text = parts.text
        self._cropper = ZoneCropper(parts.profile)
        self.reader = reader

    def describe(self) -> str:
        """One line: which camera, at what rate."""
        return self._text

    def new_round(self) -> None:
        """A round opened: every zone's content counts afresh."""
        self.reader.new_round()

    def zone_crop(self, zone: str) -> ZoneCrop | None:
        """`zone` in the latest frame as JPEG (any thread); None before a frame or off-image."""
        frame = self.reader.latest()
        if frame is None:
            return None
        jpeg = self._cropper.crop(frame.image, zone)
        return None if jpeg is None else ZoneCrop(zone, frame.number, frame.ts, jpeg)

    def on_event(self, event: Envelope) -> None:
        """Follow the table's events as a listener: a round's opening starts the zones afresh."""
        if event.type == "round_opened":
            self.new_round()

    def close(self) -> None:
        """Stop the reader and close the source; idempotent."""
        self.reader.close()
        log.info(
            "camera: %d frames, %d recognised (%d of them in their changed part only), %d"
            " unchanged (last read reused), %.2f s CPU",
            self.reader.frames,
            self.reader.recognitions,
            self.reader.part_reads,
            self.reader.reused,
            self.reader.cpu_seconds,
        )


def open_camera(config: RuntimeConfig, positions: Sequence[str], post: Post) -> CameraDevice | None:
    """Build and start the camera `config.camera` names (None for "none" and "simulated").

    Raises `ConfigurationError` for a profile that cannot be used, or a source that cannot be
    opened.
    """
    build = _BUILDERS.get(config.camera.backend)
    if build is None:
        return None
    try:
        parts = build(config, positions)
    except (CameraError, CalibrationError) as err:
        raise ConfigurationError(f"camera: {err}") from err
    try:
        recognizer = CardRecognizer(parts.profile, parts.templates, reader=config.camera.reader)
    except CameraError as err:
        parts.source.close()
        raise ConfigurationError(f"camera: {err}") from err
    silence = config.table.device_silence_seconds
    reader = CameraReader(
        parts.source,
        recognizer,
        positions,
        post,
        fps=config.camera.fps,
        heartbeat=silence / 3 if silence is not None else None,
    )
    reader.start()
    return CameraDevice(parts, reader)
