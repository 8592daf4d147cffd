"""The streams' wire format, without I/O: how an event or a heartbeat becomes frames and back.

Every stream message has three frames:

1. the topic, `<table>.<type>` in UTF-8 (`<table>.heartbeat` for a heartbeat);
2. the payload, UTF-8 JSON: the event's envelope, or for a heartbeat
   `{"table": ..., "last_seq": N, "ts": "<ISO 8601 UTC>"}`;
3. the stream position, ASCII decimal: for an event, the `seq` of the event this stream carried
   before it for the same table (0 if none: the public stream skips restricted events, so its
   sequence numbers have holes that are not losses); for a heartbeat, the last `seq` it carried.

A subscriber that has delivered up to `seq` L and receives an event whose position is not L, or a
heartbeat whose position is above L, has missed something and asks the replay service.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol, runtime_checkable

from studio.errors import InputError

HEARTBEAT = "heartbeat"
"""The type part of a heartbeat's topic; no event type is called that."""

TABLE_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""Table ids the bus accepts: no dot, so `<table>.` is an unambiguous topic prefix."""

ENVELOPE_FIELDS = frozenset(
    {"table", "seq", "game_number", "ts", "audience", "type", "body", "schema_version"}
)
"""The envelope's fields (see `studio.messages.Envelope`)."""


@runtime_checkable
class JsonModel(Protocol):
    """A pydantic model such as `studio.messages.Envelope`: anything that dumps itself to JSON."""

    def model_dump_json(self) -> str:
        """The model as JSON text."""
        ...


EnvelopeLike = Mapping[str, Any] | JsonModel | str | bytes
"""What the bus accepts as an event: an `Envelope`, a dict of its fields, or its JSON."""


@dataclass(frozen=True)
class WireEvent:
    """One event decoded from the wire or a replay: its envelope fields plus the raw JSON."""

    envelope: dict[str, Any]
    payload: bytes

    @property
    def table(self) -> str:
        """The table the event belongs to."""
        return str(self.envelope["table"])

    @property
    def seq(self) -> int:
        """The event's gapless sequence number within its table."""
        return int(self.envelope["seq"])

    @property
    def audience(self) -> str:
        """Either public or restricted."""
        return str(self.envelope["audience"])

    @property
    def type(self) -> str:
        """The event's type, e.g. "card_dealt"."""
        return str(self.envelope["type"])


def topic_prefix(table: str) -> bytes:
    """The subscription prefix that selects every message of `table` and nothing else."""
    return f"{table}.".encode()


def check_table(table: str) -> str:
    """Return `table` if the bus can carry it; raises InputError otherwise."""
    if not TABLE_PATTERN.match(table):
        raise InputError(f"table id {table!r} must be 1-64 letters, digits, '_' or '-'")
    return table


def to_event(item: EnvelopeLike) -> WireEvent:
    """Decode and check one envelope given in any accepted form.

    Raises InputError when it is not JSON, lacks or adds envelope fields, or has a bad table,
    sequence number or audience.
    """
    try:
        if isinstance(item, JsonModel):
            payload = item.model_dump_json().encode()
        elif isinstance(item, str | bytes):
            payload = item.encode() if isinstance(item, str) else bytes(item)
        else:
            payload = json.dumps(dict(item), separators=(",", ":"), ensure_ascii=False).encode()
        data = json.loads(payload)
    except (TypeError, ValueError) as err:
        raise InputError(f"not an envelope: {err}") from err
    if not isinstance(data, dict) or set(data) != ENVELOPE_FIELDS:
        raise InputError(f"an envelope has exactly the fields {sorted(ENVELOPE_FIELDS)}")
    seq, table, audience = data["seq"], data["table"], data["audience"]
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        raise InputError(f"an envelope's seq must be a positive integer, not {seq!r}")
    if not isinstance(table, str) or not TABLE_PATTERN.match(table):
        raise InputError(f"an envelope's table {table!r} cannot be a topic")
    if audience not in ("public", "restricted"):
        raise InputError(f"an envelope's audience must be public or restricted, not {audience!r}")
    if not isinstance(data["type"], str) or not data["type"] or data["type"] == HEARTBEAT:
        raise InputError(f"an envelope's type {data['type']!r} cannot be a topic")
    return WireEvent(data, payload)


def event_frames(event: WireEvent, previous: int) -> list[bytes]:
    """The three frames of `event`, after the stream's event `previous` of the same table."""
    return [f"{event.table}.{event.type}".encode(), event.payload, str(previous).encode()]


def heartbeat_frames(table: str, last_seq: int, now: datetime | None = None) -> list[bytes]:
    """The three frames of a heartbeat saying the stream's last event for `table` was `last_seq`."""
    stamp = (now or datetime.now(UTC)).isoformat().replace("+00:00", "Z")
    body = {"table": table, "last_seq": last_seq, "ts": stamp}
    payload = json.dumps(body, separators=(",", ":")).encode()
    return [f"{table}.{HEARTBEAT}".encode(), payload, str(last_seq).encode()]


@dataclass(frozen=True)
class StreamMessage:
    """A decoded stream message: an event (with its position) or a heartbeat (event is None)."""

    table: str
    position: int
    event: WireEvent | None


def parse_frames(frames: list[bytes]) -> StreamMessage:
    """Decode the three frames of a stream message; raises InputError when they are malformed."""
    if len(frames) != 3:
        raise InputError(f"a stream message has 3 frames, not {len(frames)}")
    topic, payload, position_text = frames
    try:
        table, _, kind = topic.decode().partition(".")
        position = int(position_text.decode("ascii"))
    except (UnicodeDecodeError, ValueError) as err:
        raise InputError(f"malformed stream message: {err}") from err
    if kind == HEARTBEAT:
        return StreamMessage(table, position, None)
    event = to_event(payload)
    if event.table != table or event.type != kind:
        raise InputError(f"topic {topic!r} does not match the envelope it carries")
    return StreamMessage(table, position, event)
