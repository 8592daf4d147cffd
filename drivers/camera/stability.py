"""From per-frame readings to controller inputs: a zone's card counts once it is stable.

`ZoneStabilizer.update(readings, ts)` takes one frame's `CardReading`s and returns the
`studio.messages.CardSeen` inputs for zones whose content has read the same for
`frames_required` frames and differs from what was last reported. A face down, an empty zone
and an unreadable face must hold for that many consecutive frames. A code must be read in that
many frames with no other view between them, except frames that show a face up the reader could
not read: such a frame says nothing about which card lies there, so it neither counts towards
the code nor breaks its run (it is neutral), as long as the code's reads lie within
`2 * frames_required` frames (`ZoneStabilizer`). A face-up card that stays unreadable is
reported as face up with no code once the zone showed it in `frames_required` frames in a row,
as before: it confirms nothing (on a shoe table the confirmation timeout still turns it into a
fault), and a camera-only table needs it to tell an unreadable card from a card not yet dealt.
A zone whose readings disagree within one frame (two cards, or one read two ways) is reported
as nothing. `camera_status` turns a source's health into a `DeviceStatus` input.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from drivers.camera.reading import CardReading
from studio.messages.inputs import CardSeen, DeviceStatus

FRAMES_REQUIRED = 3
"""Frames agreeing on a zone's content before it counts (consecutive, but for unread faces
between a code's reads): at 25 fps that is 120 ms, longer than a dealer's hand passing over the
zone, short against the confirmation timeout."""

UNCLEAR = ("unclear", None)
"""The view of a zone whose readings disagree within one frame: it counts towards nothing."""

UNREAD = ("up", None)
"""The view of a zone holding one face-up card the reader could not read."""

View = tuple[str, str | None]


def observe(readings: Sequence[CardReading]) -> View:
    """One frame's view of a zone: ("up", code or None), ("down", None), ("none", None), unclear."""
    if not readings:
        return "none", None
    codes = {r.code for r in readings if r.code is not None}
    if len(readings) == 1 and readings[0].face_down:
        return "down", None
    if len(codes) == 1 and all(r.code is not None for r in readings):
        return "up", codes.pop()
    if len(readings) == 1:
        return UNREAD
    return UNCLEAR


def _is_code(view: View | None) -> bool:
    return view is not None and view[1] is not None


@dataclass(slots=True)
class _Run:
    """A zone's current run of frames.

    `view`: the view being counted; `frames`: the frames it was seen at (the last `required`
    of them, by the stabilizer's frame number); `unread`: unread faces in a row, up to now.
    """

    view: View | None = None
    frames: list[int] = field(default_factory=list)
    unread: int = 0

    def see(self, seen: View, n: int, required: int, span: int) -> View | None:
        """Frame `n` showed `seen`: the view now due for the zone, or None."""
        if seen == UNREAD:
            # Neutral to a code's run; any other run it ends. The unread face itself is due
            # after `required` of them in a row, whatever was read before.
            self.unread += 1
            if not _is_code(self.view):
                self.view, self.frames = UNREAD, []
            return UNREAD if self.unread >= required else None
        self.unread = 0
        if seen == self.view:
            self.frames.append(n)
        else:
            self.view, self.frames = seen, [n]
        del self.frames[:-required]
        if seen == UNCLEAR or len(self.frames) < required or n - self.frames[0] >= span:
            return None
        return seen


class ZoneStabilizer:
    """Debounces zone readings over frames; one instance per camera, fed every frame in order.

    A code's `frames_required` reads must lie within `2 * frames_required` frames: unread faces
    between them may not outnumber them. Unbounded, a card the reader mostly abstains on and now
    and then misreads the same way would be confirmed as the misread from reads spread over
    seconds, where the rule without neutral frames asks for that many misreads in a row; at half
    the frames the code still has to be the zone's usual read, and its confirmation waits at
    most twice the frames a card read every frame takes. The bound follows from the rule, not a
    bench: a card read in fewer than half its frames is one the reader does not read.
    """

    def __init__(self, zones: Sequence[str], frames_required: int = FRAMES_REQUIRED) -> None:
        if frames_required < 1:
            raise ValueError("frames_required must be at least 1")
        self._zones = tuple(zones)
        self._required = frames_required
        self._span = 2 * frames_required
        self._frame = 0
        self._runs: dict[str, _Run] = {z: _Run() for z in self._zones}
        self._reported: dict[str, View] = {}

    def update(self, readings: Sequence[CardReading], ts: datetime) -> list[CardSeen]:
        """Feed one frame's readings (time `ts`, aware UTC); return the inputs now due."""
        by_zone: dict[str, list[CardReading]] = {z: [] for z in self._zones}
        for reading in readings:
            if reading.zone in by_zone:
                by_zone[reading.zone].append(reading)
        self._frame += 1
        out = []
        for zone in self._zones:
            due = self._runs[zone].see(
                observe(by_zone[zone]), self._frame, self._required, self._span
            )
            if due is not None and self._reported.get(zone, ("none", None)) != due:
                self._reported[zone] = due
                face, code = due
                out.append(CardSeen(ts=ts, zone=zone, face=face, card=code))
        return out


def camera_status(ts: datetime, fault: str | None = None) -> DeviceStatus:
    """The camera's health as an input: "ok" (a heartbeat) or "fault" with its one-line detail."""
    if fault is None:
        return DeviceStatus(ts=ts, device="camera", status="ok")
    return DeviceStatus(ts=ts, device="camera", status="fault", detail=fault)
