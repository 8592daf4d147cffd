"""The shape of a game's rules as data: positions, dealing script, windows, bets, paytables.

A game module (`studio.games.caribbean_stud`, `studio.games.ultimate_holdem`) builds one
`GameRules` per variant from these frozen records. The controller walks `GameRules.script` and
never needs game-specific code; settlement and return calculations read the paytables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction

from studio.hands import Category, HandValue


class Face(StrEnum):
    """Whether a card is dealt face up (public at once) or face down (secret until revealed)."""

    UP = "up"
    DOWN = "down"


@dataclass(frozen=True, slots=True)
class DealCard:
    """Script step: the next card drawn goes to `position`, lying `face` up or down."""

    position: str
    face: Face


@dataclass(frozen=True, slots=True)
class DecisionWindow:
    """Script step: a timed window in which each player chooses one of `options`.

    `automatic` is the action of a player with no decision when the window closes. A window with
    `eligible_after` only concerns players whose earlier decisions were all in that set (Hold'em's
    flop window is only for players who checked pre-flop).
    """

    name: str
    options: tuple[str, ...]
    automatic: str
    eligible_after: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Reveal:
    """Script step: the dealer turns the face-down cards at `positions`."""

    positions: tuple[str, ...]


Step = DealCard | DecisionWindow | Reveal


class PayKind(StrEnum):
    """How a paytable's figures are read."""

    ODDS = "odds"
    """X means X:1: the stake is returned with X times the stake."""
    FIXED = "fixed"
    """X is an amount paid "for one": the stake itself is not returned."""


@dataclass(frozen=True, slots=True)
class Paytable:
    """What one bet pays per hand category; categories absent from `pays` lose.

    `progressive` names categories paid from a progressive pool instead of a figure.
    """

    name: str
    kind: PayKind
    pays: Mapping[Category, Fraction]
    progressive: frozenset[Category] = frozenset()

    def pay(self, category: Category) -> Fraction | None:
        """The figure for `category`, or None when the category does not win on this table."""
        return self.pays.get(category)


@dataclass(frozen=True, slots=True)
class BetSpec:
    """A bet type of a game.

    `placed` says how it comes to be: `required` (the Ante), `optional` side bets, `automatic`
    (Hold'em's Blind, equal to the Ante) or `decision` (Call/Play, placed by a decision).
    `min_stake` and `max_stake` are the table limits on a stake the player places (None: no
    limit; a minimum applies to the Ante and to a side bet that is placed, never to a bet of
    zero, which is no bet); `max_win` caps the win, stake included.
    """

    name: str
    placed: str
    min_stake: Fraction | None = None
    max_stake: Fraction | None = None
    max_win: Fraction | None = None


@dataclass(frozen=True, slots=True)
class GameRules:
    """Everything the table needs to know about one variant of one game."""

    game: str
    variant: str
    title: str
    positions: tuple[str, ...]
    script: tuple[Step, ...]
    bets: tuple[BetSpec, ...]
    paytables: Mapping[str, Paytable]
    published_returns: Mapping[str, Fraction] = field(default_factory=dict)
    round_win_cap: Fraction | None = None
    options: Mapping[str, str] = field(default_factory=dict)
    qualifier: HandValue | None = None
    """The dealer's lowest qualifying hand (None: the dealer always qualifies)."""
    stake_multiples: Mapping[str, Fraction] = field(default_factory=dict)
    """Decision option -> size of the decision bet it places, in Antes (call: 2, play4x: 4)."""
    refused: Mapping[str, frozenset[Category]] = field(default_factory=dict)
    """Decision option -> the player's hand categories for which the option is refused."""
    seats: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Card groups as requests name them (`player`, `dealer`, `board`) -> positions in order."""

    @property
    def windows(self) -> tuple[DecisionWindow, ...]:
        """The decision windows in script order."""
        return tuple(s for s in self.script if isinstance(s, DecisionWindow))

    @property
    def deals(self) -> tuple[DealCard, ...]:
        """The card steps in dealing order."""
        return tuple(s for s in self.script if isinstance(s, DealCard))

    def bet(self, name: str) -> BetSpec:
        """The bet named `name`; raises KeyError for a bet this game does not have."""
        for spec in self.bets:
            if spec.name == name:
                return spec
        raise KeyError(name)
