"""Every paused table has a way out: each blocker names its action, and each action works."""

from __future__ import annotations

from typing import Any

from test_controller_kit import CONFIGS, bench

CARIB = CONFIGS[0]


def types(out: list[Any]) -> list[str]:
    return [e.type for e in out]


def test_a_restarted_shoe_is_acknowledged_then_the_table_resumes_and_opens_rounds() -> None:
    b = bench(CARIB)
    b.status("shoe", "fault", "shoe restarted at seq 1")
    snap = b.view()
    assert snap.paused and snap.devices["shoe"] == "fault"
    assert snap.resume_blockers == ("the shoe is fault: acknowledge_device once it works",)
    out = b.cmd("acknowledge_device")
    assert types(out) == ["command_accepted", "device_health_changed"]
    assert out[1].body == {
        "device": "shoe",
        "status": "ok",
        "detail": "acknowledged by the shift manager",
    }
    assert b.view().resume_blockers == ()
    assert "round_resumed" in types(b.cmd("resume"))
    assert types(b.start())[0] == "round_opened"


def test_a_fault_acknowledged_mid_round_resumes_the_round_and_replays() -> None:
    b = bench(CARIB)
    b.start()
    b.wait(10.0)
    b.deal("2C")
    b.status("shoe", "fault", "shoe restarted at seq 1")
    b.restart()
    assert "the shoe is fault" in b.cmd("resume")[0].body["reason"]
    b.cmd("acknowledge_device")
    assert "round_resumed" in types(b.cmd("resume"))
    assert b.view().expecting == "player-2"
    assert [e.model_dump() for e in b.replay()] == [e.model_dump() for e in b.events]


def test_acknowledge_device_needs_a_broken_device_and_a_shift_manager() -> None:
    b = bench(CARIB)
    reason = b.cmd("acknowledge_device")[0].body["reason"]
    assert reason == "every device is ok: nothing to acknowledge"
    b.status("shoe", "fault", "jam")
    reason = b.cmd("acknowledge_device", role="dealer")[0].body["reason"]
    assert reason.startswith("acknowledge_device needs the role shift_manager")
    assert b.view().devices["shoe"] == "fault"


def test_void_ends_a_pause_between_rounds() -> None:
    b = bench(CARIB)
    b.status("shoe", "fault", "shoe restarted at seq 1")
    out = b.cmd("void")
    assert types(out) == ["command_accepted", "round_resumed"]
    snap = b.view()
    assert not snap.paused and snap.incidents == ()
    # The shoe still needs its acknowledgement before a round may open on it.
    assert "the shoe is fault" in b.start()[0].body["reason"]
    b.cmd("acknowledge_device")
    assert types(b.start())[0] == "round_opened"


def test_a_rescan_can_be_cancelled_and_names_its_way_out() -> None:
    b = bench(CARIB)
    b.start()
    b.wait(10.0)
    b.deal("2C")
    b.deal("3C")
    b.cmd("call_manager", role="dealer")
    b.cmd("rescan")
    blocker = "a re-scan is in progress (2 card(s) still to read): draw them or cancel_rescan"
    assert b.view().resume_blockers == (blocker,)
    assert b.cmd("discard_last_card")[0].body["reason"] == blocker
    out = b.cmd("cancel_rescan")
    assert types(out) == ["command_accepted", "rescan_finished"]
    assert out[1].body == {
        "matched": False,
        "detail": "cancelled by the shift manager with 2 card(s) still to read",
    }
    assert b.view().rescan_next is None and b.view().resume_blockers == ()
    assert "round_resumed" in types(b.cmd("resume"))
    assert b.view().expecting == "player-3"


def test_cancel_rescan_needs_a_rescan() -> None:
    b = bench(CARIB)
    b.start()
    b.cmd("call_manager", role="dealer")
    assert b.cmd("cancel_rescan")[0].body["reason"] == "no re-scan is in progress"
