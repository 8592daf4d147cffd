"""Timers as deadlines against input time: betting light, windows, deal and camera timeouts,
device silence, freezing on pause, restarts, game numbers and automatic rounds."""

from __future__ import annotations

from datetime import timedelta

from test_controller_kit import CONFIGS, T0, Bench, bench, shuffled

from studio.controller import TableController
from studio.messages import Tick

CARIB, LATE, HOLDEM = CONFIGS[0], CONFIGS[1], CONFIGS[3]


def left(b: Bench) -> dict[str, float | None]:
    """A paused table's timers: kind -> seconds left."""
    return {t.kind: t.remaining_seconds for t in b.view().timers}


def types(out: list[object]) -> list[str]:
    return [e.type for e in out]  # type: ignore[attr-defined]


def test_betting_goes_green_then_yellow_then_closes() -> None:
    b = bench(CARIB)
    out = b.start()
    assert out[0].body["yellow_at"] == "2026-11-29T14:32:14Z"
    assert out[1].body == {"light": "green", "closes_at": "2026-11-29T14:32:17Z"}
    assert b.wait(6.999) == []
    assert [e.body["light"] for e in b.wait(0.001)] == ["yellow"]
    assert b.wait(2.999) == []
    out = b.wait(0.001)
    assert types(out) == ["betting_light_changed", "betting_closed"]
    assert out[0].body["light"] == "red" and b.view().expecting == "player-1"


def test_timers_fire_at_their_deadline_even_when_the_input_comes_late() -> None:
    b = bench(CARIB)
    b.start()
    out = b.wait(60.0)
    assert types(out) == [
        "betting_light_changed",
        "betting_light_changed",
        "betting_closed",
        "round_paused",
        "incident_reported",
    ]
    assert out[2].body["at"] == "2026-11-29T14:32:17Z"
    assert out[4].body["kind"] == "deal_timeout" and out[4].body["position"] == "player-1"
    assert {e.ts for e in out} == {T0 + timedelta(seconds=60)}


def test_a_pause_freezes_every_timer_and_resume_restarts_it_with_its_time_left() -> None:
    b = bench(CARIB)
    b.start()
    b.wait(4.0)
    b.cmd("call_manager", role="dealer")
    assert left(b) == {"close": 6.0, "yellow": 3.0}
    assert b.wait(3600.0) == []
    b.cmd("resume")
    assert b.wait(2.999) == []
    assert b.wait(0.001)[0].body["light"] == "yellow"
    assert types(b.wait(3.0)) == ["betting_light_changed", "betting_closed"]


def test_a_decision_window_keeps_its_time_left_over_a_pause() -> None:
    b = bench(HOLDEM)
    b.start()
    b.wait(10.0)
    for code in ("2C", "3C", "4C", "5C"):
        b.deal(code)
    b.wait(5.0)
    b.status("shoe", "fault", "jam")
    assert left(b) == {"window": 3.0}
    b.wait(100.0)
    assert "the shoe is fault: acknowledge_device once it works" in b.view().resume_blockers
    b.status("shoe", "ok")
    b.cmd("resume")
    assert b.wait(2.5) == []
    assert types(b.wait(0.5)) == ["decision_window_closed"]


def test_each_window_announces_its_automatic_action_on_close() -> None:
    for config, expected in ((CARIB, ["fold"]), (HOLDEM, ["check", "check", "fold"])):
        b = bench(config)
        b.play_round(shuffled(3))
        assert [e.body["automatic"] for e in b.of_type("decision_window_closed")] == expected
        opened = b.of_type("decision_window_opened")
        assert [e.body["automatic"] for e in opened] == expected


def test_the_late_procedure_deals_the_dealer_cards_face_up_after_the_decision() -> None:
    b = bench(LATE)
    b.play_round(shuffled(4))
    seq = [
        (e.type, e.body.get("position")) for e in b.public() if e.type != "betting_light_changed"
    ]
    closed = seq.index(("decision_window_closed", None))
    assert [p for _, p in seq[closed + 1 : closed + 5]] == [f"dealer-{i}" for i in range(2, 6)]
    assert all(e.body["face"] == "up" for e in b.of_type("card_dealt", "public"))
    assert not b.of_type("card_revealed")


def test_a_card_during_a_window_is_out_of_turn() -> None:
    b = bench(CARIB)
    b.start()
    b.wait(10.0)
    for card in shuffled(5)[:10]:
        b.deal(card.code)
    out = b.draw("AS" if "AS" not in b.view().positions.values() else "AD")
    assert out[1].body["kind"] == "card_out_of_turn"
    assert out[1].body["detail"] == "card drawn during the decision decision window"


def test_the_camera_must_confirm_each_card_in_time() -> None:
    b = bench(CARIB, camera=True)
    b.start()
    b.wait(10.0)
    b.draw("2C")
    out = b.wait(2.0)
    assert out[1].body["kind"] == "camera_mismatch"
    assert out[1].body["detail"] == "camera saw nothing at player-1 within 2 s"
    b.see("player-1", "up", "2C")
    b.cmd("resume")
    assert b.view().expecting == "player-2"
    b.step(0.1)
    b.draw("3C")
    out = b.see("player-2", "up", "3D")
    assert out[1].body["cards"] == ["3C", "3D"] and out[1].body["device"] == "camera"


def test_what_the_camera_saw_during_a_pause_confirms_the_card_on_resume() -> None:
    b = bench(CARIB, camera=True)
    b.start()
    b.wait(10.0)
    b.draw("2C")
    b.wait(2.0)
    assert b.view().incidents[0].kind == "camera_mismatch"
    b.see("player-1", "up", "2C")
    b.cmd("resume")
    assert b.view().timer("confirm") is None
    assert b.wait(30.0)[1].body["kind"] == "deal_timeout"


def test_a_confirmed_card_the_camera_contradicts_must_be_seen_again_after_resume() -> None:
    b = bench(CARIB, camera=True)
    b.start()
    b.wait(10.0)
    b.deal("2C")
    assert b.view().expecting == "player-2"
    out = b.see("player-1", "up", "9H")  # someone swapped the card on the felt
    assert out[1].body["kind"] == "camera_mismatch"
    b.cmd("resume")
    # The camera still sees the wrong card: nothing may rest on it, so the pause comes back.
    assert b.view().timer("confirm", "player-1") is not None
    assert b.wait(2.0)[1].body["kind"] == "camera_mismatch"
    b.see("player-1", "up", "2C")  # the shift manager puts the card back
    b.cmd("resume")
    assert b.view().timer("confirm") is None
    assert b.view().expecting == "player-2" and not b.view().paused


def test_a_window_waits_for_the_camera_to_confirm_every_card() -> None:
    b = bench(CARIB, camera=True)
    b.start()
    b.wait(10.0)
    deck = shuffled(9)
    for _ in range(9):
        b.deal(deck.pop().code)
    b.step(0.1)
    b.draw(deck.pop().code)
    assert b.view().phase == "confirming"
    assert not b.of_type("decision_window_opened")
    b.step(0.1)
    b.see("dealer-5", "down")
    assert b.view().phase == "window"


def test_a_camera_that_saw_the_card_first_confirms_it_at_once() -> None:
    b = bench(CARIB, camera=True)
    b.start()
    b.wait(10.0)
    b.see("player-1", "up", "9S")
    b.step(0.1)
    b.draw("9S")
    assert b.view().timer("confirm", "player-1") is None


def test_a_silent_device_pauses_and_blocks_resume_until_heard() -> None:
    b = bench(CARIB, device_silence_seconds=5.0, camera=True)
    b.status("shoe", "ok")
    b.status("camera", "ok")
    b.wait(4.0)
    b.status("shoe", "ok")
    out = b.wait(1.0)
    assert [(e.type, e.body.get("device")) for e in out] == [
        ("device_health_changed", "camera"),
        ("round_paused", None),
        ("incident_reported", "camera"),
    ]
    assert "the camera is silent: acknowledge_device once it works" in b.view().resume_blockers
    assert b.status("camera", "ok")[0].body["status"] == "ok"
    assert b.cmd("resume")[1].type == "round_resumed"


def test_a_restart_mid_round_pauses_it_and_the_downtime_does_not_count() -> None:
    b = bench(CARIB)
    b.start()
    b.wait(4.0)
    b.step(500.0)
    out = b.restart()
    assert out[0].type == "round_paused" and out[0].body["kind"] == "controller_restarted"
    assert left(b) == {"close": 6.0, "yellow": 3.0}


def test_a_restart_between_rounds_changes_nothing() -> None:
    b = bench(CARIB)
    b.play_round(shuffled(1))
    b.step(30.0)
    assert b.restart() == []


def test_game_numbers_carry_the_start_second_and_a_suffix_when_shared() -> None:
    b = bench(CARIB)
    numbers = []
    for _ in range(3):
        b.start()
        numbers.append(b.view().game_number)
        b.cmd("call_manager", role="dealer")
        b.cmd("void")
        b.step(0.3)
    assert numbers == ["T01-20261129-143207", "T01-20261129-143207-2", "T01-20261129-143207-3"]
    b.step(1.0)
    b.start()
    assert b.view().game_number == "T01-20261129-143208"


def test_auto_start_opens_the_next_round_after_the_gap() -> None:
    b = bench(HOLDEM, auto_start=True, round_gap_seconds=5.0)
    b.play_round(shuffled(2))
    assert b.view().phase == "idle"
    assert b.wait(4.9) == []
    out = b.wait(0.1)
    assert types(out) == ["round_opened", "betting_light_changed"]


def test_time_never_runs_backwards() -> None:
    ctl = TableController(bench(CARIB).settings)
    ctl.handle(Tick(ts=T0 + timedelta(seconds=10)))
    assert ctl.handle(Tick(ts=T0)) == []
    assert ctl.snapshot()["now"] == "2026-11-29T14:32:17+00:00"


def test_events_outside_a_round_carry_no_game_number() -> None:
    b: Bench = bench(CARIB)
    b.play_round(shuffled(8))
    assert b.events[-1].type == "round_result" and b.events[-1].game_number
    assert b.cmd("new_deck", role="dealer")[1].game_number is None


def test_the_view_types_each_timer_and_says_which_card_the_camera_must_confirm() -> None:
    b = bench(CARIB, camera=True)
    b.start()
    assert {t.kind for t in b.view().timers} == {"yellow", "close"}
    b.wait(10.0)
    b.draw("2C")
    view = b.view()
    confirm = view.timer("confirm")
    assert confirm is not None and confirm.position == "player-1" and confirm.deadline
    assert [(c.position, c.code, c.confirmed) for c in view.cards] == [("player-1", "2C", False)]
    b.see("player-1", "up", "2C")
    assert b.view().cards[0].confirmed and b.view().timer("confirm") is None
