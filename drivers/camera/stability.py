"""From per-frame readings to controller inputs: a zone's card counts once it is stable.

`ZoneStabilizer.update(readings, ts)` takes one frame's `CardReading`s and returns the
`studio.messages.CardSeen` inputs for zones whose content has read the same for
`frames_required` consecutive frames and differs from what was last reported. A face-up card that
stays unreadable is reported as face up with no code: it confirms nothing (on a shoe table the
confirmation timeout still turns it into a fault), and a camera-only table needs it to tell an
unreadable card from a card not yet dealt. A zone whose readings disagree within one frame (two
cards, or one read two ways) is reported as nothing. `camera_status` turns a source's health
into a `DeviceStatus` input.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from drivers.camera.reading import CardReading
from studio.messages.inputs import CardSeen, DeviceStatus

FRAMES_REQUIRED = 3
"""Consecutive agreeing frames before a zone's content counts: at 25 fps that is 120 ms, longer
than a dealer's hand passing over the zone, short against the confirmation timeout."""

UNCLEAR = ("unclear", None)
"""The view of a zone whose readings disagree within one frame: it counts towards nothing."""


def observe(readings: Sequence[CardReading]) -> tuple[str, str | None]:
    """One frame's view of a zone: ("up", code or None), ("down", None), ("none", None), unclear."""
    if not readings:
        return "none", None
    codes = {r.code for r in readings if r.code is not None}
    if len(readings) == 1 and readings[0].face_down:
        return "down", None
    if len(codes) == 1 and all(r.code is not None for r in readings):
        return "up", codes.pop()
    if len(readings) == 1:
        return "up", None
    return UNCLEAR


class ZoneStabilizer:
    """Debounces zone readings over frames; one instance per camera, fed every frame in order."""

    def __init__(self, zones: Sequence[str], frames_required: int = FRAMES_REQUIRED) -> None:
        if frames_required < 1:
            raise ValueError("frames_required must be at least 1")
        self._zones = tuple(zones)
        self._required = frames_required
        self._candidate: dict[str, tuple[str, str | None]] = {}
        self._count: dict[str, int] = dict.fromkeys(self._zones, 0)
        self._reported: dict[str, tuple[str, str | None]] = {}

    def update(self, readings: Sequence[CardReading], ts: datetime) -> list[CardSeen]:
        """Feed one frame's readings (time `ts`, aware UTC); return the inputs now due."""
        by_zone: dict[str, list[CardReading]] = {z: [] for z in self._zones}
        for reading in readings:
            if reading.zone in by_zone:
                by_zone[reading.zone].append(reading)
        out = []
        for zone in self._zones:
            seen = observe(by_zone[zone])
            if seen == self._candidate.get(zone):
                self._count[zone] += 1
            else:
                self._candidate[zone] = seen
                self._count[zone] = 1
            due = self._count[zone] >= self._required and seen != UNCLEAR
            if due and self._reported.get(zone, ("none", None)) != seen:
                self._reported[zone] = seen
                face, code = seen
                out.append(CardSeen(ts=ts, zone=zone, face=face, card=code))
        return out


def camera_status(ts: datetime, fault: str | None = None) -> DeviceStatus:
    """The camera's health as an input: "ok" (a heartbeat) or "fault" with its one-line detail."""
    if fault is None:
        return DeviceStatus(ts=ts, device="camera", status="ok")
    return DeviceStatus(ts=ts, device="camera", status="fault", detail=fault)
