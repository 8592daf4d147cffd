"""The archive's hash chain per table, without I/O.

The stream carries each event's envelope JSON but not the journal's record hashes (the journal
chains inputs too, which never leave the table). The archive therefore keeps its own chain over
what it stored: `link(prev, payload)` is the SHA-256 hex of `prev`, a newline and the payload
bytes; the first event of a table links to `ARCHIVE_GENESIS`. A row edited, inserted or deleted
in the database breaks every later link, which `studio.archive.store.verify_table` finds. The
operations issue's signed journal checkpoints will be stored beside this chain and compared with
the journal's own head (the archive keeps the exact payloads, so it can recompute it then).
"""

from __future__ import annotations

import hashlib

ARCHIVE_GENESIS = "0" * 64
"""The `prev` of a table's first archived event."""


def link(prev: str, payload: bytes) -> str:
    """The hash of an event whose JSON is `payload`, chained after `prev`."""
    return hashlib.sha256(prev.encode() + b"\n" + payload).hexdigest()
