"""A round's judgement: what every bet returns per unit of stake, for every decision path.

All players share one player hand, so a round is judged once (`studio.games.judge`) and each
player's bets settle by lookup: side bets in `Judgement.side_bets`, main bets in
`Judgement.paths[path]`, where a path names the player's choices in window order joined by `/`
("call", "check/play2x", "check/check/fold").

This module holds the shared records and the helpers both games' `judge` functions use.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from studio.cards import Card, require_distinct
from studio.errors import CardError
from studio.games.model import DecisionWindow, GameRules, PayKind, Paytable
from studio.hands import HandValue, evaluate

OUTCOMES = ("win", "lose", "push", "refund")


@dataclass(frozen=True, slots=True)
class Resolution:
    """How one bet ends, per unit of its stake.

    `outcome` is "win", "lose", "push" or "refund"; `returned` is the amount returned per unit of
    stake, stake included (2 for a 1:1 win, 1 for a push, 0 for a loss). For the Jackpot,
    `fixed_prize` is the prize paid "for one" (then `returned` equals it: the stake is not
    returned) and `progressive` is True for a royal flush, whose pool share is not a per-unit
    figure (`returned` is 0 and settlement adds the share). `hand` is the hand a side bet was
    judged on, when it differs from the player's main hand (the 5+1 Bonus).
    """

    outcome: str
    returned: Fraction
    fixed_prize: Fraction | None = None
    progressive: bool = False
    hand: HandValue | None = None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON: outcome, `returned` as a number or a "3/2" string, and jackpot details."""
        data: dict[str, Any] = {"outcome": self.outcome, "returned": ratio_json(self.returned)}
        if self.fixed_prize is not None:
            data["fixed_prize"] = ratio_json(self.fixed_prize)
        if self.progressive:
            data["progressive"] = True
        if self.hand is not None:
            data["hand"] = hand_json(self.hand)
        return data


WIN_EVEN = Resolution("win", Fraction(2))
PUSH = Resolution("push", Fraction(1))
LOSE = Resolution("lose", Fraction(0))


@dataclass(frozen=True, slots=True)
class Judgement:
    """The result of one round's cards, independent of any player's bets.

    `player` and `dealer` are the values of each side's best five cards; `side_bets` maps each
    side bet of the variant (bonus, jackpot, trips) to its resolution, whatever the decisions;
    `paths` maps every complete decision path to the main bets' resolutions (a bet absent from a
    path is not placed on it: no Call after a fold). `refused` maps a path the rules refuse for
    these cards to the reason (classic Caribbean Stud: a royal flush cannot fold).
    """

    game: str
    variant: str
    player: HandValue
    dealer: HandValue
    dealer_qualifies: bool
    side_bets: dict[str, Resolution]
    paths: dict[str, dict[str, Resolution]]
    refused: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The judgement as plain JSON types, for settlement systems that settle by lookup."""
        return {
            "game": self.game,
            "variant": self.variant,
            "player": hand_json(self.player),
            "dealer": hand_json(self.dealer),
            "dealer_qualifies": self.dealer_qualifies,
            "side_bets": {name: r.to_json() for name, r in self.side_bets.items()},
            "paths": {
                path: {name: r.to_json() for name, r in bets.items()}
                for path, bets in self.paths.items()
            },
            "refused": dict(self.refused),
        }


def ratio_json(value: Fraction) -> int | str:
    """A per-unit figure for JSON: an int when whole, else an exact string such as "5/2"."""
    return int(value) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def hand_json(hand: HandValue) -> dict[str, Any]:
    """A hand value for JSON: its description, category slug and comparable integer code."""
    return {"description": hand.description, "category": hand.category.slug, "code": hand.code}


def seated_cards(rules: GameRules, cards: Mapping[str, Card], partial: bool = False) -> None:
    """Check that `cards` holds one distinct card for every position of `rules`.

    With `partial`, positions may be missing (a round voided during the deal). Raises
    `CardError` naming a missing or unknown position, or a card given twice.
    """
    unknown = [p for p in cards if p not in rules.positions]
    if unknown:
        raise CardError(f"unknown position {unknown[0]!r} for {rules.game}")
    missing = [p for p in rules.positions if p not in cards]
    if missing and not partial:
        raise CardError(f"no card for position {missing[0]!r} ({len(missing)} missing)")
    require_distinct(list(cards.values()))


def seat(
    rules: GameRules, groups: Mapping[str, Sequence[Card]], partial: bool = False
) -> dict[str, Card]:
    """Place cards given by group (`player`, `dealer`, `board`: see `GameRules.seats`) on positions.

    Each group's cards fill its positions in order (the dealer's first card is the face-up
    one). With `partial`, a group may be short or absent (a round voided during the deal).
    Raises `CardError` for an unknown group, a wrong number of cards or a card given twice.
    """
    unknown = [name for name in groups if name not in rules.seats]
    if unknown:
        raise CardError(
            f"{rules.game} has no {unknown[0]} cards (expected {', '.join(rules.seats)})"
        )
    cards: dict[str, Card] = {}
    for name, positions in rules.seats.items():
        given = groups.get(name, ())
        if len(given) > len(positions) or (len(given) < len(positions) and not partial):
            raise CardError(f"{rules.game} needs {len(positions)} {name} cards, got {len(given)}")
        cards.update(zip(positions, given, strict=False))
    seated_cards(rules, cards, partial)
    return cards


def qualifies(rules: GameRules, dealer: HandValue) -> bool:
    """Whether the dealer's hand reaches the variant's qualifier (always, without one)."""
    return rules.qualifier is None or dealer >= rules.qualifier


def paytable_resolution(table: Paytable, hand: HandValue) -> Resolution:
    """A side bet's resolution from its paytable: odds, a fixed prize for one, or progressive."""
    category = hand.category
    if category in table.progressive:
        return Resolution("win", Fraction(0), progressive=True)
    pay = table.pay(category)
    if pay is None:
        return LOSE
    if table.kind is PayKind.FIXED:
        return Resolution("win", pay, fixed_prize=pay)
    return Resolution("win", 1 + pay)


def jackpot_review(rules: GameRules, cards: Mapping[str, Card]) -> bool:
    """Whether the player's cards among `cards` would have won a Jackpot prize.

    The review a voided round owes a player with a Jackpot bet (docs/games.md): True only when
    the game has a Jackpot paytable, every player position has its card, no card is there twice,
    and the hand wins on that paytable (a progressive category or a fixed prize). `cards` maps
    positions to the cards dealt so far (any subset). The controller's `round_voided` and
    `settle_void` both ask this one function.
    """
    table = rules.paytables.get("jackpot")
    seats = rules.seats.get("player", ())
    if table is None or not seats:
        return False
    mine = [cards[p] for p in seats if p in cards]
    if len(mine) != len(seats) or len(set(mine)) != len(mine):
        return False
    return paytable_resolution(table, evaluate(mine)).outcome == "win"


def eligible(window: DecisionWindow, choices: tuple[str, ...]) -> bool:
    """Whether a player whose earlier choices are `choices` decides in `window`."""
    return not window.eligible_after or all(c in window.eligible_after for c in choices)


def decision_paths(rules: GameRules) -> tuple[str, ...]:
    """Every complete decision path of the game, in a fixed order (options in window order).

    Caribbean Stud: ("call", "fold"); Hold'em: ("play4x", "play3x", "check/play2x",
    "check/check/play1x", "check/check/fold"). Batch settlement codes paths by this order.
    """
    paths: list[tuple[str, ...]] = [()]
    for window in rules.windows:
        grown: list[tuple[str, ...]] = []
        for path in paths:
            if eligible(window, path):
                grown.extend((*path, option) for option in window.options)
            else:
                grown.append(path)
        paths = grown
    return tuple("/".join(path) for path in paths)


def decision_stake(rules: GameRules, path: str) -> Fraction:
    """The decision bet (Call/Play) placed on `path`, in Antes (0 when the player folds)."""
    return sum((rules.stake_multiples.get(c, Fraction(0)) for c in path.split("/")), Fraction(0))


def refused_paths(rules: GameRules, player: HandValue) -> dict[str, str]:
    """The paths the rules refuse for the player's hand, each with the reason as one line."""
    refused: dict[str, str] = {}
    for path in decision_paths(rules):
        for choice in path.split("/"):
            if player.category in rules.refused.get(choice, frozenset()):
                refused[path] = f"a {player.category.label.lower()} cannot {choice}"
    return refused
