"""The shape of `round_result.judgement`: `studio.games.Judgement.to_json()`, field by field.

TypedDicts, so a round result's `judgement` stays a plain dict in Python (as `to_json()` makes
it) while pydantic checks it and the JSON Schema describes it. Keys that `to_json()` writes only
sometimes (a Jackpot's `fixed_prize`, `progressive`, a side bet's own `hand`) are NotRequired.
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

from studio.messages.names import (
    RATIO_PATTERN,
    BetName,
    CategoryName,
    GameName,
    OutcomeName,
    PathName,
    VariantName,
)

Ratio = Annotated[int, Field(ge=0)] | Annotated[str, Field(pattern=RATIO_PATTERN)]
"""A per-unit figure: a whole number, or an exact fraction such as "5/2" (never a float)."""


@with_config(ConfigDict(extra="forbid"))
class HandValueJson(TypedDict):
    """A hand's value: its description, its category and an integer that orders all hands."""

    description: str
    category: CategoryName
    code: Annotated[int, Field(ge=0)]


@with_config(ConfigDict(extra="forbid"))
class ResolutionJson(TypedDict):
    """How one bet ends, per unit of its stake (`studio.games.Resolution.to_json()`).

    `returned` includes the stake (2 for a 1:1 win, 1 for a push, 0 for a loss). A fixed Jackpot
    prize has `fixed_prize`; a progressive one has `progressive` true and `returned` 0. `hand`
    is the hand a side bet was judged on, when it is not the player's main hand.
    """

    outcome: OutcomeName
    returned: Ratio
    fixed_prize: NotRequired[Ratio]
    progressive: NotRequired[Literal[True]]
    hand: NotRequired[HandValueJson]


@with_config(ConfigDict(extra="forbid"))
class JudgementJson(TypedDict):
    """A round judged once for every player: both hands, side bets, every decision path.

    `paths` maps each complete decision path to the main bets placed on it; `refused` maps a
    path the rules refuse for these cards to the reason.
    """

    game: GameName
    variant: VariantName
    player: HandValueJson
    dealer: HandValueJson
    dealer_qualifies: bool
    side_bets: dict[BetName, ResolutionJson]
    paths: dict[PathName, dict[BetName, ResolutionJson]]
    refused: dict[PathName, str]
