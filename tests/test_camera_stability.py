"""Zone readings become controller inputs only after agreeing over several frames."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from drivers.camera.reading import CardReading
from drivers.camera.stability import ZoneStabilizer, camera_status

T0 = datetime(2026, 11, 29, 14, 0, tzinfo=UTC)
CORNERS = ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0))


def _card(zone: str, code: str | None, face_down: bool = False) -> CardReading:
    return CardReading(code=code, face_down=face_down, corners=CORNERS, confidence=0.9, zone=zone)


def _feed(
    stab: ZoneStabilizer, frames: list[list[CardReading]]
) -> list[tuple[str, str, str | None]]:
    out = []
    for i, frame in enumerate(frames):
        out += [(s.zone, s.face, s.card) for s in stab.update(frame, T0 + timedelta(seconds=i))]
    return out


def test_a_card_counts_after_three_agreeing_frames_and_only_once() -> None:
    stab = ZoneStabilizer(["player-1", "dealer-1"])
    frames = [[_card("player-1", "AS")]] * 5
    assert _feed(stab, frames) == [("player-1", "up", "AS")]


def test_flicker_reports_nothing() -> None:
    stab = ZoneStabilizer(["player-1"])
    frames = [[_card("player-1", "AS")], [_card("player-1", None)], [_card("player-1", "AS")]] * 3
    assert _feed(stab, frames) == []


def test_a_card_that_stays_unreadable_is_reported_face_up_without_a_code() -> None:
    # A camera-only table needs it: an unreadable card lies there, it is not a card not dealt.
    stab = ZoneStabilizer(["player-1"])
    frames = [[_card("player-1", None)]] * 3 + [[_card("player-1", "AS")]] * 3
    assert _feed(stab, frames) == [("player-1", "up", None), ("player-1", "up", "AS")]


def test_backs_and_removal_are_reported() -> None:
    stab = ZoneStabilizer(["dealer-2"])
    frames = [[_card("dealer-2", None, face_down=True)]] * 3 + [[]] * 3
    assert _feed(stab, frames) == [("dealer-2", "down", None), ("dealer-2", "none", None)]


def test_two_different_cards_in_one_zone_are_not_reported() -> None:
    stab = ZoneStabilizer(["turn"])
    assert _feed(stab, [[_card("turn", "AS"), _card("turn", "KD")]] * 4) == []


def test_camera_status_inputs() -> None:
    assert camera_status(T0).status == "ok"
    fault = camera_status(T0, "no frame for 2 s")
    assert fault.status == "fault" and fault.device == "camera" and "2 s" in fault.detail
