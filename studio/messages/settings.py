"""`TableSettings`: what one table runs and how long each of its timers lasts."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from studio.errors import ConfigurationError
from studio.games import get_rules, with_limits
from studio.games.model import DealCard, Face, GameRules, Reveal
from studio.messages.envelope import SCHEMA_VERSION
from studio.messages.names import BetName
from studio.terms import CardSourceName

Amount = Annotated[Decimal, Field(gt=0, decimal_places=2)]
"""An amount of money above zero in whole cents (JSON: a decimal string such as "2.50")."""


class BetLimits(BaseModel):
    """The table's limits on one bet's stake: `minimum` and `maximum` (None: no limit).

    A minimum applies to a stake the player places (the Ante, a side bet that is placed); a
    side bet also needs an Ante at or above the Ante's minimum (docs/games.md: table limits).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    minimum: Amount | None = None
    maximum: Amount | None = None

    @staticmethod
    def of_rules(rules: GameRules) -> dict[str, BetLimits]:
        """Every bet of `rules` with the stake limits in force, in the rules' order."""
        return {
            spec.name: BetLimits(minimum=_decimal(spec.min_stake), maximum=_decimal(spec.max_stake))
            for spec in rules.bets
        }


def _decimal(amount: Fraction | None) -> Decimal | None:
    # The rules hold whole cents, so the quotient is exact.
    return None if amount is None else Decimal(amount.numerator) / Decimal(amount.denominator)


class TableSettings(BaseModel):
    """One table's game and timings (seconds). Unknown fields are refused.

    `procedure` is Caribbean Stud's dealing procedure ("hidden" or "late"; None: the game's
    default) and must be None for a game without procedures. `device_silence_seconds` None turns
    silence detection off (then devices need not send heartbeats). `auto_start` opens the next
    round `round_gap_seconds` after a round ends.

    `card_source` says where the round's cards come from: "shoe" (the shoe's `card_drawn`, each
    confirmed by the camera when `camera` is set) or "camera" (camera-only: the camera's
    `card_seen` seats each card; it needs `camera`, and a game whose every face-down card is
    turned by a reveal step, since that is when the camera reads it). A journal written before
    `card_source` existed loads with the default, "shoe".

    `limits` are the table's stake limits per bet: a bet named there has exactly those two
    limits (null: none), a bet not named keeps the variant's; the limits in force are published
    in every `round_opened`.
    `new_deck_every_round` makes the rule that the deck is shuffled after every round a check:
    each round must open on a deck announced by `new_deck` since the last round opened, else
    the round pauses with a `deck_reused` incident. Both default to what journals written before
    them meant: the variant's limits, and no deck check.

    Raises `pydantic.ValidationError` for a bad timing, an unknown game, variant or procedure,
    or a camera-only table without a camera.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str = Field(default="T01", min_length=1, pattern=r"^[A-Za-z0-9]+$")
    game: str
    variant: str = "live"
    procedure: str | None = None
    betting_seconds: float = Field(default=20.0, gt=0)
    yellow_seconds: float = Field(default=5.0, ge=0)
    decision_seconds: float = Field(default=15.0, gt=0)
    deal_timeout_seconds: float = Field(default=30.0, gt=0)
    camera: bool = False
    camera_confirm_seconds: float = Field(default=2.0, gt=0)
    card_source: CardSourceName = "shoe"
    device_silence_seconds: float | None = Field(default=None, gt=0)
    auto_start: bool = False
    round_gap_seconds: float = Field(default=5.0, ge=0)
    limits: dict[BetName, BetLimits] = Field(default_factory=dict)
    new_deck_every_round: bool = False
    schema_version: int = SCHEMA_VERSION

    @model_validator(mode="after")
    def _consistent(self) -> TableSettings:
        if self.yellow_seconds >= self.betting_seconds:
            raise ValueError("yellow_seconds must be shorter than betting_seconds")
        try:
            rules = self.rules()
        except ConfigurationError as err:
            raise ValueError(str(err)) from err
        if self.card_source == "camera":
            if not self.camera:
                raise ValueError('card_source "camera" needs a camera (camera = true)')
            unread = _never_turned(rules)
            if unread:
                raise ValueError(
                    f'card_source "camera" cannot read {", ".join(unread)}: dealt face down '
                    "and never turned by a reveal step"
                )
        return self

    def rules(self) -> GameRules:
        """The table's game rules; raises `ConfigurationError` for an unknown game or option."""
        options = {} if self.procedure is None else {"procedure": self.procedure}
        rules = get_rules(self.game, self.variant, **options)
        if not self.limits:
            return rules
        overrides: dict[str, str | None] = {}
        for bet, limit in self.limits.items():
            for kind, amount in (("min_stake", limit.minimum), ("max_stake", limit.maximum)):
                overrides[f"{kind}.{bet}"] = None if amount is None else str(amount)
        return with_limits(rules, overrides)


def _never_turned(rules: GameRules) -> list[str]:
    """Face-down positions no reveal step turns: a camera-only table could never read them."""
    turned = {p for step in rules.script if isinstance(step, Reveal) for p in step.positions}
    return [
        step.position
        for step in rules.script
        if isinstance(step, DealCard) and step.face is Face.DOWN and step.position not in turned
    ]
