"""The simulated staff's one policy: what it proposes, the controller accepts, and the table moves.

`studio.simulation.staff.next_action` drives both the headless simulator and the simulated dealer
of `studio run`. Here it drives a bare controller through random disturbances (cards out of turn,
duplicates, unreadable cards, a faulted or silent shoe, a re-scan, a crash and restart): every
command it proposes is accepted, and following it always brings the table back to dealing rounds.
"""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_controller_kit import CONFIGS, T0, Bench, bench

from studio.cards import DECK
from studio.messages.view import ResumeBlocker, TableView, TimerView
from studio.simulation.staff import (
    AnnounceDeck,
    DiscardCard,
    DrawCard,
    LookAt,
    ManagerAnswer,
    OpenRound,
    RedrawCard,
    RepairDevices,
    Resume,
    StaffAction,
    StaffConfig,
    TakeAway,
    TurnCards,
    Void,
    Wait,
    WaitFor,
    next_action,
)

DISTURBANCES = st.lists(
    st.sampled_from(
        ["none", "none", "duplicate", "unreadable", "fault", "silent", "call", "rescan", "restart"]
    ),
    max_size=10,
)
_STEPS = 60
"""Policy steps after each disturbance: more than a whole round needs."""


def _accepted(out: list[object], action: StaffAction) -> None:
    kinds = [getattr(e, "type", None) for e in out]
    assert "command_rejected" not in kinds, (action, out)


class Deck:
    """The dealer's cards: a fresh shuffle whenever the last one runs out."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)
        self._cards: list[str] = []
        self.drawn: list[str] = []

    def draw(self) -> str:
        if not self._cards:
            self._cards = [c.code for c in DECK]
            self._rng.shuffle(self._cards)
        self.drawn.append(self._cards.pop())
        return self.drawn[-1]


def carry_out(b: Bench, action: StaffAction, deck: Deck) -> None:
    """Do what the policy says, as the simulated dealer of `studio run` does (commands)."""
    match action:
        case OpenRound():
            _accepted(b.cmd("start_round", role="dealer"), action)
        case AnnounceDeck():
            _accepted(b.cmd("new_deck", role="dealer"), action)
        case DrawCard():
            b.draw(deck.draw())
        case RedrawCard(code=code):
            b.draw(code or deck.draw())
        case WaitFor(deadline=deadline):
            b.wait(max(0.0, (deadline - b.now).total_seconds()) + 0.001)
        case RepairDevices():
            _accepted(b.cmd("acknowledge_device"), action)
        case DiscardCard():
            _accepted(b.cmd("discard_last_card"), action)
        case Resume():
            out = b.cmd("resume")
            _accepted(out, action)
            assert "round_resumed" in [e.type for e in out]
        case Void():
            _accepted(b.cmd("void"), action)
        case LookAt() | TurnCards() | TakeAway() | Wait():
            raise AssertionError(f"{action} at a shoe table without a camera: {b.view()}")


def disturb(b: Bench, what: str, deck: Deck) -> None:
    match what:
        case "duplicate":
            b.draw(deck.drawn[-1] if deck.drawn else deck.draw())
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
        case "restart":
            b.restart()


@settings(max_examples=80, deadline=None)
@given(
    config=st.sampled_from(CONFIGS),
    manager=st.sampled_from(["resume", "void"]),
    disturbances=DISTURBANCES,
    seed=st.integers(0, 2**16),
    steps=st.integers(0, 30),
    shuffles=st.booleans(),
)
def test_the_staff_only_proposes_what_the_controller_accepts(
    config: dict[str, object],
    manager: ManagerAnswer,
    disturbances: list[str],
    seed: int,
    steps: int,
    shuffles: bool,
) -> None:
    # `shuffles`: the table checks that every round opens on a freshly announced deck.
    b = bench(config, device_silence_seconds=300.0, new_deck_every_round=shuffles)
    deck = Deck(seed)
    staff = StaffConfig(camera=False, manager=manager, new_deck_every_round=shuffles)
    rounds_before = 0
    for what in ["none", *disturbances]:
        # Somewhere into the play, then a disturbance, then the staff alone again.
        for _ in range(steps):
            carry_out(b, next_action(b.view(), staff), deck)
        disturb(b, what, deck)
        rounds_before = len(b.of_type("round_opened"))
        for _ in range(_STEPS):
            carry_out(b, next_action(b.view(), staff), deck)
        # Following the policy, the table has come back and opened at least one more round.
        assert len(b.of_type("round_opened")) > rounds_before, b.view()
    # A dealer who announces each shuffle never has a round open on a dealt deck.
    reused = [e for e in b.of_type("round_paused") if e.body["kind"] == "deck_reused"]
    assert not reused


STAFF = StaffConfig(camera=False)
NOBODY = StaffConfig(camera=False, manager="none")


def _view(**changes: object) -> TableView:
    b = bench(CONFIGS[0])
    return b.view().model_copy(update=changes)


def _blocked(blocker: ResumeBlocker) -> dict[str, object]:
    """A paused view's changes for one blocker: the typed one and its line, as the table says."""
    return {"paused": True, "blockers": (blocker,), "resume_blockers": (blocker.words,)}


STRAYS = ResumeBlocker(
    kind="stray_cards",
    words="2 card(s) drawn out of turn are still on record: discard",
    actions=("discard_last_card",),
)


@pytest.mark.parametrize(
    ("changes", "staff", "expected"),
    [
        ({}, StaffConfig(camera=False), OpenRound()),
        ({"phase": "dealing", "game_number": "G1", "expecting": "box1"}, StaffConfig(False), None),
        ({"paused": True, "devices": {"shoe": "fault"}}, StaffConfig(False), None),
        ({"paused": True, "devices": {"shoe": "fault"}}, NOBODY, Wait()),
        (_blocked(STRAYS), STAFF, None),
        ({"paused": True, "phase": "dealing"}, StaffConfig(False, manager="void"), Void()),
        ({"paused": True}, StaffConfig(False), Resume()),
    ],
)
def test_the_policy_answers_a_view_as_a_person_would(
    changes: dict[str, object], staff: StaffConfig, expected: StaffAction | None
) -> None:
    view = _view(**changes)
    action = next_action(view, staff)
    if expected is not None:
        assert action == expected
    elif "expecting" in changes:
        assert action == DrawCard("box1")
    elif "devices" in changes:
        assert action == RepairDevices(("shoe",))
    else:
        assert action == DiscardCard()


def test_a_dealer_who_shuffles_after_every_round_announces_the_deck_first() -> None:
    shuffling = StaffConfig(camera=False, new_deck_every_round=True)
    assert next_action(_view(deck=None), shuffling) == AnnounceDeck()
    assert next_action(_view(deck="T01-deck-1", deck_dealt="G1"), shuffling) == AnnounceDeck()
    assert next_action(_view(deck="T01-deck-2", deck_dealt=None), shuffling) == OpenRound()
    assert next_action(_view(deck=None), STAFF) == OpenRound()
    reused = ResumeBlocker(
        kind="deck_reused",
        words="deck T01-deck-1 was already dealt in round G1: shuffle, then new_deck",
        actions=("new_deck",),
    )
    blocked = _view(**_blocked(reused))
    assert next_action(blocked, STAFF) == AnnounceDeck()


def test_the_earliest_deadline_is_waited_for_first() -> None:
    # The betting light's yellow comes before betting closes: each is reached at its own time.
    yellow = T0 + timedelta(seconds=7)
    close = T0 + timedelta(seconds=10)
    view = _view(
        phase="betting",
        game_number="G1",
        timers=(TimerView(kind="close", deadline=close), TimerView(kind="yellow", deadline=yellow)),
    )
    assert next_action(view, StaffConfig(camera=False)) == WaitFor(yellow)
