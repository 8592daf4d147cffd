"""The streams' wire format, without I/O: how an event or a heartbeat becomes frames and back.

Every stream message has three frames:

1. the topic, `<table>.<type>` in UTF-8 (`<table>.heartbeat` for a heartbeat, `<table>.notice`
   for a notice);
2. the payload, UTF-8 JSON: the event's envelope, for a heartbeat
   `{"table": ..., "last_seq": N, "ts": "<ISO 8601 UTC>"}`, for a notice a
   `studio.messages.notices` model (restricted stream only: a journal alarm, a checkpoint);
3. the stream position, ASCII decimal: for an event, the `seq` of the event this stream carried
   before it for the same table (0 if none: the public stream skips restricted events, so its
   sequence numbers have holes that are not losses); for a heartbeat or a notice, the last `seq`
   it carried.

A subscriber that has delivered up to `seq` L and receives an event whose position is not L, or a
heartbeat whose position is above L, has missed something and asks the replay service.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from studio.errors import InputError
from studio.messages import Envelope
from studio.messages.notices import AnyNotice, parse_notice

HEARTBEAT = "heartbeat"
"""The type part of a heartbeat's topic; no event type is called that."""

NOTICE = "notice"
"""The type part of a notice's topic (`studio.messages.notices`); no event type is called that."""

TABLE_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""Table ids the bus accepts: no dot, so `<table>.` is an unambiguous topic prefix."""


@dataclass(frozen=True)
class WireEvent:
    """One event with its JSON as carried: decoded from the wire or a replay, or to be sent.

    `payload` must be `envelope` as JSON (`encode_event` makes one from an envelope and its
    canonical JSON, as the journal stored it, so the stream carries the journal's bytes).
    """

    envelope: Envelope
    payload: bytes

    @property
    def table(self) -> str:
        """The table the event belongs to."""
        return self.envelope.table

    @property
    def seq(self) -> int:
        """The event's gapless sequence number within its table."""
        return self.envelope.seq

    @property
    def audience(self) -> str:
        """Either public or restricted."""
        return self.envelope.audience

    @property
    def type(self) -> str:
        """The event's type, e.g. "card_dealt"."""
        return self.envelope.type


EnvelopeLike = Envelope | WireEvent | Mapping[str, Any] | str | bytes
"""What the bus accepts as an event: an `Envelope`, one already encoded (`WireEvent`), a dict of
its fields, or its JSON."""


def encode_event(envelope: Envelope, text: str) -> WireEvent:
    """The `WireEvent` of `envelope` whose JSON `text` was made from it already (no re-encoding).

    The runtime passes the canonical JSON the journal stored for the event, so the envelope is
    serialised once for the journal, its hash and the streams, and a live event's bytes are the
    same as the replay service's for it.
    """
    return WireEvent(envelope, text.encode())


def topic_prefix(table: str) -> bytes:
    """The subscription prefix that selects every message of `table` and nothing else."""
    return f"{table}.".encode()


def check_table(table: str) -> str:
    """Return `table` if the bus can carry it; raises InputError otherwise."""
    if not TABLE_PATTERN.match(table):
        raise InputError(f"table id {table!r} must be 1-64 letters, digits, '_' or '-'")
    return table


def to_event(item: EnvelopeLike) -> WireEvent:
    """Validate one envelope given in any accepted form and fix its JSON form.

    Raises InputError when it is not a valid `studio.messages.Envelope` or its table or type
    cannot be a topic.
    """
    if isinstance(item, WireEvent):
        envelope = item.envelope
        _check_topic(envelope)
        return item
    try:
        if isinstance(item, Envelope):
            envelope = item
        elif isinstance(item, str | bytes):
            envelope = Envelope.model_validate_json(item)
        else:
            envelope = Envelope.model_validate(dict(item))
    except ValidationError as err:
        raise InputError(f"not an envelope: {err.errors()[0]['msg']}") from err
    _check_topic(envelope)
    payload = item if isinstance(item, bytes) else envelope.model_dump_json().encode()
    return WireEvent(envelope, payload)


def _check_topic(envelope: Envelope) -> None:
    if not TABLE_PATTERN.match(envelope.table):
        raise InputError(f"an envelope's table {envelope.table!r} cannot be a topic")
    check_type(envelope)


def check_type(envelope: Envelope) -> None:
    """Raise InputError when `envelope`'s type is one of the bus's own topics (not an event's)."""
    if envelope.type in (HEARTBEAT, NOTICE):
        raise InputError(f"no event may be called {envelope.type}: that topic is the bus's own")


def event_frames(event: WireEvent, previous: int) -> list[bytes]:
    """The three frames of `event`, after the stream's event `previous` of the same table."""
    return [f"{event.table}.{event.type}".encode(), event.payload, str(previous).encode()]


def heartbeat_frames(table: str, last_seq: int, now: datetime | None = None) -> list[bytes]:
    """The three frames of a heartbeat saying the stream's last event for `table` was `last_seq`."""
    stamp = (now or datetime.now(UTC)).isoformat().replace("+00:00", "Z")
    body = {"table": table, "last_seq": last_seq, "ts": stamp}
    payload = json.dumps(body, separators=(",", ":")).encode()
    return [f"{table}.{HEARTBEAT}".encode(), payload, str(last_seq).encode()]


def notice_frames(notice: AnyNotice, last_seq: int) -> list[bytes]:
    """The three frames of `notice`, sent after the stream's event `last_seq`."""
    payload = notice.model_dump_json().encode()
    return [f"{notice.table}.{NOTICE}".encode(), payload, str(last_seq).encode()]


@dataclass(frozen=True)
class StreamMessage:
    """A decoded stream message: an event (with its position), a notice, or a heartbeat.

    A heartbeat has neither `event` nor `notice`.
    """

    table: str
    position: int
    event: WireEvent | None
    notice: AnyNotice | None = None


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
    if kind == NOTICE:
        notice = parse_notice(payload)
        if notice.table != table:
            raise InputError(f"topic {topic!r} does not match the notice it carries")
        return StreamMessage(table, position, None, notice)
    event = to_event(payload)
    if event.table != table or event.type != kind:
        raise InputError(f"topic {topic!r} does not match the envelope it carries")
    return StreamMessage(table, position, event)
