"""What a decision window tells the platform: never a refused action, and the player's hand."""

from __future__ import annotations

from test_controller_kit import CONFIGS, bench, shuffled

from studio.cards import Card

LIVE, CLASSIC, HOLDEM = CONFIGS[0], CONFIGS[2], CONFIGS[3]


def deck_dealing(first: str) -> list[Card]:
    """A shuffled deck whose first cards off the shoe are `first` (space-separated codes)."""
    head = [Card.parse(code) for code in first.split()]
    rest = [card for card in shuffled(7) if card not in head]
    return rest + head[::-1]  # the bench pops from the end


def test_a_classic_royal_is_offered_call_only_and_auto_called() -> None:
    b = bench(CLASSIC)
    b.play_round(deck_dealing("AS KS QS JS TS"))
    opened = b.of_type("decision_window_opened")[0].body
    closed = b.of_type("decision_window_closed")[0].body
    assert (opened["options"], opened["automatic"]) == (["call"], "call")
    assert opened["player_hand"] == "Royal flush"
    assert closed["automatic"] == "call"


def test_a_live_royal_may_still_fold_and_an_ordinary_classic_hand_too() -> None:
    for config, first in ((LIVE, "AS KS QS JS TS"), (CLASSIC, "KS KD 2C 7H 9D")):
        b = bench(config)
        b.play_round(deck_dealing(first))
        opened = b.of_type("decision_window_opened")[0].body
        assert (opened["options"], opened["automatic"]) == (["call", "fold"], "fold")


def test_each_window_describes_the_players_hand_so_far() -> None:
    b = bench(CLASSIC)
    b.play_round(deck_dealing("KS KD 2C 7H 9D"))
    assert b.of_type("decision_window_opened")[0].body["player_hand"] == "One pair, kings"
    b = bench(HOLDEM)
    # Hold'em deals player, player, dealer, dealer, then the flop, turn and river.
    b.play_round(deck_dealing("AS KD 7C 8C KH 2S 3C 4D 5H"))
    hands = [e.body["player_hand"] for e in b.of_type("decision_window_opened")]
    assert hands == ["High card, ace-king", "One pair, kings", "Straight, five high"]


def test_a_void_names_the_decision_bet_among_its_refunds_once_a_window_opened() -> None:
    b = bench(HOLDEM)
    b.start()
    b.wait(10.0)
    for code in ("AS", "KD", "7C", "8C"):
        b.deal(code)
    assert b.of_type("decision_window_opened")  # a player may have played 4x already
    b.cmd("call_manager", role="dealer")
    voided = next(e for e in b.cmd("void") if e.type == "round_voided")
    assert voided.body["refunded"] == ["ante", "blind", "trips", "play"]
