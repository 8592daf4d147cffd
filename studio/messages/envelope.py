"""The envelope every published event travels in, and the helpers for its UTC timestamps.

An `Envelope` is the one shape the journal stores and the bus publishes: the table, a gapless
sequence number, the round's game number, a UTC timestamp, the audience (public or restricted),
the event type and its body, and the schema version. Consumers in any language use the JSON
Schema that `studio schema` writes.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator

SCHEMA_VERSION = 1
"""Version of every message shape here; raised when any input, event or envelope changes."""

Audience = Literal["public", "restricted"]
"""Who may see an event: anyone watching the stream, or only authorised consumers."""

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MICROSECOND = timedelta(microseconds=1)
"""One microsecond: `to_micros`' unit."""


def to_micros(ts: datetime) -> int:
    """Microseconds since the Unix epoch for an aware datetime (exact: no float rounding)."""
    return (ts - EPOCH) // MICROSECOND


def from_micros(micros: int) -> datetime:
    """The aware UTC datetime `micros` microseconds after the Unix epoch."""
    return EPOCH + timedelta(microseconds=micros)


def utc(ts: datetime) -> datetime:
    """`ts` converted to UTC; naive datetimes are refused by the models before they get here."""
    return ts.astimezone(UTC)


class Envelope(BaseModel):
    """One published event.

    `seq` is gapless per table from 1; `game_number` is None for events outside a round; `ts` is
    the UTC time of the input that caused the event; `type` is a snake_case past-tense name from
    `studio.messages.EVENT_TYPES`; `body` is that type's body model dumped to JSON types.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str = Field(min_length=1)
    seq: int = Field(ge=1)
    game_number: str | None
    ts: AwareDatetime
    audience: Audience
    type: str = Field(pattern=r"^[a-z]+(_[a-z]+)*$")
    body: dict[str, Any]
    schema_version: int = SCHEMA_VERSION

    @field_validator("ts")
    @classmethod
    def _in_utc(cls, value: datetime) -> datetime:
        return utc(value)
