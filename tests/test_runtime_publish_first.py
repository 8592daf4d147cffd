"""Events sent as soon as their input is durable, before they are stored, and the publisher's order.

Earlier versions journalled each input durably, applied it, sent its events (the public stream
first) and only then stored them (`journal_support.TwoCommitTable`; `studio run` now writes an
input and its events in one transaction before sending, `tests/test_journal_step.py`). Nothing
may be lost by that order, and a journal it wrote must still recover: each stream keeps its own
sequence, an event sent but not yet stored is what recovery rebuilds, and the replay service
waits for events it has not seen stored rather than end short of them.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest
import zmq
from journal_support import TwoCommitTable
from test_bus_support import Keys, keys_fixture, mixed_events, no_leaks  # noqa: F401
from test_controller_kit import T0

from studio.bus import EventPublisher
from studio.bus.security import secure_client
from studio.bus.wire import encode_event, parse_frames
from studio.controller import TableController, TableSettings
from studio.errors import InputError
from studio.journal import Journal, RecordedTable, recover
from studio.journal.recorder import bind_settings, event_json
from studio.messages import Command, Envelope, Tick
from studio.runtime import source as source_module
from studio.runtime.source import JournalSource


async def _frames(sock: zmq.Socket[bytes], count: int, timeout: float = 5.0) -> list[list[bytes]]:
    # The loop keeps running while the test waits: it serves the publisher's sockets.
    got: list[list[bytes]] = []
    deadline = time.monotonic() + timeout
    while len(got) < count and time.monotonic() < deadline:
        try:
            frames = sock.recv_multipart(zmq.NOBLOCK)
        except zmq.Again:
            await asyncio.sleep(0.005)
            continue
        if parse_frames(frames).event is not None:
            got.append(frames)
    return got


def test_publish_all_keeps_each_streams_order_and_positions(keys: Keys) -> None:
    async def main() -> None:
        ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
        pub = EventPublisher(
            "T1",
            public_endpoint="tcp://127.0.0.1:0",
            restricted_endpoint="tcp://127.0.0.1:0",
            security=keys.security,
            loop=asyncio.get_running_loop(),
        )
        public = ctx.socket(zmq.SUB)
        restricted = ctx.socket(zmq.SUB)
        try:
            secure_client(restricted, keys.clients["settlement"], keys.server.public)
            for sock, name in ((public, "public"), (restricted, "restricted")):
                sock.setsockopt(zmq.LINGER, 0)
                sock.setsockopt(zmq.SUBSCRIBE, b"T1.")
                sock.connect(pub.endpoints[name])  # type: ignore[index]
            await asyncio.sleep(0.3)  # the subscriptions reach the publisher
            batch = [Envelope.model_validate(e) for e in mixed_events("T1", 6)]
            pub.publish_all([encode_event(e, event_json(e)) for e in batch])
            assert pub.last_seq == 6
            seen = [parse_frames(f) for f in await _frames(public, 4)]
            assert [(m.event.seq, m.position) for m in seen if m.event] == [
                (1, 0),
                (2, 1),
                (4, 2),
                (5, 4),
            ]
            told = [parse_frames(f) for f in await _frames(restricted, 6)]
            assert [(m.event.seq, m.position) for m in told if m.event] == [
                (s, s - 1) for s in range(1, 7)
            ]
            # One bad event refuses the whole batch before anything is sent.
            good = Envelope.model_validate(mixed_events("T1", 7)[-1])
            stranger = Envelope.model_validate(mixed_events("T2", 8)[-1])
            with pytest.raises(InputError):
                pub.publish_all([encode_event(e, event_json(e)) for e in (good, stranger)])
            assert pub.last_seq == 6
            with pytest.raises(InputError, match="published already"):
                pub.publish_all([encode_event(batch[0], event_json(batch[0]))])
        finally:
            public.close()
            restricted.close()
            pub.close()
            ctx.term()

    asyncio.run(main())


def test_events_applied_but_not_stored_are_what_recovery_stores(tmp_path: Path) -> None:
    settings = TableSettings(game="caribbean-stud")
    path = tmp_path / "t.journal"
    with Journal(path) as journal:
        bind_settings(journal, settings)
        table = TwoCommitTable(journal, TableController(settings))
        table.record(Tick(ts=T0))
        opened = table.apply(Command(ts=T0, actor="d1", role="dealer", command="start_round"))
        assert opened and journal.last_event_seq < opened[-1].envelope.seq
        # The process dies here: the events went out on the streams but were never stored.
    with Journal(path) as journal:
        rebuilt = TableController(settings)
        report = recover(journal, rebuilt, T0)
        assert report.restored == len(opened)
        stored = [r.body for r in journal.events_from(opened[0].envelope.seq)]
        assert stored[: len(opened)] == [event.body for event in opened]


def test_a_step_journals_what_the_two_commits_of_earlier_versions_did(tmp_path: Path) -> None:
    settings = TableSettings(game="ultimate-holdem")
    inputs = [Tick(ts=T0), Command(ts=T0, actor="d1", role="dealer", command="start_round")]
    texts = []
    for name, stepped in (("a", False), ("b", True)):
        with Journal(tmp_path / f"{name}.journal") as journal:
            bind_settings(journal, settings)
            controller = TableController(settings)
            table, old = RecordedTable(journal, controller), TwoCommitTable(journal, controller)
            for inp in inputs:
                if stepped:
                    table.step(inp)
                else:
                    old.store(old.apply(inp))
            texts.append([(r.kind, r.body, r.hash) for r in journal.records()])
    assert texts[0] == texts[1] and len(texts[0]) > len(inputs)


def test_replay_source_waits_for_published_events_to_be_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "j.journal"
    events = mixed_events("T1", 4)
    with Journal(path) as journal:
        journal.append_input({"kind": "tick", "ts": "2026-01-01T00:00:00Z"})
        journal.append_events(events[:2])

    def store_later() -> None:
        # The runtime's writer: the streams carry 3 and 4 already, the journal a moment later.
        with Journal(path) as writer:
            time.sleep(0.2)
            writer.append_input({"kind": "tick", "ts": "2026-01-01T00:00:01Z"})
            writer.append_events(events[2:])

    with JournalSource(path, dict, lambda: 4) as source:
        writer = threading.Thread(target=store_later)
        writer.start()
        try:
            seqs = [int(b.split('"seq":')[1].split(",")[0]) for b in source.events_from(2)]
        finally:
            writer.join()
        assert seqs == [2, 3, 4]
        # Asked beyond what was published: no waiting, nothing more.
        assert list(source.events_from(5)) == []
    # Published events that never get stored (the table's journal failed): the request answers
    # with what is stored once the wait runs out, rather than hang.
    monkeypatch.setattr(source_module, "STORE_WAIT", 0.05)
    with JournalSource(path, dict, lambda: 9) as source:
        assert len(list(source.events_from(1))) == 4
