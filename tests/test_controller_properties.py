"""Properties of the controller over random rounds of every game, variant and procedure."""

from __future__ import annotations

import json
from typing import Any, get_args

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from test_controller_kit import (
    CONFIGS,
    Bench,
    assert_no_leak,
    assert_whole_history,
    bench,
    shuffled,
)

from studio.cards import Card
from studio.games import judge
from studio.games.model import Face
from studio.messages import CommandName, Role

FAULTS = (
    "duplicate",
    "unreadable",
    "draw",
    "mismatch",
    "device",
    "silence",
    "call",
    "timeout",
    "restart",
)

PROPS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

configs = st.sampled_from(CONFIGS)
seeds = st.integers(0, 2**32 - 1)
gaps = st.floats(0.05, 5.0)


@PROPS
@given(config=configs, camera=st.booleans(), seed=seeds, gap=gaps)
def test_valid_dealing_always_reaches_a_result(
    config: dict[str, Any], camera: bool, seed: int, gap: float
) -> None:
    b = bench(config, camera=camera)
    dealt = b.play_round(shuffled(seed), gap)
    rules = b.settings.rules()
    results = b.of_type("round_result")
    assert len(results) == 1 and results[0].audience == "public"
    positions = results[0].body["positions"]
    assert list(positions) == list(rules.positions)
    assert positions == dealt
    assert len(set(positions.values())) == len(positions)
    cards = {p: Card.parse(c) for p, c in positions.items()}
    assert results[0].body["judgement"] == judge(rules, cards).to_json()
    assert [e.seq for e in b.events] == list(range(1, len(b.events) + 1))
    assert not b.of_type("round_paused")


def _inject(b: Bench, fault: str, dealt: dict[str, str], deck: list[Card], pick: int = 0) -> str:
    """Inject `fault` now; return the incident kind it must raise.

    A duplicate repeats the dealt card number `pick` (modulo): face up or face down.
    """
    snap = b.view()
    expecting = snap.expecting
    if fault == "duplicate" and dealt:
        codes = list(dealt.values())
        b.draw(codes[pick % len(codes)])
        return "duplicate_card" if expecting else "card_out_of_turn"
    if fault == "unreadable":
        b.draw(None, raw="02 3F 3F 03")
        return "unreadable_card" if expecting else "card_out_of_turn"
    if fault == "mismatch" and b.settings.camera and dealt:
        zone, code = next(iter(dealt.items()))
        other = next(c for c in deck if c.code != code)
        b.see(zone, "up", other.code)
        return "camera_mismatch"
    if fault == "device":
        b.status("shoe", "fault", "reader error 7")
        return "device_fault"
    if fault == "silence" and b.settings.device_silence_seconds is not None:
        b.wait(b.settings.device_silence_seconds + 0.5)
        return "device_silent"
    if fault == "call":
        b.cmd("call_manager", role="dealer")
        return "manager_called"
    if fault == "timeout" and expecting:
        b.wait(b.settings.deal_timeout_seconds + 0.5)
        return "deal_timeout"
    if fault == "restart":
        b.restart()
        return "controller_restarted"
    b.draw(deck.pop().code)
    return "card_out_of_turn" if not expecting else ""


@PROPS
@given(
    config=configs,
    camera=st.booleans(),
    seed=seeds,
    cut=st.integers(0, 40),
    fault=st.sampled_from(FAULTS),
)
def test_any_fault_pauses_before_another_card_is_accepted(
    config: dict[str, Any], camera: bool, seed: int, cut: int, fault: str
) -> None:
    b = bench(config, camera=camera, device_silence_seconds=15.0 if fault == "silence" else None)
    deck = shuffled(seed)
    b.start()
    dealt: dict[str, str] = {}
    for _ in range(cut):
        snap = b.view()
        if snap.phase == "idle":
            break
        if snap.expecting:
            card = deck.pop().code
            dealt[snap.expecting] = card
            b.deal(card)
        else:
            b.wait(1.0)
    if b.view().phase == "idle":
        return
    before = len(b.events)
    kind = _inject(b, fault, dealt, deck)
    if not kind:
        return  # a clean card was drawn where one was expected: no fault to see
    paused = [e for e in b.events[before:] if e.type == "round_paused"]
    assert paused and paused[0].body["kind"] == kind
    assert b.view().paused
    after = len(b.events)
    b.step(0.5)
    b.draw(deck.pop().code)
    assert not [e for e in b.events[after:] if e.type == "card_dealt"]
    assert b.of_type("round_paused")[-1].body["kind"] == "card_out_of_turn"


def _leaks(body: Any, code: str) -> bool:
    return code in json.dumps(body)


@PROPS
@given(
    config=configs,
    camera=st.booleans(),
    seed=seeds,
    cut=st.integers(0, 30),
    fault=st.sampled_from(FAULTS),
    then=st.sampled_from(["void", "fix"]),
    pick=st.integers(0, 9),
)
def test_no_public_event_carries_a_face_down_card_before_its_reveal(
    config: dict[str, Any], camera: bool, seed: int, cut: int, fault: str, then: str, pick: int
) -> None:
    b = bench(config, camera=camera, device_silence_seconds=15.0 if fault == "silence" else None)
    deck = shuffled(seed)
    b.start()
    dealt: dict[str, str] = {}
    for _ in range(cut):
        snap = b.view()
        if snap.expecting:
            card = deck.pop().code
            dealt[snap.expecting] = card
            b.deal(card)
        elif snap.phase != "idle":
            b.wait(1.0)
    if b.view().phase != "idle" and _inject(b, fault, dealt, deck, pick):
        _settle(b, then)
    if b.view().phase != "idle":
        b.play_round(deck)
    assert_no_leak(b)


def _settle(b: Bench, then: str) -> None:
    """Let a shift manager clear the pause: void, or discard and correct until resume works."""
    if then == "void":
        b.cmd("void")
        return
    for _ in range(10):
        snap = b.view()
        if not snap.paused:
            return
        if any("is silent" in r or "is fault" in r for r in snap.resume_blockers):
            b.status("shoe", "ok")
            b.status("camera", "ok")
        elif snap.resume_blockers:
            b.cmd("discard_last_card")
        else:
            b.cmd("resume")
    b.cmd("void")


@PROPS
@given(
    config=configs,
    camera=st.booleans(),
    seed=seeds,
    cut=st.integers(0, 30),
    fault=st.sampled_from(FAULTS),
    then=st.sampled_from(["void", "fix"]),
)
def test_a_second_controller_fed_the_same_inputs_emits_the_same_events(
    config: dict[str, Any], camera: bool, seed: int, cut: int, fault: str, then: str
) -> None:
    b = bench(
        config,
        camera=camera,
        device_silence_seconds=15.0 if fault == "silence" else None,
        auto_start=True,
    )
    deck = shuffled(seed)
    b.play_round(deck)
    for _ in range(cut):
        snap = b.view()
        if snap.expecting:
            b.deal(deck.pop().code)
        else:
            b.wait(1.5)
    if _inject(b, fault, {}, deck):
        _settle(b, then)
    again = b.replay()
    assert [e.model_dump() for e in again] == [e.model_dump() for e in b.events]


COMMANDS = get_args(CommandName)
ROLE_NAMES = get_args(Role)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs, camera=st.booleans(), data=st.data())
def test_random_walks_keep_every_invariant(
    config: dict[str, Any], camera: bool, data: st.DataObject
) -> None:
    """Any mix of cards, sightings, device reports, commands and time keeps the promises."""
    b = bench(config, camera=camera, device_silence_seconds=12.0, auto_start=True)
    positions = list(b.settings.rules().positions)
    codes = [c.code for c in shuffled(data.draw(seeds))]
    for _ in range(data.draw(st.integers(10, 150))):
        snap = b.view()
        action = data.draw(st.sampled_from(["deal"] * 8 + ["wait"] * 3 + ["odd", "cmd", "cmd"]))
        before = len(b.events)
        if action == "deal" and snap.expecting and codes:
            b.deal(codes.pop())
        elif action == "deal":
            b.wait(1.0)  # the dealer waits for the table
        elif action == "wait":
            b.wait(data.draw(st.sampled_from([0.5, 2.0, 8.0])))
            b.status("shoe", "ok")
            if camera:
                b.status("camera", "ok")
        elif action == "odd":
            kind = data.draw(st.sampled_from(["draw", "none", "see", "fault"]))
            b.step(0.3)
            if kind == "draw" and codes:
                b.draw(data.draw(st.sampled_from(codes[-5:] + list(snap.positions.values()))))
            elif kind == "none":
                b.draw(None)
            elif kind == "see":
                zone = data.draw(st.sampled_from(positions))
                b.see(zone, "up", data.draw(st.sampled_from(codes[-3:] or ["AS"])))
            elif kind == "fault":
                b.status(data.draw(st.sampled_from(["shoe", "camera"])), "fault")
        else:
            likely = (
                ("resume", "resume", "discard_last_card", "void", "correct_card", "rescan")
                if snap.paused
                else ("start_round", "start_round")
                if snap.phase == "idle"
                else ()
            )
            command = data.draw(st.sampled_from(likely + COMMANDS))
            role = data.draw(st.sampled_from(("shift_manager", "dealer", *ROLE_NAMES)))
            kw: dict[str, str] = {}
            if command == "correct_card":
                kw = {
                    "position": data.draw(st.sampled_from(positions)),
                    "card": data.draw(st.sampled_from(codes[-3:] or ["2C"])),
                }
            out = b.cmd(command, role=role, **kw)
            if out and out[0].type == "command_rejected":
                assert len(out) == 1
                after = b.view()
                ignore = {"seq", "now", "timers"}
                assert after.model_dump(exclude=ignore) == snap.model_dump(exclude=ignore)
        fresh = b.events[before:]
        if snap.paused:
            assert not [e for e in fresh if e.type == "card_dealt"]
        for e in fresh:
            if e.type == "round_result":
                cards = list(e.body["positions"].values())
                assert len(set(cards)) == len(cards) == len(positions)
    assert_whole_history(b)
    for kind in ("round_result", "round_voided", "round_resumed", "command_rejected"):
        event(f"{kind}: {'yes' if b.of_type(kind) else 'no'}")


@PROPS
@given(
    # Only Hold'em deals face-up cards after face-down ones, so it gets most of the draws.
    config=st.sampled_from([*CONFIGS, CONFIGS[3], CONFIGS[3], CONFIGS[3]]),
    camera=st.booleans(),
    seed=seeds,
    cut=st.integers(1, 12),
    pick=st.integers(0, 11),
    fix=st.sampled_from(["discard", "correct"]),
)
def test_a_duplicate_of_a_hidden_card_never_names_it_publicly(
    config: dict[str, Any], camera: bool, seed: int, cut: int, pick: int, fix: str
) -> None:
    """A misread repeating a face-down card's code, wherever it lands, stays off the stream."""
    b = bench(config, camera=camera)
    deck = shuffled(seed)
    b.start()
    dealt: list[str] = []
    while len(dealt) < cut or not b.view().expecting:
        if b.view().phase == "idle":
            return
        if b.view().expecting:
            dealt.append(deck.pop().code)
            b.deal(dealt[-1])
        else:
            b.wait(1.0)
    hidden = [
        code for position, code in b.view().positions.items() if b.face_of(position) is Face.DOWN
    ]
    b.step(0.5)
    out = b.draw((hidden or dealt)[pick % len(hidden or dealt)])
    position = out[1].body["position"]
    if fix == "discard":
        b.cmd("discard_last_card")
    else:
        code = deck.pop().code
        b.cmd("correct_card", position=position, card=code)
        if camera and b.face_of(position) is Face.UP:
            b.see(position, "up", code)
        elif camera:
            b.see(position, "down")
    b.cmd("resume")
    assert not b.view().paused, b.view().resume_blockers
    b.play_round(deck)
    assert_no_leak(b)
    assert b.of_type("round_result")
