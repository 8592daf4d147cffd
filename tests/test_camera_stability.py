"""Zone readings become controller inputs only after agreeing over several frames."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from drivers.camera.reading import CardReading
from drivers.camera.stability import FRAMES_REQUIRED, ZoneStabilizer, camera_status

T0 = datetime(2026, 11, 29, 14, 0, tzinfo=UTC)
CORNERS = ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0))


def _card(zone: str, code: str | None, face_down: bool = False) -> CardReading:
    return CardReading(code=code, face_down=face_down, corners=CORNERS, confidence=0.9, zone=zone)


def _feed(
    stab: ZoneStabilizer, frames: list[list[CardReading]]
) -> list[tuple[str, str, str | None]]:
    out: list[tuple[str, str, str | None]] = []
    for i, frame in enumerate(frames):
        out += [(s.zone, s.face, s.card) for s in stab.update(frame, T0 + timedelta(seconds=i))]
    return out


def test_a_card_counts_after_three_agreeing_frames_and_only_once() -> None:
    stab = ZoneStabilizer(["player-1", "dealer-1"])
    frames = [[_card("player-1", "AS")]] * 5
    assert _feed(stab, frames) == [("player-1", "up", "AS")]


def _views(spelled: str) -> list[list[CardReading]]:
    """Frames of one zone "z" from a spelling: a code, "?" an unread face up, "v" a back,
    "-" nothing, "*" two cards that disagree."""
    frames: dict[str, list[CardReading]] = {
        "?": [_card("z", None)],
        "v": [_card("z", None, face_down=True)],
        "-": [],
        "*": [_card("z", "AS"), _card("z", "KD")],
    }
    return [frames.get(v, [_card("z", v)]) for v in spelled.split()]


def _reports(spelled: str) -> list[tuple[str, str | None]]:
    return [(face, code) for _, face, code in _feed(ZoneStabilizer(["z"]), _views(spelled))]


def test_frames_that_cannot_read_the_card_do_not_hold_back_its_reads() -> None:
    # The held-out felt's late ace: read in half its frames, never three in a row.
    assert _reports("AS ? ? AS ? AS") == [("up", "AS")]
    assert _reports("? ? ? AS AS ? AS ? ? AS ? AS") == [("up", None), ("up", "AS")]


def test_a_card_that_stays_unread_is_still_reported_face_up_without_a_code() -> None:
    assert _reports("? ? ?") == [("up", None)]


def test_a_card_read_two_ways_by_turns_is_not_confirmed() -> None:
    assert _reports("6D 9D 6D 9D") == []
    assert _reports("6D ? 9D 6D ? 6D 9D ? 6D") == []


def test_any_other_view_between_reads_breaks_the_run() -> None:
    for other in ("v", "-", "*", "KD"):
        assert ("up", "AS") not in _reports(f"AS ? AS {other} AS ? AS")


def test_reads_spread_over_more_than_twice_the_frames_do_not_confirm_the_card() -> None:
    # A reader that mostly abstains on a card is not confirming it, whatever it reads now and
    # then; the unread face is what the zone shows.
    assert _reports("AS ? ? ? ? AS ? ? ? ? AS") == [("up", None)]
    assert _reports("AS ? ? ? AS ? AS") == [("up", None)]


SPELLINGS = st.lists(st.sampled_from(["AS", "6D", "9D", "?", "?", "v", "-", "*"]), max_size=40)


def _reported_at(spelled: list[str]) -> list[tuple[int, str | None]]:
    """(frame, code) of each face-up report of feeding `spelled`, one report per frame at most."""
    stab = ZoneStabilizer(["z"])
    out = []
    for n, frame in enumerate(_views(" ".join(spelled))):
        out += [
            (n, s.card) for s in stab.update(frame, T0 + timedelta(seconds=n)) if s.face == "up"
        ]
    return out


@given(SPELLINGS)
def test_a_code_is_reported_only_on_enough_reads_with_nothing_else_between(
    spelled: list[str],
) -> None:
    for n, code in _reported_at(spelled):
        if code is None:
            continue
        assert spelled[n] == code
        start = n
        while start > 0 and spelled[start - 1] in (code, "?"):
            start -= 1
        reads = [i for i in range(start, n + 1) if spelled[i] == code]
        assert len(reads) >= FRAMES_REQUIRED
        # ... and its last reads lie within twice as many frames.
        assert n - reads[-FRAMES_REQUIRED] < 2 * FRAMES_REQUIRED


@given(SPELLINGS)
def test_no_code_is_reported_that_no_frame_read(spelled: list[str]) -> None:
    for n, code in _reported_at(spelled):
        assert code is None or code in spelled[: n + 1]


@given(SPELLINGS, st.sampled_from(["AS", "6D"]))
def test_a_code_read_in_consecutive_frames_is_confirmed_as_before(
    spelled: list[str], code: str
) -> None:
    frames = _views(" ".join([*spelled, *[code] * FRAMES_REQUIRED]))
    reports = _feed(ZoneStabilizer(["z"]), frames)
    assert reports and reports[-1] == ("z", "up", code)


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
