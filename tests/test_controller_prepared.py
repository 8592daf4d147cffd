"""The prepared next card (`TableController.prepare`) against the ordinary way, input for input.

The runtime prepares, between inputs, what the shoe's next card will do; the card then only fills
in its seat and `card_dealt` pair. A controller prepared before every input must give the same
events (byte for byte as the journal stores them) and be left in the same state as one never
prepared, over random rounds with duplicates, unreadable and out-of-turn cards, other spellings of
a code, timers due by a card's time, silence, device faults, pauses, commands and restarts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from itertools import pairwise
from typing import Any
from unittest.mock import patch

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_controller_kit import CONFIGS, Bench, bench, shuffled

from studio.cards import DECK
from studio.controller import TableController, prepared
from studio.controller import table as controller_table
from studio.games.model import DealCard
from studio.journal.recorder import event_json
from studio.messages import CardDrawn, Envelope, Input

PROPS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ACTIONS = (
    "deal",
    "deal",
    "deal",
    "deal",
    "duplicate",
    "unreadable",
    "lowercase",
    "late",
    "early",
    "tick",
    "fault",
    "ok",
    "call",
    "resume",
    "rescan",
    "discard",
    "void",
    "start",
    "restart",
)


@dataclass
class Twins(Bench):
    """A bench whose controller is prepared before every input, beside a twin never prepared."""

    twin: TableController = field(init=False)
    prepared: int = 0
    """Inputs that met a prepared card (whether it took them or the ordinary way did)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.twin = TableController(self.settings)

    def feed(self, inp: Input) -> list[Envelope]:
        if self.ctl.prepare() and isinstance(inp, CardDrawn):
            self.prepared += 1
        out = super().feed(inp)
        again = self.twin.handle(inp)
        assert out == again
        assert [event_json(e) for e in out] == [event_json(e) for e in again]
        assert [e.model_dump_json() for e in out] == [e.model_dump_json() for e in again]
        # Every field of the state, the timers' order too (the same dict insertions).
        assert self.ctl._state == self.twin._state
        assert list(self.ctl._state.timers) == list(self.twin._state.timers)
        assert self.ctl.view() == self.twin.view()
        return out


def _act(b: Twins, action: str, deck: list[Any], dealt: list[str]) -> None:
    expecting = b.view().expecting
    if action == "deal" and deck:
        card = deck.pop().code
        dealt.append(card)
        b.deal(card, gap=0.3)
    elif action == "duplicate" and dealt:
        b.step(0.3)
        b.draw(dealt[len(dealt) // 2])
    elif action == "unreadable":
        b.step(0.3)
        b.draw(None, raw="02 3F 3F 03")
    elif action == "lowercase" and deck:
        # Another spelling of a code: the ordinary way's `Card.parse` reads it.
        b.step(0.3)
        b.draw(deck.pop().code.lower())
    elif action == "late" and deck:
        # Drawn after a timer's deadline (the deal timeout, a window, betting, silence).
        b.step(b.settings.deal_timeout_seconds + 0.5)
        b.draw(deck.pop().code)
    elif action == "early" and deck:
        # Stamped before the last input: time never runs backwards for the timers.
        b.feed(CardDrawn(ts=b.now - timedelta(seconds=2), card=deck.pop().code, raw=""))
    elif action == "tick":
        b.wait(1.0)
    elif action == "fault":
        b.status("shoe", "fault", "reader error 7")
    elif action == "ok":
        b.cmd("acknowledge_device")
    elif action == "call":
        b.cmd("call_manager", role="dealer")
    elif action == "resume":
        b.cmd("resume")
    elif action == "rescan":
        b.cmd("rescan")
    elif action == "discard":
        b.cmd("discard_last_card")
    elif action == "void":
        b.cmd("void")
    elif action == "start":
        b.start()
    elif action == "restart":
        b.restart()
    elif expecting is not None and deck:
        b.deal(deck.pop().code, gap=0.3)


@PROPS
@given(
    config=st.sampled_from(CONFIGS),
    camera=st.booleans(),
    # Silence longer than betting, and longer than a late card's wait (it fires first) or not.
    silence=st.sampled_from([None, 12.0, 40.0]),
    seed=st.integers(0, 2**32 - 1),
    actions=st.lists(st.sampled_from(ACTIONS), max_size=60),
)
def test_a_prepared_card_gives_the_events_and_state_of_the_ordinary_way(
    config: dict[str, Any], camera: bool, silence: float | None, seed: int, actions: list[str]
) -> None:
    b = Twins(bench(config, camera=camera, device_silence_seconds=silence).settings)
    deck = shuffled(seed)
    dealt: list[str] = []
    b.start()
    b.wait(b.settings.betting_seconds + 0.5)
    for action in actions:
        _act(b, action, deck, dealt)
    # A clean round to the end, from wherever the actions left the table.
    b.cmd("void")
    b.play_round(deck[:20], gap=0.3)


@PROPS
@given(
    config=st.sampled_from(CONFIGS),
    silence=st.sampled_from([None, 12.0, 40.0]),
    seed=st.integers(0, 2**32 - 1),
    cut=st.integers(0, 12),
    pick=st.integers(0, 51),
    # Exactly at the deal timeout's deadline (20 s after the last card) or the silence's too.
    wait=st.sampled_from([0.3, 12.0, 19.999999, 20.0]) | st.floats(0.0, 25.0),
    lower=st.booleans(),
)
def test_any_next_card_at_any_time_gives_what_the_ordinary_way_gives(
    config: dict[str, Any],
    silence: float | None,
    seed: int,
    cut: int,
    pick: int,
    wait: float,
    lower: bool,
) -> None:
    b = Twins(bench(config, device_silence_seconds=silence).settings)
    deck = shuffled(seed)
    b.start()
    b.wait(b.settings.betting_seconds + 0.5)
    for _ in range(cut):
        if b.view().expecting is None:
            b.wait(1.0)
        else:
            b.deal(deck.pop().code, gap=0.3)
    # Any card of the deck: one on the table already is a duplicate.
    code = DECK[pick].code
    b.step(wait)
    b.draw(code.lower() if lower else code)


def test_the_cards_of_a_clean_round_take_the_prepared_way_where_another_card_follows() -> None:
    took: list[bool] = []

    def take(*args: Any) -> list[Envelope] | None:
        out = prepared.take(*args)
        took.append(out is not None)
        return out

    b = Twins(bench(CONFIGS[0]).settings)
    with patch.object(controller_table, "take", side_effect=take):
        dealt = b.play_round(shuffled(7), gap=0.3)
    assert b.of_type("round_result")
    # A card whose next step is another card takes the prepared way; the one before a decision
    # window, a reveal or the result takes the ordinary way (nothing was prepared for it).
    script = b.settings.rules().script
    followed = sum(
        isinstance(step, DealCard) and isinstance(after, DealCard)
        for step, after in pairwise(script)
    )
    assert 0 < followed < len(dealt)
    assert b.prepared == followed
    assert took == [True] * followed


def test_a_camera_table_never_prepares_a_card() -> None:
    b = Twins(bench(CONFIGS[0], camera=True).settings)
    b.play_round(shuffled(3), gap=0.3)
    assert b.of_type("round_result")
    assert b.prepared == 0
