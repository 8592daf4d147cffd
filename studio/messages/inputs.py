"""Inputs: everything that can happen to a table, each with the UTC time it happened.

The shell turns hardware readings, commands from the bus and its clock into these models, journals
each one (`model_dump_json()` is its journal form) and hands it to the controller. The `kind` field
tells them apart; `parse_input` reads one back from JSON.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from studio.cards import Card
from studio.errors import CardError, InputError
from studio.messages.envelope import SCHEMA_VERSION, utc
from studio.terms import CommandName, Device, Role


def _card_code(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return Card.parse(value).code
    except CardError as err:
        raise ValueError(str(err)) from err


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    ts: AwareDatetime
    schema_version: int = SCHEMA_VERSION
    mono: float | None = None
    """The runtime's monotonic clock (seconds) when it journalled the input; None where no
    runtime did (a simulation, a test). A wall-clock step shows against it."""

    @field_validator("ts")
    @classmethod
    def _in_utc(cls, value: datetime) -> datetime:
        return utc(value)


class CardDrawn(_Input):
    """The shoe read a card as it was drawn.

    `card` is the canonical code, or None when the shoe could not read it (an unreadable card is a
    reading, not a missing input). `raw` keeps the device's own frame for incident reports;
    `detail` says why an unreadable card was not read (the driver's words), for the incident.
    """

    kind: Literal["card_drawn"] = "card_drawn"
    card: str | None
    raw: str = ""
    detail: str = ""

    @field_validator("card")
    @classmethod
    def _canonical(cls, value: str | None) -> str | None:
        return _card_code(value)


class CardSeen(_Input):
    """The camera saw what lies at a zone (a position name).

    `face` is "up" (then `card` is the code it recognised, or None: a face-up card it cannot
    read), "down" (a card back: the camera cannot read it, `card` is None) or "none" (nothing
    there, `card` is None).
    """

    kind: Literal["card_seen"] = "card_seen"
    zone: str = Field(min_length=1)
    face: Literal["up", "down", "none"]
    card: str | None = None
    raw: str = ""

    @field_validator("card")
    @classmethod
    def _canonical(cls, value: str | None) -> str | None:
        return _card_code(value)

    @model_validator(mode="after")
    def _card_only_face_up(self) -> CardSeen:
        if self.face != "up" and self.card is not None:
            raise ValueError("a card code is given only when the face is up")
        return self


class DeviceStatus(_Input):
    """A device reported its health: "ok" (also its heartbeat) or "fault" with the detail."""

    kind: Literal["device_status"] = "device_status"
    device: Device
    status: Literal["ok", "fault"]
    detail: str = ""
    raw: str = ""


class Command(_Input):
    """A person's command from the bus: who (`actor`, authenticated `role`), what and arguments.

    Arguments are checked by the controller, not here, so a bad argument is journalled and
    answered with a `command_rejected` event naming the reason.
    """

    kind: Literal["command"] = "command"
    actor: str = Field(min_length=1)
    role: Role
    command: CommandName
    position: str | None = None
    card: str | None = None
    note: str = ""


class Tick(_Input):
    """The shell's clock: lets timers expire when nothing else happens."""

    kind: Literal["tick"] = "tick"


AlarmCause = Literal["journal_unwritable", "clock_step", "clock_unsynchronised"]
"""What the table's shell found wrong outside the game itself: each is an incident kind."""


class AlarmRaised(_Input):
    """The table's shell found a fault the manager must see: the table pauses until a resume.

    `journal_unwritable`: the journal failed a write and has just taken writes again; `detail`
    says what failed, for how long, and how many inputs were refused meanwhile.
    `clock_step`: the wall clock stepped against the monotonic one beyond the bound.
    `clock_unsynchronised`: the kernel reports the clock unsynchronised (no time daemon).
    """

    kind: Literal["alarm_raised"] = "alarm_raised"
    cause: AlarmCause
    detail: str = ""


class IntegrityChecked(_Input):
    """The table hashed its installed software and configuration against its manifest.

    `why` is "start", "command" (a shift manager asked) or "schedule" (every 24 hours);
    `manifest` the SHA-256 of the manifest file; `hashes` every file's SHA-256 as found now
    (package-relative path, and `config:` + the configuration's path); `differences` one line
    per file that is changed, missing or not in the manifest (empty: everything matched).
    """

    kind: Literal["integrity_checked"] = "integrity_checked"
    why: Literal["start", "command", "schedule"]
    manifest: str
    hashes: dict[str, str]
    differences: list[str] = Field(default_factory=list)


class Restarted(_Input):
    """The runtime recovered from its journal and restarted; a round in progress gets paused."""

    kind: Literal["restarted"] = "restarted"


Input = Annotated[
    CardDrawn
    | CardSeen
    | DeviceStatus
    | Command
    | Tick
    | Restarted
    | AlarmRaised
    | IntegrityChecked,
    Field(discriminator="kind"),
]
"""Any input, told apart by its `kind`."""

INPUT_TYPES: tuple[type[BaseModel], ...] = (
    CardDrawn,
    CardSeen,
    DeviceStatus,
    Command,
    Tick,
    Restarted,
    AlarmRaised,
    IntegrityChecked,
)
"""Every input model, in schema order."""

AnyInput = (
    CardDrawn
    | CardSeen
    | DeviceStatus
    | Command
    | Tick
    | Restarted
    | AlarmRaised
    | IntegrityChecked
)
"""The union `Input` discriminates, for annotations."""

_ADAPTER: TypeAdapter[AnyInput] = TypeAdapter(Input)


def parse_input(data: str | bytes) -> AnyInput:
    """Read one input from its JSON form.

    Raises `InputError` with one line naming the problem for malformed JSON, an unknown `kind`,
    an unknown or missing field, or a bad value (a card code, a naive timestamp).
    """
    try:
        return _ADAPTER.validate_json(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "input"
        raise InputError(
            f"bad input at {where}: {first['msg']} ({err.error_count()} error(s))"
        ) from err
