"""Every command's checks (role, state, arguments) and what each applied command does."""

from __future__ import annotations

from typing import Any

import pytest
from test_controller_kit import CONFIGS, Bench, bench, shuffled

from studio.controller import ROLES

CARIB = CONFIGS[0]
HOLDEM = CONFIGS[3]
ALL_ROLES = ("dealer", "shift_manager", "settlement", "observer")


def rejected(out: list[Any]) -> str:
    reasons = [e.body["reason"] for e in out if e.type == "command_rejected"]
    assert len(reasons) == 1 and len(out) == 1, out
    assert out[0].audience == "restricted"
    return str(reasons[0])


def paused_after(b: Bench, cards: int) -> Bench:
    b.start()
    b.wait(10.0)
    deck = shuffled(7)
    for _ in range(cards):
        b.deal(deck.pop().code)
    b.cmd("call_manager", role="dealer")
    assert b.view().paused
    return b


@pytest.mark.parametrize(
    ("command", "role"),
    [(c, r) for c, allowed in ROLES.items() for r in ALL_ROLES if r not in allowed],
)
def test_a_command_from_the_wrong_role_is_refused_and_changes_nothing(
    command: str, role: str
) -> None:
    b = paused_after(bench(CARIB), 3)
    before = b.view().model_dump(exclude={"seq"})
    reason = rejected(b.cmd(command, role=role))
    assert reason.startswith(f"{command} needs the role") and role in reason
    assert b.view().model_dump(exclude={"seq"}) == before


def test_only_a_shift_manager_resolves_a_pause() -> None:
    # check_integrity is the shift manager's too, though it resolves nothing (R11's self-check).
    assert {c for c, roles in ROLES.items() if roles == {"shift_manager"}} - {
        "check_integrity"
    } == {
        "resume",
        "correct_card",
        "discard_last_card",
        "rescan",
        "cancel_rescan",
        "acknowledge_device",
        "acknowledge_alarm",
        "void",
    }


@pytest.mark.parametrize(
    ("command", "kw", "reason"),
    [
        ("resume", {}, "the table is not paused"),
        ("void", {}, "a round is voided only while paused"),
        ("correct_card", {"position": "player-1", "card": "AS"}, "needs a paused round"),
        ("discard_last_card", {}, "needs a paused round"),
        ("rescan", {}, "needs a paused round"),
        ("new_deck", {}, "the deck changes only between rounds"),
        ("start_round", {}, "is still in progress"),
    ],
)
def test_commands_in_the_wrong_state_are_refused(
    command: str, kw: dict[str, str], reason: str
) -> None:
    b = bench(CARIB)
    b.start()
    role = "dealer" if command in ("new_deck", "start_round") else "shift_manager"
    assert reason in rejected(b.cmd(command, role=role, **kw))


def test_state_checks_on_an_idle_or_paused_table() -> None:
    b = bench(CARIB)
    assert "needs a paused round" in rejected(b.cmd("rescan", role="shift_manager"))
    b.cmd("call_manager", role="dealer")
    assert "already paused" in rejected(b.cmd("call_manager", role="dealer"))
    assert "resume it first" in rejected(b.cmd("start_round", role="dealer"))
    assert "no round in progress" in rejected(b.cmd("discard_last_card"))
    # Between rounds there is no round to void: a void ends the pause (see test_controller_exits).
    assert [e.type for e in b.cmd("void")] == ["command_accepted", "round_resumed"]
    assert not b.view().paused
    assert [e.type for e in b.cmd("new_deck", role="dealer")] == [
        "command_accepted",
        "deck_changed",
    ]


def test_acknowledging_the_alarm_is_recorded_and_changes_nothing_else() -> None:
    b = bench(CARIB)
    assert "no alarm to acknowledge" in rejected(b.cmd("acknowledge_alarm"))
    b = paused_after(b, 2)
    before = b.view().model_dump(exclude={"seq"})
    out = b.cmd("acknowledge_alarm")
    assert [(e.type, e.audience) for e in out] == [("command_accepted", "restricted")]
    assert out[0].body["actor"] == "m3"
    # Still paused, the same incidents and blockers: only a person's action clears them.
    assert b.view().model_dump(exclude={"seq"}) == before


def test_discard_and_rescan_need_cards() -> None:
    b = paused_after(bench(CARIB), 0)
    assert "no card has been drawn" in rejected(b.cmd("discard_last_card"))
    assert "no card has been dealt" in rejected(b.cmd("rescan"))


@pytest.mark.parametrize(
    ("kw", "reason"),
    [
        ({}, "needs a position and a card"),
        ({"position": "player-1"}, "needs a position and a card"),
        ({"position": "seat-9", "card": "AS"}, "unknown position 'seat-9'"),
        ({"position": "player-5", "card": "AS"}, "nothing has been dealt to player-5"),
        ({"position": "player-1", "card": "ZZ"}, "unknown card code 'ZZ'"),
    ],
)
def test_correct_card_checks_its_arguments(kw: dict[str, str], reason: str) -> None:
    b = paused_after(bench(CARIB), 2)
    assert reason in rejected(b.cmd("correct_card", **kw))


def test_correct_card_refuses_a_card_already_in_the_round() -> None:
    b = paused_after(bench(CARIB), 2)
    first, second = b.view().positions.values()
    assert f"player-1 already holds {first}" in rejected(
        b.cmd("correct_card", position="player-1", card=first)
    )
    assert f"{second} is already at player-2" in rejected(
        b.cmd("correct_card", position="player-1", card=second)
    )


def test_commands_refuse_arguments_they_do_not_take() -> None:
    b = bench(CARIB)
    assert "start_round takes no position" in rejected(
        b.cmd("start_round", role="dealer", position="player-1")
    )
    b = paused_after(bench(CARIB), 1)
    assert "resume takes no card" in rejected(b.cmd("resume", card="AS"))


def test_an_accepted_command_records_its_actor() -> None:
    b = bench(CARIB)
    out = b.start()
    assert [e.type for e in out] == ["round_opened", "betting_light_changed", "command_accepted"]
    assert out[2].audience == "restricted" and out[2].game_number == b.view().game_number
    assert out[2].body["actor"] == "d7" and out[2].body["role"] == "dealer"
    b.cmd("call_manager", role="dealer")
    voided = b.cmd("void")
    assert voided[0].body["actor"] == "m3" and voided[0].game_number == out[0].game_number


def test_unreadable_card_is_corrected_then_the_round_resumes() -> None:
    b = bench(CARIB)
    b.start()
    b.wait(10.0)
    b.deal("2C")
    out = b.draw(None, raw="02 ?? 03")
    assert [e.type for e in out] == ["round_paused", "incident_reported"]
    incident = out[1].body
    assert incident["kind"] == "unreadable_card" and incident["position"] == "player-2"
    assert incident["raw"] == "02 ?? 03"
    assert "player-2 has no readable card" in rejected(b.cmd("resume"))
    out = b.cmd("correct_card", position="player-2", card="kd")
    assert [(e.type, e.audience, e.body.get("card")) for e in out[1:]] == [
        ("card_corrected", "public", "KD"),
        ("card_corrected", "restricted", "KD"),
    ]
    assert b.cmd("resume")[1].type == "round_resumed"
    assert b.view().expecting == "player-3"


def test_discarding_the_last_card_lets_the_next_draw_refill_its_position() -> None:
    b = bench(CARIB)
    b.start()
    b.wait(10.0)
    b.deal("2C")
    b.deal("3C")
    out = b.draw("2C")
    assert out[1].body["kind"] == "duplicate_card" and out[1].body["position"] == "player-3"
    assert "2C is recorded at player-1 and player-3" in rejected(b.cmd("resume"))
    out = b.cmd("discard_last_card")
    assert [(e.audience, e.body) for e in out[1:]] == [
        ("public", {"position": "player-3", "card": "2C"}),
        ("restricted", {"position": "player-3", "card": "2C"}),
    ]
    b.cmd("resume")
    assert b.view().expecting == "player-3"
    assert b.deal("4C")[0].body["position"] == "player-3"


def test_a_card_dealt_before_a_window_opened_cannot_be_discarded() -> None:
    b = bench(HOLDEM)
    b.start()
    b.wait(10.0)
    for code in ("2C", "3C", "4C", "5C"):
        b.deal(code)
    assert b.view().window.name == "preflop"
    b.draw("6C")  # out of turn, during the window
    assert b.cmd("discard_last_card")[1].body == {"position": None, "card": None}
    assert "dealt before a decision window" in rejected(b.cmd("discard_last_card"))
    b.cmd("resume")
    assert b.view().window.name == "preflop"


def test_rescan_matches_every_card_in_dealing_order_and_fills_unreadable_ones() -> None:
    b = bench(CARIB)
    b.start()
    b.wait(10.0)
    b.deal("2C")
    b.draw(None)
    out = b.cmd("rescan")
    assert out[1].body == {"positions": ["player-1", "player-2"]}
    assert "re-scan is in progress" in rejected(b.cmd("resume"))
    b.draw("2C")
    out = b.draw("QH")
    assert out[0].body == {
        "position": "player-2",
        "recorded": None,
        "read": "QH",
        "matched": True,
    }
    assert out[-1].type == "rescan_finished" and out[-1].body["matched"]
    b.cmd("resume")
    assert b.view().positions == {"player-1": "2C", "player-2": "QH"}


def test_a_rescan_mismatch_ends_the_rescan_and_keeps_the_pause() -> None:
    b = paused_after(bench(CARIB), 2)
    b.cmd("rescan")
    out = b.draw("AS")
    assert out[-1].type == "rescan_finished" and not out[-1].body["matched"]
    assert b.view().paused and b.view().rescan_next is None


def test_void_refunds_and_flags_a_jackpot_hand() -> None:
    b = bench(CARIB)
    b.start()
    b.wait(10.0)
    for code in ("2H", "7H", "9H", "JH", "KH"):
        b.deal(code)
    b.cmd("call_manager", role="dealer", note="card flipped")
    out = b.cmd("void", note="card exposed")
    voided = next(e for e in out if e.type == "round_voided")
    assert voided.audience == "public"
    assert voided.body == {
        "refund": "initial_bets",
        "jackpot_compensation": True,
        "incidents": [1],
        "reason": "voided by the shift manager",
        "refunded": ["ante", "bonus", "jackpot"],
    }
    assert b.view().phase == "idle" and not b.view().paused


@pytest.mark.parametrize(("config", "flag"), [(CONFIGS[0], False), (CONFIGS[3], False)])
def test_void_without_a_jackpot_hand_does_not_flag(config: dict[str, Any], flag: bool) -> None:
    b = paused_after(bench(config), 2)
    voided = next(e for e in b.cmd("void") if e.type == "round_voided")
    assert voided.body["jackpot_compensation"] is flag


def test_a_face_down_correction_keeps_its_values_restricted() -> None:
    b = bench(CARIB)
    b.start()
    b.wait(10.0)
    for code in ("2C", "3C", "4C", "5C", "6C", "7C", "8D"):
        b.deal(code)
    assert b.draw("8D")[1].body["kind"] == "duplicate_card"
    out = b.cmd("correct_card", position="dealer-3", card="9D")
    assert [(e.audience, e.body) for e in out[1:]] == [
        ("public", {"position": "dealer-3", "face": "down", "card": None, "previous": None}),
        ("restricted", {"position": "dealer-3", "face": "down", "card": "9D", "previous": "8D"}),
    ]


def test_a_face_up_duplicate_of_a_face_down_card_never_names_it_publicly() -> None:
    b = bench(HOLDEM)
    b.start()
    b.wait(10.0)
    for code in ("2C", "3C", "4C", "5C"):
        b.deal(code)
    b.wait(8.0)
    out = b.draw("4C")  # flop-1, face up, but 4C lies face down at dealer-1
    assert out[1].body["position"] == "flop-1" and out[1].body["kind"] == "duplicate_card"
    out = b.cmd("discard_last_card")
    assert [(e.audience, e.body["card"]) for e in out[1:]] == [
        ("public", None),
        ("restricted", "4C"),
    ]
    b.cmd("resume")
    assert b.draw("4C")[1].body["kind"] == "duplicate_card"
    out = b.cmd("correct_card", position="flop-1", card="9H")
    assert [(e.audience, e.body["previous"]) for e in out[1:]] == [
        ("public", None),
        ("restricted", "4C"),
    ]
    assert not [e for e in b.public() if '"4C"' in e.model_dump_json()]


def test_the_void_note_stays_restricted() -> None:
    # A staff-typed note may name a face-down card: only the restricted stream carries it.
    b = paused_after(bench(CARIB), 8)
    out = b.cmd("void", note="dealer-2 was AS, box flashed")
    assert not [e for e in out if e.audience == "public" and "flashed" in e.model_dump_json()]
    voided = next(e for e in out if e.type == "round_voided")
    assert voided.body["reason"] == "voided by the shift manager"
    accepted = next(e for e in out if e.type == "command_accepted")
    assert accepted.audience == "restricted"
    assert accepted.body["note"] == "dealer-2 was AS, box flashed"
