"""Notices: what the restricted stream carries beside the events, outside the journal.

An event is on record before any stream carries it and has its place in the gapless sequence.
A notice has neither: it says something the journal cannot hold, or holds only later.

- `JournalAlarm`: the journal cannot be written (so this alarm is not journalled: `journalled`
  is always False), or can be again. The table refuses every input meanwhile; once the journal
  takes writes again, the fault is journalled as an `AlarmRaised` input and pauses the table.
- `IntegrityReport`: a software and configuration check's outcome (the `IntegrityChecked`
  input it journalled holds every hash).
- `Checkpoint`: the journal's chain head, record count and time, signed with the table's
  Ed25519 key (`studio.journal.anchors`). A consumer that keeps checkpoints can later prove
  that records were cut off the end of the journal, which the chain alone cannot show.

Topic `<table>.notice`; the third frame is the last event `seq` the stream carried, as for a
heartbeat (see `studio.bus.wire`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from studio.errors import InputError


class _Notice(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str = Field(min_length=1)
    ts: AwareDatetime


class JournalAlarm(_Notice):
    """The journal failed a write (`state` "unwritable") or takes writes again ("writable").

    `detail` says what failed; `since` is when the fault began; `refused` counts the inputs
    refused meanwhile (cards the shoe keeps and sends again, commands answered with an error).
    """

    kind: Literal["journal_alarm"] = "journal_alarm"
    state: Literal["unwritable", "writable"]
    detail: str
    since: AwareDatetime
    refused: int = Field(ge=0)
    journalled: Literal[False] = False


class Checkpoint(_Notice):
    """A signed statement of the journal's end: `records` records, the last one hashing to `head`.

    `last_seq` is the last event's sequence number and `events_head` the events-only chain's
    value there (`studio.journal.chain.event_link` over every event's JSON in sequence order:
    what a consumer that stored every event computes too); `reason` is "round_end" or
    "interval".
    `key` is the table's Ed25519 public key (hex) and `signature` (hex) signs
    `Checkpoint.signed_text()` (see `studio.journal.anchors`).
    """

    kind: Literal["checkpoint"] = "checkpoint"
    records: int = Field(ge=0)
    head: str = Field(pattern=r"^[0-9a-f]{64}$")
    last_seq: int = Field(ge=0)
    events_head: str = Field(pattern=r"^[0-9a-f]{64}$")
    reason: Literal["round_end", "interval"]
    key: str = Field(pattern=r"^[0-9a-f]{64}$")
    signature: str = Field(pattern=r"^[0-9a-f]{128}$")

    def signed_text(self) -> bytes:
        """The bytes the signature covers: every field but the signature, in a fixed order."""
        stamp = self.ts.isoformat()
        return (
            f"studio-checkpoint/1|{self.table}|{self.records}|{self.head}|{self.last_seq}|"
            f"{self.events_head}|{self.reason}|{stamp}|{self.key}"
        ).encode()


class IntegrityReport(_Notice):
    """The outcome of a software and configuration check (the hashes are journalled with it).

    `why`, `manifest` (the manifest file's SHA-256) and `differences` are those of the
    journalled `IntegrityChecked` input; `digest` is the SHA-256 over every file's path and
    hash in path order, `files` how many were hashed.
    """

    kind: Literal["integrity_report"] = "integrity_report"
    why: Literal["start", "command", "schedule"]
    manifest: str
    digest: str
    files: int = Field(ge=0)
    differences: list[str]
    journalled: Literal[True] = True


Notice = Annotated[JournalAlarm | Checkpoint | IntegrityReport, Field(discriminator="kind")]
"""Any notice, told apart by its `kind`."""

AnyNotice = JournalAlarm | Checkpoint | IntegrityReport
"""The union `Notice` discriminates, for annotations."""

_ADAPTER: TypeAdapter[AnyNotice] = TypeAdapter(Notice)


def parse_notice(data: str | bytes) -> AnyNotice:
    """Read one notice from its JSON form; raises `InputError` in one line when it is not one."""
    try:
        return _ADAPTER.validate_json(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "notice"
        raise InputError(f"bad notice at {where}: {first['msg']}") from err
