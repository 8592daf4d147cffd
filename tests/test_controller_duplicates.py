"""A duplicate card kept at its position is announced once, by the resume, with the audience rules.

The duplicate pauses the table without a `card_dealt`; when the shift manager corrects the OTHER
position holding the same card and resumes, the kept card must still reach every consumer: one
`card_dealt` pair after `round_resumed`, its value public only when face up and naming no hidden
card. Correcting the duplicate itself announces it by its `card_corrected` instead.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_controller_kit import CONFIGS, Bench, bench

CARIB = CONFIGS[0]
HOLDEM = CONFIGS[3]


def _dealt(b: Bench, position: str, audience: str) -> list[dict[str, Any]]:
    return [e.body for e in b.of_type("card_dealt", audience) if e.body["position"] == position]


def _finish(b: Bench, cards: list[str]) -> None:
    """Deal `cards` as they are expected and let windows close until the round has a result."""
    for _ in range(100):
        snap = b.view()
        if snap.phase == "idle":
            return
        assert not snap.paused, snap.incidents
        if snap.expecting is not None:
            b.deal(cards.pop(0))
        else:
            b.wait(1.0)
    raise AssertionError("the round did not end")


def _every_card_announced_once(b: Bench) -> None:
    """Each position of the result had one card_dealt pair, or (never dealt) a correction."""
    result = b.of_type("round_result")[-1].body["positions"]
    for position in result:
        public, restricted = _dealt(b, position, "public"), _dealt(b, position, "restricted")
        corrected = [
            e for e in b.of_type("card_corrected", "restricted") if e.body["position"] == position
        ]
        assert len(public) == len(restricted) <= 1, (position, public, restricted)
        assert public or corrected, f"{position} was never announced"


def _opened(config: dict[str, Any], cards: list[str], **overrides: Any) -> Bench:
    b = bench(config, **overrides)
    b.start()
    b.wait(11.0)
    for code in cards:
        b.deal(code)
    return b


@pytest.mark.parametrize("camera", [False, True])
def test_holdem_face_up_duplicate_kept_after_correcting_the_hidden_card(camera: bool) -> None:
    b = _opened(HOLDEM, ["AS", "KD", "QH", "JC"], camera=camera)
    b.wait(9.0)  # the preflop window closes
    b.deal("QH")  # flop-1 reads the dealer's face-down card
    assert b.view().paused and not _dealt(b, "flop-1", "restricted")
    b.cmd("correct_card", position="dealer-1", card="2C")
    if camera:
        b.see("dealer-1", "down")
    out = b.cmd("resume")
    types = [(e.type, e.audience) for e in out]
    at = types.index(("round_resumed", "public"))
    assert types[at + 1 : at + 3] == [("card_dealt", "public"), ("card_dealt", "restricted")]
    # dealer-1 no longer holds QH: flop-1 lies face up, its value is public.
    want = {"position": "flop-1", "face": "up", "number": 5, "card": "QH"}
    assert _dealt(b, "flop-1", "public") == [want]
    assert _dealt(b, "flop-1", "restricted") == [want]
    _finish(b, ["3D", "4H", "5S", "6C"])
    assert b.of_type("round_result")[-1].body["positions"]["flop-1"] == "QH"
    _every_card_announced_once(b)
    assert [e.model_dump() for e in b.replay()] == [e.model_dump() for e in b.events]


@pytest.mark.parametrize("camera", [False, True])
def test_holdem_face_down_duplicate_kept_after_correcting_the_public_card(camera: bool) -> None:
    b = _opened(HOLDEM, ["AS", "KD"], camera=camera)
    b.deal("AS")  # dealer-1 (face down) reads player-1's card
    assert b.view().paused and not _dealt(b, "dealer-1", "restricted")
    b.cmd("correct_card", position="player-1", card="2C")
    if camera:
        b.see("player-1", "up", "2C")
    b.cmd("resume")
    assert _dealt(b, "dealer-1", "public") == [
        {"position": "dealer-1", "face": "down", "number": 3, "card": None}
    ]
    assert _dealt(b, "dealer-1", "restricted") == [
        {"position": "dealer-1", "face": "down", "number": 3, "card": "AS"}
    ]
    # AS now lies face down: the public correction of player-1 must not name it.
    public_fix = [e.body for e in b.of_type("card_corrected", "public")]
    assert public_fix == [{"position": "player-1", "face": "up", "card": "2C", "previous": None}]
    _finish(b, ["JC", "3D", "4H", "5S", "6C", "7H"])
    reveal = b.events.index(b.of_type("card_revealed")[0])
    pause = b.events.index(b.of_type("round_paused")[0])
    # From the pause to the reveal no public event names AS (it lies face down now).
    assert not [e for e in b.events[pause:reveal] if e.audience == "public" and "AS" in str(e.body)]
    assert b.of_type("round_result")[-1].body["positions"]["dealer-1"] == "AS"
    _every_card_announced_once(b)
    assert [e.model_dump() for e in b.replay()] == [e.model_dump() for e in b.events]


@pytest.mark.parametrize("camera", [False, True])
def test_caribbean_hidden_duplicate_kept_after_correcting_the_other_hidden_card(
    camera: bool,
) -> None:
    b = _opened(CARIB, ["2C", "3D", "4H", "5S", "7C", "8D", "AS"], camera=camera)
    b.deal("AS")  # dealer-3 reads dealer-2's card
    assert b.view().paused and not _dealt(b, "dealer-3", "restricted")
    b.cmd("correct_card", position="dealer-2", card="KH")
    if camera:
        b.see("dealer-2", "down")
        b.see("dealer-3", "down")
    b.cmd("resume")
    assert _dealt(b, "dealer-3", "public") == [
        {"position": "dealer-3", "face": "down", "number": 8, "card": None}
    ]
    assert _dealt(b, "dealer-3", "restricted") == [
        {"position": "dealer-3", "face": "down", "number": 8, "card": "AS"}
    ]
    assert not b.view().paused and b.view().expecting == "dealer-4"
    _finish(b, ["QH", "JD"])
    _every_card_announced_once(b)
    reveal = b.events.index(b.of_type("card_revealed")[0])
    pause = b.events.index(b.of_type("round_paused")[0])
    # Between the pause and the reveal no public event names AS (it lies face down).
    assert not [e for e in b.events[pause:reveal] if e.audience == "public" and "AS" in str(e.body)]
    assert [e.model_dump() for e in b.replay()] == [e.model_dump() for e in b.events]


@pytest.mark.parametrize("config", [CARIB, HOLDEM])
def test_correcting_the_duplicate_itself_announces_it_by_the_correction(
    config: dict[str, Any],
) -> None:
    b = _opened(config, ["2C", "3D"])
    b.deal("2C")  # the third card duplicates player-1
    position = "player-3" if config is CARIB else "dealer-1"
    b.cmd("correct_card", position=position, card="9S")
    b.cmd("resume")
    # The correction told every consumer; the resume adds no second announcement.
    assert not _dealt(b, position, "restricted") and not _dealt(b, position, "public")
    fixed = [e.body for e in b.of_type("card_corrected", "restricted")]
    assert fixed == [
        {"position": position, "face": b.face_of(position).value, "card": "9S", "previous": "2C"}
    ]
