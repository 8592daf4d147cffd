"""`JournalSource`: the replay service's `EventSource` over the table's own journal.

The replay service calls it from its own thread, so it opens its own read-only connection to
the journal file (a SQLite connection belongs to the thread that made it) while the runtime
appends through another; WAL mode lets the reader see every committed event without blocking
the writer. Events are read by sequence number through the journal's `(kind, seq)` index.

A request is answered from what is stored, at once: the runtime stores an input with its events
in one transaction (`RecordedTable.step`) and sends them only after that commit returns (from
the same thread, `TableRuntime._applied`), and a reader's next transaction sees every committed
one, so every event a subscriber saw on a stream is already in the journal when it asks.
(Earlier versions sent an input's events before their second commit stored them, and a request
then had to wait for them; tests/test_runtime_publish_first.py holds the stream and the replay
service consistent without that wait.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from os import PathLike
from typing import Any

from studio.closing import Closing
from studio.journal import Journal
from studio.messages.view import TableView


class JournalSource(Closing):
    """Stored events by sequence number, and the runtime's latest `TableView`.

    `view` is called from the replay service's thread; it must return a view that the runtime
    no longer changes (views are frozen; the runtime swaps in a new one after every input).
    Context manager; `close()` is idempotent. Raises `JournalError` when the file is not a
    journal.
    """

    def __init__(self, path: str | PathLike[str], view: Callable[[], TableView]) -> None:
        self._journal = Journal(path, readonly=True)
        self._view = view

    def events_from(self, seq: int) -> Iterator[bytes]:
        """Every stored event's envelope JSON (UTF-8) from sequence number `seq` on, in order.

        Bytes, which the replay service sends as they are (text it would re-encode from the
        model): a replayed event is byte for byte the journal's, as the live one is.
        """
        for record in self._journal.events_from(seq):
            yield record.body.encode()

    def snapshot(self) -> Mapping[str, Any]:
        """The table now (restricted `TableView` as JSON), as the runtime last saw it."""
        return self._view().model_dump(mode="json")

    def public_snapshot(self) -> Mapping[str, Any]:
        """The table now as anyone may see it (`TableView.public()` as JSON)."""
        return self._view().public().model_dump(mode="json")

    def close(self) -> None:
        """Close the read-only connection; calling it again does nothing."""
        self._journal.close()
