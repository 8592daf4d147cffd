"""From every paused state, the actions the resume blockers name lead back to a running table."""

from __future__ import annotations

import random
import typing

from hypothesis import given, settings
from hypothesis import strategies as st
from test_controller_kit import CONFIGS, Bench, bench

from studio.cards import DECK
from studio.controller import ROLES
from studio.messages import AlarmCause, AlarmRaised
from studio.messages.view import ResumeBlocker

ALARM_CAUSES: tuple[AlarmCause, ...] = typing.get_args(AlarmCause)

OPS = st.lists(
    st.sampled_from(
        [
            "start",
            "deal",
            "deal",
            "duplicate",
            "unreadable",
            "fault",
            "silent",
            "call",
            "rescan",
            "wait",
            "restart",
            "alarm",
        ]
    ),
    max_size=14,
)
_EXIT_STEPS = 12
"""More than any paused table needs: one step per blocker, then the resume."""


def apply(b: Bench, op: str, codes: list[str], drawn: list[str]) -> None:
    match op:
        case "start":
            b.start()
        case "deal":
            drawn.append(codes.pop())
            b.draw(drawn[-1])
        case "duplicate":
            b.draw(drawn[-1] if drawn else codes[-1])
        case "unreadable":
            b.draw(None)
        case "fault":
            b.status("shoe", "fault", "shoe restarted at seq 1")
        case "silent":
            b.wait(400.0)
        case "call":
            b.cmd("call_manager", role="dealer")
        case "rescan":
            b.cmd("rescan")
        case "wait":
            b.wait(6.0)
        case "restart":
            b.restart()
        case "alarm":
            # The shell's own faults (a journal that failed a write) pause like any incident.
            b.feed(AlarmRaised(ts=b.now, cause=ALARM_CAUSES[len(drawn) % len(ALARM_CAUSES)]))
        case "newdeck":
            b.cmd("new_deck", role="dealer")


def named_action(blocker: ResumeBlocker) -> str:
    """The command to try for a blocker; fails the test if it names none, or not in its words.

    A correction needs the card a person reads: the discard that the same blockers offer does
    without one.
    """
    assert blocker.actions, f"the blocker {blocker!r} names no action that clears it"
    assert all(action in ROLES for action in blocker.actions), blocker
    # The words name the remedy too, for whoever reads only `resume_blockers`.
    assert any(a.partition("_")[0] in blocker.words for a in blocker.actions), blocker
    return "discard_last_card" if "discard_last_card" in blocker.actions else blocker.actions[0]


def leave_pause(b: Bench) -> None:
    """Follow the first blocker's action until the resume goes through."""
    for _ in range(_EXIT_STEPS):
        view = b.view()
        assert view.resume_blockers == tuple(blocker.words for blocker in view.blockers)
        if not view.blockers:
            out = b.cmd("resume")
            assert "round_resumed" in [e.type for e in out], out
            return
        out = b.cmd(named_action(view.blockers[0]))
        if out[0].type == "command_rejected":
            # A card dealt before a decision window must stay: the round is voided instead.
            assert "must stay" in out[0].body["reason"], out
            assert b.cmd("void")[0].type == "command_accepted"
            return
    raise AssertionError(f"still paused: {b.view().resume_blockers}")


@settings(max_examples=60, deadline=None)
@given(ops=OPS, seed=st.integers(0, 2**16))
def test_every_paused_table_has_a_way_back_to_running(ops: list[str], seed: int) -> None:
    codes = [c.code for c in DECK]
    random.Random(seed).shuffle(codes)
    b = bench(CONFIGS[0], device_silence_seconds=300.0)
    b.start()
    b.wait(10.0)
    drawn: list[str] = []
    for op in ops:
        apply(b, op, codes, drawn)
        if b.view().paused:
            fork = Bench(b.settings)
            for inp in b.inputs:
                fork.feed(inp)
            leave_pause(fork)
            assert not fork.view().paused
            assert fork.view().incidents == ()


DECK_OPS = st.lists(
    st.sampled_from(
        [
            "start",
            "deal",
            "deal",
            "newdeck",
            "wait",
            "wait",
            "fault",
            "duplicate",
            "call",
            "restart",
        ]
    ),
    max_size=16,
)


@settings(max_examples=40, deadline=None)
@given(ops=DECK_OPS, seed=st.integers(0, 2**16))
def test_a_table_that_needs_a_fresh_deck_per_round_always_has_a_way_back(
    ops: list[str], seed: int
) -> None:
    codes = [c.code for c in DECK]
    random.Random(seed).shuffle(codes)
    b = bench(CONFIGS[0], device_silence_seconds=300.0, new_deck_every_round=True)
    drawn: list[str] = []
    for op in ops:
        if op == "deal" and not codes:
            continue
        apply(b, op, codes, drawn)
        if b.view().paused:
            fork = Bench(b.settings)
            for inp in b.inputs:
                fork.feed(inp)
            leave_pause(fork)
            assert not fork.view().paused
            assert fork.view().incidents == ()
