"""The archive's hash chain per table, without I/O.

The stream carries each event's envelope JSON but not the journal's record hashes (the journal
chains inputs too, which never leave the table). The archive therefore keeps its own chain over
what it stored: `link(prev, payload)` is the SHA-256 hex of `prev`, a newline and the payload
bytes; the first event of a table links to `ARCHIVE_GENESIS`. A row edited, inserted or deleted
in the database breaks every later link, which `studio.archive.store.verify_table` finds. The
table's signed checkpoints carry this chain's value at their last event (`events_head`), so the
archive holds each one to what it stored.
"""

from __future__ import annotations

from studio.journal.chain import EVENTS_GENESIS, event_link

ARCHIVE_GENESIS = EVENTS_GENESIS
"""The `prev` of a table's first archived event."""

link = event_link
"""The hash of an event whose JSON is `payload`, chained after `prev` (the journal's checkpoints
sign the same chain's value, so the archive can hold them to what it stored)."""
