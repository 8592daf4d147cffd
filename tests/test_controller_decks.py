"""One shuffled deck per round: each round records its deck id; a reused deck is an incident.

With `new_deck_every_round` (the games shuffle after every round) a round that opens on the deck
the previous round was dealt from, or on no announced deck, pauses with `deck_reused` until the
dealer announces a fresh deck (`new_deck`) or the shift manager voids it.
"""

from __future__ import annotations

from test_controller_kit import CONFIGS, bench, shuffled

from studio.controller import ROLES

CS = CONFIGS[0]


def test_each_round_records_the_deck_the_dealer_announced() -> None:
    b = bench(CS, new_deck_every_round=True)
    first = b.cmd("new_deck", role="dealer")
    deck = next(e for e in first if e.type == "deck_changed").body["deck"]
    assert deck == "T01-deck-20261129-143207"
    assert b.view().deck == deck
    b.start()
    assert b.of_type("round_opened")[-1].body["deck"] == deck
    assert not b.view().paused and b.view().deck == deck
    b.play_round(shuffled(1))
    assert b.of_type("round_result")
    again = b.cmd("new_deck", role="dealer")
    fresh = next(e for e in again if e.type == "deck_changed").body["deck"]
    assert fresh != deck
    b.start()
    assert b.of_type("round_opened")[-1].body["deck"] == fresh
    assert not b.view().paused
    assert b.replay() == b.events


def test_two_decks_in_one_second_get_different_ids() -> None:
    b = bench(CS)
    ids = [b.cmd("new_deck", role="dealer")[1].body["deck"] for _ in range(3)]
    assert ids == ["T01-deck-20261129-143207", "T01-deck-20261129-143207-2",
                   "T01-deck-20261129-143207-3"]  # fmt: skip


def test_a_round_on_the_previous_rounds_deck_pauses_until_a_new_deck() -> None:
    b = bench(CS, new_deck_every_round=True)
    b.cmd("new_deck", role="dealer")
    b.start()
    old = b.view().deck
    b.play_round(shuffled(2))
    previous = b.view().game_number
    b.wait(1.0)
    out = b.start()
    assert [e.type for e in out if e.audience == "public"][:3] == [
        "round_opened",
        "betting_light_changed",
        "round_paused",
    ]
    assert out[0].body["deck"] == old
    incident = b.view().incidents[0]
    assert incident.kind == "deck_reused"
    blocker = f"deck {old} was already dealt in round {previous}: shuffle, then new_deck"
    assert incident.detail == blocker
    assert b.view().resume_blockers == (blocker,)
    refused = b.cmd("resume")
    assert refused[0].type == "command_rejected" and refused[0].body["reason"] == blocker
    # Nothing may be dealt meanwhile: betting is frozen with the table.
    assert b.view().expecting is None
    changed = b.cmd("new_deck", role="dealer")
    assert [e.type for e in changed] == ["command_accepted", "deck_changed"]
    fresh = changed[1].body["deck"]
    assert fresh != old and b.view().deck == fresh
    assert b.view().resume_blockers == ()
    assert b.cmd("resume")[1].type == "round_resumed"
    b.play_round(shuffled(3))
    assert len(b.of_type("round_result")) == 2
    assert b.replay() == b.events


def test_the_first_round_needs_an_announced_deck() -> None:
    b = bench(CS, new_deck_every_round=True)
    b.start()
    assert b.view().incidents[0].kind == "deck_reused"
    assert b.view().incidents[0].detail.startswith("no deck was announced before this round")
    # The shift manager may void the round instead; the next one still needs a fresh deck.
    assert b.cmd("void")[1].type == "round_voided"
    b.wait(1.0)
    b.start()
    assert b.view().paused
    b.cmd("new_deck", role="dealer")
    b.cmd("resume")
    assert not b.view().paused


def test_new_deck_is_still_refused_mid_round_and_once_cards_are_dealt() -> None:
    b = bench(CS, new_deck_every_round=True)
    b.cmd("new_deck", role="dealer")
    b.start()
    assert b.cmd("new_deck", role="dealer")[0].body["reason"] == (
        "the deck changes only between rounds"
    )
    b.play_round(shuffled(4))
    b.start()  # paused: deck reused
    b.cmd("call_manager", role="dealer")
    assert b.cmd("new_deck", role="dealer")[0].type == "command_accepted"


def test_without_the_check_rounds_record_their_deck_and_never_pause_for_it() -> None:
    b = bench(CS)
    b.start()
    assert b.of_type("round_opened")[-1].body["deck"] is None
    b.play_round(shuffled(5))
    b.cmd("new_deck", role="dealer")
    deck = b.view().deck
    b.start()
    b.play_round(shuffled(6))
    b.wait(1.0)
    b.start()
    assert b.of_type("round_opened")[-1].body["deck"] == deck
    assert not b.view().paused


def test_new_deck_is_a_floor_command() -> None:
    assert ROLES["new_deck"] == frozenset({"dealer", "shift_manager"})
