"""`JournalSource`: the replay service's `EventSource` over the table's own journal.

The replay service calls it from its own thread, so it opens its own read-only connection to
the journal file (a SQLite connection belongs to the thread that made it) while the runtime
appends through another; WAL mode lets the reader see every committed event without blocking
the writer. Events are read by sequence number through the journal's `(kind, seq)` index.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from os import PathLike
from typing import Any

from studio.closing import Closing
from studio.journal import Journal


class JournalSource(Closing):
    """Stored events by sequence number, and the runtime's latest snapshot.

    `snapshot` is called from the replay service's thread; it must return a mapping that the
    runtime no longer changes (the runtime swaps in a new dict after every input). Context
    manager; `close()` is idempotent. Raises `JournalError` when the file is not a journal.
    """

    def __init__(
        self, path: str | PathLike[str], snapshot: Callable[[], Mapping[str, Any]]
    ) -> None:
        self._journal = Journal(path, readonly=True)
        self._snapshot = snapshot

    def events_from(self, seq: int) -> Iterator[str]:
        """Every stored event's envelope JSON from sequence number `seq` on, in order."""
        for record in self._journal.events_from(seq):
            yield record.body

    def snapshot(self) -> Mapping[str, Any]:
        """The table's current round (restricted view), as the runtime last saw it."""
        return self._snapshot()

    def close(self) -> None:
        """Close the read-only connection; calling it again does nothing."""
        self._journal.close()
