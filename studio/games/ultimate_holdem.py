"""Ultimate Texas Hold'em as data: variant `live` (seed 002) with Ante, Blind, Trips and Play.

Two cards up to the player and two down to the dealer, then three decision windows (pre-flop
play 4x/3x or check, flop play 2x or check, river play 1x or fold), then the dealer's reveal.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from studio.cards import Card
from studio.games.judgement import (
    LOSE,
    PUSH,
    WIN_EVEN,
    Judgement,
    Resolution,
    decision_paths,
    decision_stake,
    paytable_resolution,
    qualifies,
    refused_paths,
    seated_cards,
)
from studio.games.model import (
    BetSpec,
    DealCard,
    DecisionWindow,
    Face,
    GameRules,
    PayKind,
    Paytable,
    Reveal,
    Step,
)
from studio.hands import Category as C
from studio.hands import HandValue, evaluate, pack

GAME = "ultimate-holdem"
PLAYER = ("player-1", "player-2")
DEALER = ("dealer-1", "dealer-2")
FLOP = ("flop-1", "flop-2", "flop-3")
BOARD = (*FLOP, "turn", "river")
PREFLOP = DecisionWindow("preflop", ("play4x", "play3x", "check"), automatic="check")
FLOP_WINDOW = DecisionWindow(
    "flop", ("play2x", "check"), automatic="check", eligible_after=frozenset({"check"})
)
RIVER = DecisionWindow(
    "river", ("play1x", "fold"), automatic="fold", eligible_after=frozenset({"check"})
)
PLAY_MULTIPLE = {"play4x": 4, "play3x": 3, "play2x": 2, "play1x": 1}
"""Play bet size, in Antes, for each play decision."""
QUALIFIER = HandValue(pack(C.ONE_PAIR, []))
"""The dealer qualifies with any pair or better."""

F = Fraction
BLIND = Paytable("blind", PayKind.ODDS, {
    C.ROYAL_FLUSH: F(500), C.STRAIGHT_FLUSH: F(50), C.FOUR_OF_A_KIND: F(10),
    C.FULL_HOUSE: F(3), C.FLUSH: F(3, 2), C.STRAIGHT: F(1),
})  # fmt: skip
TRIPS = Paytable("trips", PayKind.ODDS, {
    C.ROYAL_FLUSH: F(50), C.STRAIGHT_FLUSH: F(40), C.FOUR_OF_A_KIND: F(30),
    C.FULL_HOUSE: F(8), C.FLUSH: F(7), C.STRAIGHT: F(4), C.THREE_OF_A_KIND: F(3),
})  # fmt: skip

SCRIPT: tuple[Step, ...] = (
    *(DealCard(p, Face.UP) for p in PLAYER),
    *(DealCard(p, Face.DOWN) for p in DEALER),
    PREFLOP,
    *(DealCard(p, Face.UP) for p in FLOP),
    FLOP_WINDOW,
    DealCard("turn", Face.UP),
    DealCard("river", Face.UP),
    RIVER,
    Reveal(DEALER),
)


def rules(variant: str = "live") -> GameRules:
    """The rules of variant `live`."""
    if variant != "live":
        raise ValueError(f"unknown {GAME} variant {variant!r} (expected live)")
    return GameRules(
        game=GAME,
        variant=variant,
        title="Ultimate Texas Hold'em (live: Blind and Trips)",
        positions=PLAYER + DEALER + BOARD,
        script=SCRIPT,
        bets=(
            BetSpec("ante", "required"),
            BetSpec("blind", "automatic"),
            BetSpec("trips", "optional"),
            BetSpec("play", "decision"),
        ),
        paytables={"blind": BLIND, "trips": TRIPS},
        published_returns={
            "main/ante": F("0.9782"),
            "main/total": F("0.9947"),
            "trips/bet": F("0.9650"),
        },
        qualifier=QUALIFIER,
        stake_multiples={option: F(n) for option, n in PLAY_MULTIPLE.items()},
        seats={"player": PLAYER, "dealer": DEALER, "board": BOARD},
    )


def judge(rules: GameRules, cards: Mapping[str, Card]) -> Judgement:
    """Judge a round of Ultimate Texas Hold'em: each side's best five of seven, plus Trips.

    `cards` maps every position (`player-1..2`, `dealer-1..2`, `flop-1..3`, `turn`, `river`) to
    its card. Raises `CardError` for a missing or unknown position or a card given twice.
    """
    seated_cards(rules, cards)
    board = [cards[p] for p in BOARD]
    player = evaluate([*(cards[p] for p in PLAYER), *board])
    dealer = evaluate([*(cards[p] for p in DEALER), *board])
    qualified = qualifies(rules, dealer)
    if player > dealer:
        blind_pay = rules.paytables["blind"].pay(player.category)
        # The Blind pushes on a winning hand below the table (three of a kind or lower).
        blind = PUSH if blind_pay is None else Resolution("win", 1 + blind_pay)
        played = {"ante": WIN_EVEN if qualified else PUSH, "blind": blind, "play": WIN_EVEN}
    elif player < dealer:
        played = {"ante": LOSE if qualified else PUSH, "blind": LOSE, "play": LOSE}
    else:
        played = {"ante": PUSH, "blind": PUSH, "play": PUSH}
    folded = {"ante": LOSE, "blind": LOSE}
    return Judgement(
        game=rules.game,
        variant=rules.variant,
        player=player,
        dealer=dealer,
        dealer_qualifies=qualified,
        side_bets={"trips": paytable_resolution(rules.paytables["trips"], player)},
        paths={
            path: dict(played) if decision_stake(rules, path) else folded
            for path in decision_paths(rules)
        },
        refused=refused_paths(rules, player),
    )
