"""What anyone may see of a table: `TableView.public()` never shows a face-down card's value.

The dealer display and any observer read the public view; a face-down card's code must stay off
it until the card is turned, exactly as on the public stream, whatever happened to the round.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_controller_exit_property import OPS, apply
from test_controller_kit import CONFIGS, bench

from studio.cards import DECK
from studio.messages.view import HIDDEN_BLOCKER


@settings(max_examples=40, deadline=None)
@given(ops=OPS, seed=st.integers(0, 2**16), config=st.sampled_from(CONFIGS))
def test_the_public_view_never_shows_a_face_down_card(
    ops: list[str], seed: int, config: dict[str, Any]
) -> None:
    codes = [c.code for c in DECK]
    random.Random(seed).shuffle(codes)
    b = bench(config)
    drawn: list[str] = []
    b.start()
    b.wait(10.0)
    for op in [*ops, "deal", "deal", "deal", "deal", "deal", "deal"]:
        apply(b, op, codes, drawn)
        full = b.view()
        hidden = {c.code for c in full.cards if c.code is not None and not c.face_up}
        public = full.public()
        text = public.model_dump_json()
        assert not [code for code in hidden if f'"{code}"' in text], (hidden, text)
        # Everything else a person needs stays: where cards lie, which are up, what blocks.
        assert [c.position for c in public.cards] == [c.position for c in full.cards]
        # A face-up card keeps its code unless a face-down position holds the same code (the
        # stream's rule: its value would name the hidden card).
        assert [c.code for c in public.cards if c.face_up] == [
            None if c.code in hidden else c.code for c in full.cards if c.face_up
        ]
        assert len(public.resume_blockers) == len(full.resume_blockers)
        for shown, whole in zip(public.resume_blockers, full.resume_blockers, strict=True):
            assert shown == whole or (
                shown == HIDDEN_BLOCKER and any(code in whole for code in hidden)
            ), (shown, whole)
        # The typed blockers say the same, keep their kind and actions, and hide as the lines do.
        assert public.resume_blockers == tuple(b.words for b in public.blockers)
        assert [(b.kind, b.actions) for b in public.blockers] == [
            (b.kind, b.actions) for b in full.blockers
        ]
        assert all(b.position is None for b in public.blockers if b.words == HIDDEN_BLOCKER)
        assert [i.kind for i in public.incidents] == [i.kind for i in full.incidents]


def test_a_dealt_round_shows_its_hole_cards_only_in_the_restricted_view() -> None:
    b = bench(CONFIGS[0])
    b.start()
    b.wait(20.0)
    codes = [c.code for c in DECK]
    while b.view().expecting is not None and b.view().phase == "dealing":
        b.deal(codes.pop())
    full = b.view()
    down = [c for c in full.cards if not c.face_up]
    assert down and all(c.code for c in down)
    public = full.public()
    assert {c.position for c in public.cards if c.code is None} == {c.position for c in down}


def test_a_duplicate_of_a_face_up_card_at_a_face_down_position_names_neither() -> None:
    b = bench({"game": "ultimate-holdem", "variant": "live"})
    b.start()
    b.wait(10.0)
    b.deal("8C")
    b.deal("AC")
    b.draw("AC")  # dealer-1, face down: a duplicate of player-2
    full = b.view()
    assert full.positions == {"player-1": "8C", "player-2": "AC", "dealer-1": "AC"}
    public = full.public()
    assert public.positions == {"player-1": "8C", "player-2": None, "dealer-1": None}
    assert public.resume_blockers == (HIDDEN_BLOCKER,)
    assert '"AC"' not in public.model_dump_json()
    # The public stream said the same: player-2's card_dealt went out before the duplicate.
    assert b.of_type("card_dealt", "public")[1].body["card"] == "AC"
