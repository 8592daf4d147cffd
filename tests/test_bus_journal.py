"""The replay service over the real SQLite journal, opened read-only in the service's thread."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from test_bus_support import (  # noqa: F401  (fixtures are used by name)
    Keys,
    drain,
    keys_fixture,
    mixed_events,
    no_leaks,
)

from studio.bus import EventPublisher, ReplayService, ReplayTarget, Subscriber
from studio.journal import Journal


class JournalSource:
    """An EventSource over a journal file: what the runtime gives the replay service."""

    def __init__(self, path: Path) -> None:
        self._journal = Journal(path, readonly=True)

    def events_from(self, seq: int) -> Iterator[str]:
        for record in self._journal.records():
            if record.kind == "event" and record.seq >= seq:
                yield record.body

    def snapshot(self) -> Mapping[str, Any]:
        return {"last_event_seq": self._journal.last_event_seq}

    def public_snapshot(self) -> Mapping[str, Any]:
        return {"last_event_seq": self._journal.last_event_seq}

    def close(self) -> None:
        self._journal.close()


def test_a_late_subscriber_catches_up_from_a_sqlite_journal(keys: Keys, tmp_path: Path) -> None:
    path = tmp_path / "table.journal"
    events = mixed_events("T1", 80)
    with Journal(path) as journal:
        publisher = EventPublisher(
            "T1",
            public_endpoint=None,
            restricted_endpoint="tcp://127.0.0.1:0",
            security=keys.security,
            heartbeat_interval=0.2,
        )
        replay = ReplayService(
            "tcp://127.0.0.1:0", open_source=lambda: JournalSource(path), security=keys.security
        )
        with publisher, replay:

            def emit(event: dict[str, Any]) -> None:
                journal.append_events([event])
                publisher.publish(event)

            for event in events[:50]:
                emit(event)
            with Subscriber(
                publisher.endpoints["restricted"],
                {"T1": ReplayTarget(replay.endpoint, keys.server.public)},
                audience="restricted",
                client_keys=keys.clients["settlement"],
                stream_server_key=keys.server.public,
            ) as sub:
                for event in events[50:]:
                    emit(event)
                assert drain(sub, until=80) == list(range(1, 81))
                assert sub.replayed >= 50
