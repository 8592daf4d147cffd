"""Journals for tests: a journal event of the table's shape, and one written the old way.

`journal_event` is a stored event as the table writes one (a `deck_changed`, with the body
given), for tests that fill a journal without a controller.

A journal written the way earlier versions wrote it: two commits per input.

Every table now writes an input with its events in one transaction (`RecordedTable.step`).
Earlier versions committed the input durably, applied it, and stored its events in a second
commit, so a journal they wrote may end in an input whose events a crash kept from being stored.
Recovery must still restore exactly the same history from such a journal: `TwoCommitTable`
writes one (and, with `apply` alone, the crash in the middle) for the tests that prove it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from studio.journal import Journal
from studio.journal.recorder import Controller, StoredEvent, event_json
from studio.messages import Input


def journal_event(seq: int, body: dict[str, object] | None = None) -> dict[str, object]:
    """Table T01's public `deck_changed` event number `seq`, between rounds, carrying `body`."""
    return {
        "table": "T01",
        "seq": seq,
        "game_number": None,
        "ts": datetime(2026, 1, 1, tzinfo=UTC).isoformat(),
        "audience": "public",
        "type": "deck_changed",
        "body": body or {},
        "schema_version": 1,
    }


class TwoCommitTable:
    """A controller behind a journal, written input first and events in a second commit."""

    def __init__(self, journal: Journal, controller: Controller) -> None:
        self.journal = journal
        self.controller = controller

    def apply(self, inp: Input) -> list[StoredEvent]:
        """Journal `inp` durably, apply it, return its events (not stored yet: see `store`)."""
        self.journal.append_input(inp.model_dump(mode="json"))
        return [StoredEvent(e, event_json(e)) for e in self.controller.handle(inp)]

    def store(self, events: Sequence[StoredEvent]) -> None:
        """Store the events `apply` returned, in one transaction, as the texts it made."""
        self.journal.append_events(
            [{"seq": e.envelope.seq, "game_number": e.envelope.game_number} for e in events],
            bodies=[e.body for e in events],
        )

    def record(self, inp: Input) -> list[StoredEvent]:
        """`apply` then `store`: one input as an earlier version journalled it."""
        events = self.apply(inp)
        self.store(events)
        return events
