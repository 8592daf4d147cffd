"""The journal's hash chain: canonical serialisation of a record and the hash that links it.

A record is one input or one event. Its canonical form is the JSON object
`{"body": BODY, "id": ID, "kind": KIND, "prev": PREV, "seq": SEQ}` with sorted keys, no
whitespace and UTF-8 text, where BODY is itself canonical JSON (sorted keys, no whitespace). Its
hash is the SHA-256 of that text, in lowercase hex; PREV is the hash of the record before it
(`GENESIS` for the first). One chain runs across inputs and events in the order they happened,
so editing, inserting or deleting any record breaks the chain at or right after that record.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

RecordKind = Literal["input", "event"]

GENESIS = "0" * 64
"""The `prev` hash of a journal's first record."""


def canonical_json(data: Mapping[str, Any]) -> str:
    """Return `data` as canonical JSON text: sorted keys, no whitespace, non-ASCII kept as is.

    Raises TypeError when `data` holds a value JSON cannot represent.
    """
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def record_hash(record_id: int, kind: RecordKind, seq: int, prev: str, body: str) -> str:
    """The SHA-256 hex digest of a record's canonical form; `body` must be canonical JSON text.

    The canonical form is built by concatenation rather than by re-serialising `body`, which is
    the same text (keys in sorted order) at a fraction of the cost on the append path.
    """
    text = (
        f'{{"body":{body},"id":{record_id},"kind":"{kind}","prev":"{prev}","seq":{seq}}}'
    ).encode()
    return hashlib.sha256(text).hexdigest()


@dataclass(frozen=True, slots=True)
class Record:
    """One stored record of the chain.

    `id` numbers every record from 1 without gaps; `seq` numbers inputs (1, 2, ...) and events
    (their envelope's `seq`) separately, each without gaps. `game_number` is the event's game
    number (None for inputs and for events outside a round). `body` is canonical JSON.
    """

    id: int
    kind: RecordKind
    seq: int
    game_number: str | None
    body: str
    prev: str
    hash: str

    def data(self) -> dict[str, Any]:
        """The record's body parsed back into JSON values."""
        parsed: dict[str, Any] = json.loads(self.body)
        return parsed

    def label(self) -> str:
        """A short human name for the record, such as `record 17 (event 9)`."""
        return f"record {self.id} ({self.kind} {self.seq})"
