"""Every paused table has a way out: each blocker names its action, and each action works."""

from __future__ import annotations

from typing import Any, get_args

import pytest
from pydantic import ValidationError
from test_controller_kit import CONFIGS, bench

from studio.console.display import clearing_actions
from studio.controller import ROLES
from studio.messages.schema import json_schema
from studio.messages.view import CLEARED_BY, BlockerKind, ResumeBlocker, TableView

CARIB = CONFIGS[0]


def types(out: list[Any]) -> list[str]:
    return [e.type for e in out]


def test_a_restarted_shoe_is_acknowledged_then_the_table_resumes_and_opens_rounds() -> None:
    b = bench(CARIB)
    b.status("shoe", "fault", "shoe restarted at seq 1")
    snap = b.view()
    assert snap.paused and snap.devices["shoe"] == "fault"
    assert snap.resume_blockers == ("the shoe is fault: acknowledge_device once it works",)
    assert snap.blockers == (
        ResumeBlocker(
            kind="device_unhealthy",
            words="the shoe is fault: acknowledge_device once it works",
            actions=("acknowledge_device",),
            device="shoe",
        ),
    )
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


def test_a_views_json_keeps_the_lines_beside_the_typed_blockers_and_reads_older_views() -> None:
    b = bench(CARIB)
    b.start()
    b.wait(10.0)
    b.draw(None)  # player-1: a card the shoe could not read
    view = b.view()
    (blocker,) = view.blockers
    assert blocker.kind == "unreadable_card" and blocker.position == "player-1"
    assert blocker.actions == ("correct_card", "discard_last_card", "rescan")
    wire = view.model_dump(mode="json")
    # What status --json, the replay service and the console have always read is still there.
    assert wire["resume_blockers"] == [blocker.words]
    assert wire["blockers"][0]["actions"] == ["correct_card", "discard_last_card", "rescan"]
    assert TableView.model_validate_json(view.model_dump_json()) == view
    # A view from a table older than the typed blockers: its lines only.
    older = {k: v for k, v in wire.items() if k != "blockers"}
    assert TableView.model_validate(older).blockers == ()
    # A view given the typed blockers alone has its lines made from their words.
    newer = {k: v for k, v in wire.items() if k != "resume_blockers"}
    assert TableView.model_validate(newer).resume_blockers == (blocker.words,)
    with pytest.raises(ValidationError, match="resume_blockers must be the words of blockers"):
        TableView.model_validate({**wire, "resume_blockers": ["something else"]})


def test_the_consoles_buttons_are_the_commands_the_blockers_name_then_void() -> None:
    b = bench(CARIB)
    b.start()
    b.wait(10.0)
    b.draw(None)
    assert clearing_actions(b.view()) == ("correct_card", "discard_last_card", "rescan", "void")
    b.cmd("discard_last_card")
    assert clearing_actions(b.view()) == ("resume", "void")
    b.status("shoe", "fault", "shoe restarted at seq 1")
    assert clearing_actions(b.view()) == ("acknowledge_device", "void")


def test_studio_schema_describes_the_typed_blockers_beside_the_lines() -> None:
    view = json_schema()["table_view"]
    assert view["properties"]["resume_blockers"]["items"] == {"type": "string"}
    blocker = view["$defs"]["ResumeBlocker"]
    assert {"kind", "words", "actions"} <= set(blocker["required"])
    assert "acknowledge_device" in blocker["properties"]["actions"]["items"]["enum"]


def test_every_blocker_kind_names_its_commands_in_one_registry() -> None:
    assert set(CLEARED_BY) == set(get_args(BlockerKind))
    assert all(action in ROLES for actions in CLEARED_BY.values() for action in actions)
    blocker = ResumeBlocker.of("stray_cards", "1 card(s) drawn out of turn: discard")
    assert blocker.actions == ("discard_last_card",)
