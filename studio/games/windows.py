"""What a decision window offers the player's hand: the options, the automatic action, the hand.

A rule may refuse an option for some hands (the classic variant: a royal flush cannot fold). The
stream must never tell the platform to take a refused action, so the window offers only the
options the player's hand allows, and its automatic action falls to the first allowed option
when the rules' own automatic action is refused (a classic royal is auto-called).
"""

from collections.abc import Mapping
from dataclasses import dataclass

from studio.cards import Card
from studio.games.model import DecisionWindow, GameRules
from studio.hands import HandValue, evaluate


@dataclass(frozen=True, slots=True)
class OfferedWindow:
    """A decision window as offered for one hand: `options`, `automatic`, `player_hand`.

    `player_hand` describes the best hand of the player's face-up cards and the board dealt so
    far ("One pair, kings"; with fewer than five cards, "One pair, kings" or "High card,
    ace-king"), or None when no player card is known.
    """

    options: tuple[str, ...]
    automatic: str
    player_hand: str | None


def player_cards(rules: GameRules, cards: Mapping[str, Card]) -> list[Card]:
    """The player's own and the board's cards among `cards` (positions -> cards dealt so far)."""
    positions = [*rules.seats.get("player", ()), *rules.seats.get("board", ())]
    return [cards[p] for p in positions if p in cards]


def describe_partial(cards: list[Card]) -> str | None:
    """A description of fewer than five cards: the pair, or the high cards; None for no card."""
    if not cards:
        return None
    ranks = sorted((card.rank for card in cards), reverse=True)
    pairs = [r for r in set(ranks) if ranks.count(r) >= 2]
    if pairs:
        return f"One pair, {max(pairs).plural}"
    return "High card, " + "-".join(rank.noun for rank in ranks)


def offer(rules: GameRules, window: DecisionWindow, cards: Mapping[str, Card]) -> OfferedWindow:
    """The window `window` as offered when the cards at `cards` (position -> card) are dealt.

    Options refused for the player's hand are left out (the hand is judged once five or more of
    the player's cards are known); the automatic action is the window's own unless refused, then
    the first option left.
    """
    known = player_cards(rules, cards)
    hand: HandValue | None = evaluate(known) if len(known) >= 5 else None
    if hand is None:
        return OfferedWindow(window.options, window.automatic, describe_partial(known))
    allowed = tuple(
        option
        for option in window.options
        if hand.category not in rules.refused.get(option, frozenset())
    )
    automatic = window.automatic if window.automatic in allowed else allowed[0]
    return OfferedWindow(allowed, automatic, hand.description)


def void_refunds(rules: GameRules, window_opened: bool) -> tuple[str, ...]:
    """The bets a void refunds to every player who placed them, in the rules' order.

    The initial bets always (Ante, Blind, side bets); the decision bet (Call, Play) too once a
    decision window has opened, since a player may have placed it there. This is what
    `settlement.settle_void` refunds for any player's bets and given decisions.
    """
    return tuple(bet.name for bet in rules.bets if bet.placed != "decision" or window_opened)
