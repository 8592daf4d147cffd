"""`TableSettings`: what one table runs and how long each of its timers lasts."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from studio.errors import ConfigurationError
from studio.games import get_rules
from studio.games.model import GameRules
from studio.messages.envelope import SCHEMA_VERSION


class TableSettings(BaseModel):
    """One table's game and timings (seconds). Unknown fields are refused.

    `procedure` is Caribbean Stud's dealing procedure ("hidden" or "late"; None: the game's
    default) and must be None for a game without procedures. `device_silence_seconds` None turns
    silence detection off (then devices need not send heartbeats). `auto_start` opens the next
    round `round_gap_seconds` after a round ends.

    Raises `pydantic.ValidationError` for a bad timing or an unknown game, variant or procedure.
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
    device_silence_seconds: float | None = Field(default=None, gt=0)
    auto_start: bool = False
    round_gap_seconds: float = Field(default=5.0, ge=0)
    schema_version: int = SCHEMA_VERSION

    @model_validator(mode="after")
    def _consistent(self) -> TableSettings:
        if self.yellow_seconds >= self.betting_seconds:
            raise ValueError("yellow_seconds must be shorter than betting_seconds")
        try:
            self.rules()
        except ConfigurationError as err:
            raise ValueError(str(err)) from err
        return self

    def rules(self) -> GameRules:
        """The table's game rules; raises `ConfigurationError` for an unknown game or option."""
        options = {} if self.procedure is None else {"procedure": self.procedure}
        return get_rules(self.game, self.variant, **options)
