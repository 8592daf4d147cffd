"""`TableSettings`: what one table runs and how long each of its timers lasts."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from studio.errors import ConfigurationError
from studio.games import get_rules
from studio.games.model import DealCard, Face, GameRules, Reveal
from studio.messages.envelope import SCHEMA_VERSION


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
    card_source: Literal["shoe", "camera"] = "shoe"
    device_silence_seconds: float | None = Field(default=None, gt=0)
    auto_start: bool = False
    round_gap_seconds: float = Field(default=5.0, ge=0)
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
        return get_rules(self.game, self.variant, **options)


def _never_turned(rules: GameRules) -> list[str]:
    """Face-down positions no reveal step turns: a camera-only table could never read them."""
    turned = {p for step in rules.script if isinstance(step, Reveal) for p in step.positions}
    return [
        step.position
        for step in rules.script
        if isinstance(step, DealCard) and step.face is Face.DOWN and step.position not in turned
    ]
