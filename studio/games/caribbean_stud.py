"""Caribbean Stud Poker as data: variants `live` (seed 000) and `classic` (seed 001).

Both share the deal (five cards up to the player; one up and four more to the dealer), the single
CALL/FOLD decision (automatic: fold) and the dealer's A-K qualifier. The rules require two dealing
procedures, chosen per table with the option `procedure`:

* `hidden` (default): the dealer's four other cards are dealt face down before the decision and
  turned after it;
* `late`: those four cards are dealt face up after the decision window closes.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from studio.cards import Card, Rank
from studio.games.judgement import (
    LOSE,
    PUSH,
    WIN_EVEN,
    Judgement,
    Resolution,
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
from studio.terms import PROCEDURES

GAME = "caribbean-stud"
PLAYER = tuple(f"player-{i}" for i in range(1, 6))
DEALER = tuple(f"dealer-{i}" for i in range(1, 6))
DECISION = DecisionWindow("decision", ("call", "fold"), automatic="fold")
QUALIFIER = HandValue(pack(C.HIGH_CARD, [Rank.ACE, Rank.KING, Rank.FOUR, Rank.THREE, Rank.TWO]))
"""The dealer's lowest qualifying hand: A-K-4-3-2 (any pair or better also qualifies)."""
CALL_MULTIPLE = {"call": Fraction(2)}

F = Fraction
CALL_LIVE = Paytable("call-live", PayKind.ODDS, {
    C.ROYAL_FLUSH: F(100), C.STRAIGHT_FLUSH: F(50), C.FOUR_OF_A_KIND: F(25),
    C.FULL_HOUSE: F(10), C.FLUSH: F(7), C.STRAIGHT: F(5), C.THREE_OF_A_KIND: F(3),
    C.TWO_PAIR: F(2), C.ONE_PAIR: F(1), C.HIGH_CARD: F(1),
})  # fmt: skip
CALL_CLASSIC = Paytable("call-classic", PayKind.ODDS, {
    C.ROYAL_FLUSH: F(100), C.STRAIGHT_FLUSH: F(50), C.FOUR_OF_A_KIND: F(20),
    C.FULL_HOUSE: F(7), C.FLUSH: F(5), C.STRAIGHT: F(4), C.THREE_OF_A_KIND: F(3),
    C.TWO_PAIR: F(2), C.ONE_PAIR: F(1), C.HIGH_CARD: F(1),
})  # fmt: skip
BONUS = Paytable("five-plus-one", PayKind.ODDS, {
    C.ROYAL_FLUSH: F(1000), C.STRAIGHT_FLUSH: F(200), C.FOUR_OF_A_KIND: F(100),
    C.FULL_HOUSE: F(20), C.FLUSH: F(15), C.STRAIGHT: F(10), C.THREE_OF_A_KIND: F(7),
})  # fmt: skip
JACKPOT = Paytable("jackpot", PayKind.FIXED, {
    C.STRAIGHT_FLUSH: F(2500), C.FOUR_OF_A_KIND: F(250), C.FULL_HOUSE: F(50),
    C.FLUSH: F(25), C.STRAIGHT: F(10), C.THREE_OF_A_KIND: F(3),
}, progressive=frozenset({C.ROYAL_FLUSH}))  # fmt: skip


def script(procedure: str = "hidden") -> tuple[Step, ...]:
    """The dealing script for one of the two procedures (`hidden` or `late`)."""
    if procedure not in PROCEDURES:
        raise ValueError(f"unknown dealing procedure {procedure!r} (expected one of {PROCEDURES})")
    player: list[Step] = [DealCard(p, Face.UP) for p in PLAYER]
    first: list[Step] = [DealCard(DEALER[0], Face.UP)]
    if procedure == "hidden":
        rest: list[Step] = [DealCard(p, Face.DOWN) for p in DEALER[1:]]
        return (*player, *first, *rest, DECISION, Reveal(DEALER[1:]))
    late: list[Step] = [DealCard(p, Face.UP) for p in DEALER[1:]]
    return (*player, *first, DECISION, *late)


def rules(variant: str = "live", procedure: str = "hidden") -> GameRules:
    """The rules of variant `live` or `classic` with the chosen dealing procedure."""
    common = {
        "game": GAME,
        "variant": variant,
        "positions": PLAYER + DEALER,
        "script": script(procedure),
        "options": {"procedure": procedure},
        "qualifier": QUALIFIER,
        "stake_multiples": CALL_MULTIPLE,
        "seats": {"player": PLAYER, "dealer": DEALER},
    }
    if variant == "live":
        return GameRules(
            title="Caribbean Stud Poker (live: 5+1 Bonus, progressive Jackpot)",
            bets=(
                BetSpec("ante", "required"),
                BetSpec("bonus", "optional"),
                BetSpec("jackpot", "optional"),
                BetSpec("call", "decision"),
            ),
            paytables={"call": CALL_LIVE, "bonus": BONUS, "jackpot": JACKPOT},
            published_returns={
                "main/ante": F("0.9630"),
                "main/total": F("0.9819"),
                "bonus/bet": F("0.9144"),
                "jackpot/bet": F("0.8184"),
            },
            **common,  # type: ignore[arg-type]
        )
    if variant == "classic":
        return GameRules(
            title="Caribbean Stud Poker (classic: 5+1 Bonus, limits, a royal flush cannot fold)",
            bets=(
                BetSpec("ante", "required", max_stake=F(100), max_win=F(200)),
                BetSpec("bonus", "optional", max_stake=F(100), max_win=F(100100)),
                BetSpec("call", "decision", max_stake=F(200), max_win=F(20200)),
            ),
            paytables={"call": CALL_CLASSIC, "bonus": BONUS},
            published_returns={"main/total": F("0.9745"), "bonus/bet": F("0.9144")},
            round_win_cap=F(120500),
            refused={"fold": frozenset({C.ROYAL_FLUSH})},
            **common,  # type: ignore[arg-type]
        )
    raise ValueError(f"unknown {GAME} variant {variant!r} (expected live or classic)")


def judge(rules: GameRules, cards: Mapping[str, Card]) -> Judgement:
    """Judge a round of Caribbean Stud: five cards against five, plus the side bets.

    `cards` maps every position (`player-1..5`, `dealer-1..5`; `dealer-1` is the face-up card
    the 5+1 Bonus uses) to its card. Raises `CardError` for a missing or unknown position or a
    card given twice.
    """
    seated_cards(rules, cards)
    mine = [cards[p] for p in PLAYER]
    player, dealer = evaluate(mine), evaluate([cards[p] for p in DEALER])
    qualified = qualifies(rules, dealer)
    side: dict[str, Resolution] = {}
    if "bonus" in rules.paytables:
        six = evaluate([*mine, cards[DEALER[0]]])
        won = paytable_resolution(rules.paytables["bonus"], six)
        side["bonus"] = Resolution(won.outcome, won.returned, hand=six)
    if "jackpot" in rules.paytables:
        side["jackpot"] = paytable_resolution(rules.paytables["jackpot"], player)
    if not qualified:
        called = {"ante": WIN_EVEN, "call": PUSH}
    elif player > dealer:
        odds = rules.paytables["call"].pay(player.category)
        called = {"ante": WIN_EVEN, "call": Resolution("win", 1 + (odds or F(1)))}
    elif player < dealer:
        called = {"ante": LOSE, "call": LOSE}
    else:
        called = {"ante": PUSH, "call": PUSH}
    return Judgement(
        game=rules.game,
        variant=rules.variant,
        player=player,
        dealer=dealer,
        dealer_qualifies=qualified,
        side_bets=side,
        paths={"call": called, "fold": {"ante": LOSE}},
        refused=refused_paths(rules, player),
    )
