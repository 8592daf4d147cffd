"""`JournalSource`: the replay service's `EventSource` over the table's own journal.

The replay service calls it from its own thread, so it opens its own read-only connection to
the journal file (a SQLite connection belongs to the thread that made it) while the runtime
appends through another; WAL mode lets the reader see every committed event without blocking
the writer. Events are read by sequence number through the journal's `(kind, seq)` index.

The runtime stores an input's events with the input, before it sends them
(`RecordedTable.step`). A shell that sent events before storing them (earlier versions did: the
input in one commit, its events in a second) left a moment in which the streams carried an event
the journal did not hold yet; a subscriber that saw it and asks for what it missed must not be
told the journal ends short of it, so a request waits (up to `STORE_WAIT` seconds) until every
event published when it came in is stored.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from os import PathLike
from typing import Any

from studio.closing import Closing
from studio.journal import Journal
from studio.messages.view import TableView

STORE_WAIT = 1.0
"""Seconds a replay request waits for published events to be stored: the runtime stores them
within a fraction of a millisecond unless its journal has failed (then the table is stopping)."""
_STORE_POLL = 0.0005


class JournalSource(Closing):
    """Stored events by sequence number, and the runtime's latest `TableView`.

    `view` is called from the replay service's thread; it must return a view that the runtime
    no longer changes (views are frozen; the runtime swaps in a new one after every input).
    `published` returns the last sequence number the streams carried (see the module docstring;
    None: only what is stored counts). Context manager; `close()` is idempotent. Raises
    `JournalError` when the file is not a journal.
    """

    def __init__(
        self,
        path: str | PathLike[str],
        view: Callable[[], TableView],
        published: Callable[[], int] | None = None,
    ) -> None:
        self._journal = Journal(path, readonly=True)
        self._view = view
        self._published = published

    def events_from(self, seq: int) -> Iterator[str]:
        """Every stored event's envelope JSON from sequence number `seq` on, in order.

        Waits for events already published but not yet stored (see the module docstring).
        """
        target = self._published() if self._published is not None else 0
        deadline = time.monotonic() + STORE_WAIT
        following = seq
        while True:
            for record in self._journal.events_from(following):
                yield record.body
                following = record.seq + 1
            if following > target or time.monotonic() >= deadline:
                return
            time.sleep(_STORE_POLL)

    def snapshot(self) -> Mapping[str, Any]:
        """The table now (restricted `TableView` as JSON), as the runtime last saw it."""
        return self._view().model_dump(mode="json")

    def public_snapshot(self) -> Mapping[str, Any]:
        """The table now as anyone may see it (`TableView.public()` as JSON)."""
        return self._view().public().model_dump(mode="json")

    def close(self) -> None:
        """Close the read-only connection; calling it again does nothing."""
        self._journal.close()
