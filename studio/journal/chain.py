"""The journal's hash chain: canonical serialisation of a record and the hash that links it.

A record is one input or one event. Its canonical form is the JSON object
`{"batch": BATCH, "body": BODY, "cause": CAUSE, "game_number": GAME, "id": ID, "kind": KIND,
"prev": PREV, "seq": SEQ}` with sorted keys, no whitespace and UTF-8 text, where BODY is itself
canonical JSON (sorted keys, no whitespace): every stored column but the hash itself. Its hash is
the SHA-256 of that text, in lowercase hex; PREV is the hash of the record before it. The first
record's PREV is `genesis(settings)`, a hash of the journal's format and its stored table
settings (`GENESIS` when it has none), so the settings are covered by the chain too. One chain
runs across inputs and events in the order they happened, so editing, inserting or deleting any
record breaks the chain at or right after that record.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, NamedTuple

RecordKind = Literal["input", "event"]

FORMAT = "studio-journal/2"
"""The value of `meta.format` in every journal this code writes (and the only one it reads).

Version 2 added the `cause` and `batch` columns and hashes every column and the settings;
version 1 files are refused.
"""

GENESIS = "0" * 64
"""The `prev` hash of the first record of a journal without settings, and the empty head."""


def genesis(settings: str | None) -> str:
    """The `prev` hash of a journal's first record: it binds the chain to the stored settings.

    `settings` is the `meta.settings` text exactly as stored, or None (then `GENESIS`).
    """
    if settings is None:
        return GENESIS
    text = canonical_json({"format": FORMAT, "settings": settings})
    return hashlib.sha256(text.encode()).hexdigest()


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
"""`canonical_json`'s encoder, made once (`json.dumps` with options makes one at every call)."""

canonical_json: Callable[[Mapping[str, Any]], str] = _CANONICAL.encode
"""Return `data` as canonical JSON text: sorted keys, no whitespace, non-ASCII kept as is.

The encoder's own method, with no function around it: three records per card are encoded.
Raises TypeError when `data` holds a value JSON cannot represent.
"""


_json_text = json.encoder.encode_basestring
"""A string as `_CANONICAL` writes it (non-ASCII kept), without the encoder's own call."""

_make_encoder = getattr(json.encoder, "c_make_encoder", None)
canonical_parts: Callable[[Any, int], Sequence[str]] | None = (
    _make_encoder(
        None,  # no markers: the table's own values hold no cycles
        _CANONICAL.default,
        _json_text,
        None,
        _CANONICAL.key_separator,
        _CANONICAL.item_separator,
        True,
        False,
        True,
    )
    if _make_encoder is not None
    else None
)
"""`canonical_json`'s encoder itself, made once: `"".join(canonical_parts(data, 0))` is
`canonical_json(data)` for data without cycles, and TypeError or ValueError where it raises.

`JSONEncoder.encode` makes this C encoder anew at every call, through two Python calls: the
table writes three texts per card before its commit, where each Python call costs several times
its warm figure. None where the interpreter has no C encoder (use `canonical_json` then).
"""


def record_hash(
    record_id: int,
    kind: RecordKind,
    seq: int,
    prev: str,
    body: str,
    *,
    game_number: str | None = None,
    cause: int | None = None,
    batch: int | None = None,
) -> str:
    """The SHA-256 hex digest of a record's canonical form; `body` must be canonical JSON text.

    The canonical form is built by concatenation rather than by re-serialising `body`, which is
    the same text (keys in sorted order) at a fraction of the cost on the append path.
    """
    # Every part inline (an append hashes three records per card): `int()` keeps a bool or an
    # int subclass written as the number it is.
    game = "null" if game_number is None else _json_text(game_number)
    batch_text = "null" if batch is None else str(int(batch))
    cause_text = "null" if cause is None else str(int(cause))
    text = (
        f'{{"batch":{batch_text},"body":{body},"cause":{cause_text},'
        f'"game_number":{game},"id":{record_id},"kind":"{kind}","prev":"{prev}","seq":{seq}}}'
    ).encode()
    return hashlib.sha256(text).hexdigest()


class Record(NamedTuple):
    """One stored record of the chain.

    `id` numbers every record from 1 without gaps; `seq` numbers inputs (1, 2, ...) and events
    (their envelope's `seq`) separately, each without gaps. `game_number` is the event's game
    number (None for inputs and for events outside a round). For an event, `cause` is the number
    (`seq`) of the input that caused it and `batch` how many events that input caused; both are
    None for inputs. `body` is canonical JSON. A named tuple: an append makes three per card,
    where a frozen dataclass set each of its nine fields through `object.__setattr__`.
    """

    id: int
    kind: RecordKind
    seq: int
    game_number: str | None
    cause: int | None
    batch: int | None
    body: str
    prev: str
    hash: str

    def data(self) -> dict[str, Any]:
        """The record's body parsed back into JSON values."""
        parsed: dict[str, Any] = json.loads(self.body)
        return parsed

    def digest(self) -> str:
        """The hash this record's columns should have (compare it with `hash`)."""
        return record_hash(
            self.id,
            self.kind,
            self.seq,
            self.prev,
            self.body,
            game_number=self.game_number,
            cause=self.cause,
            batch=self.batch,
        )

    def label(self) -> str:
        """A short human name for the record, such as `record 17 (event 9)`."""
        return f"record {self.id} ({self.kind} {self.seq})"


EVENTS_GENESIS = "0" * 64
"""The `prev` of a table's first event in the events-only chain (`event_link`)."""


def event_link(prev: str, payload: bytes) -> str:
    """The events-only chain: SHA-256 hex of `prev`, a newline and an event's JSON `payload`.

    Unlike the journal's chain it covers the events alone, in sequence order, as the restricted
    stream carries them: a consumer that stored every event (the archive) computes the same
    value, so a signed checkpoint (`studio.journal.anchors`) can be held to what it stored.
    """
    return hashlib.sha256(prev.encode() + b"\n" + payload).hexdigest()
