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
        assert [c.code for c in public.cards if c.face_up] == [
            c.code for c in full.cards if c.face_up
        ]
        assert public.resume_blockers == full.resume_blockers
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
