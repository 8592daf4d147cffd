"""The publisher's order, journals of the two-commit writer, and the replay service's consistency.

Earlier versions journalled each input durably, applied it, sent its events (the public stream
first) and only then stored them (`journal_support.TwoCommitTable`; `studio run` now writes an
input and its events in one transaction before sending, `tests/test_journal_step.py`). A journal
that order wrote must still recover: an event sent but not yet stored is what recovery rebuilds.
Each stream keeps its own sequence. And since events are now stored before they are sent, the
replay service answers from the journal at once: every event a subscriber sees is already there.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import zmq
from journal_support import TwoCommitTable
from test_bus_support import Keys, keys_fixture, mixed_events, no_leaks  # noqa: F401
from test_controller_kit import T0

from studio.bus import EventPublisher, ReplayClient, ReplayService
from studio.bus.security import secure_client
from studio.bus.wire import encode_event, parse_frames
from studio.controller import TableController, TableSettings
from studio.errors import InputError
from studio.journal import Journal, RecordedTable, recover
from studio.journal.recorder import StoredEvent, bind_settings, event_json
from studio.messages import Command, Envelope, Input, Tick
from studio.runtime.source import JournalSource
from studio.simulation import FaultRates, SimulatedClock, SimulatedTable
from studio.simulation.table import card_faces

Sub = zmq.Socket[bytes]


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


@contextlib.asynccontextmanager
async def _streams(keys: Keys) -> AsyncIterator[tuple[EventPublisher, Sub, Sub]]:
    """A publisher of table T1 on this loop, and a subscriber to each of its streams."""
    ctx: zmq.Context[Sub] = zmq.Context()
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
        yield pub, public, restricted
    finally:
        public.close()
        restricted.close()
        pub.close()
        ctx.term()


async def _told_in_order(public: Sub, restricted: Sub) -> list[bytes]:
    """Assert `mixed_events`' six events arrived on each stream in order after its previous
    event (seq 3 and 6 are restricted); return the restricted stream's payloads."""
    seen = [parse_frames(f) for f in await _frames(public, 4)]
    assert [(m.event.seq, m.position) for m in seen if m.event] == [(1, 0), (2, 1), (4, 2), (5, 4)]
    told = [parse_frames(f) for f in await _frames(restricted, 6)]
    assert [(m.event.seq, m.position) for m in told if m.event] == [(s, s - 1) for s in range(1, 7)]
    return [m.event.payload for m in told if m.event]


def test_publish_all_keeps_each_streams_order_and_positions(keys: Keys) -> None:
    async def main() -> None:
        async with _streams(keys) as (pub, public, restricted):
            batch = [Envelope.model_validate(e) for e in mixed_events("T1", 6)]
            pub.publish_all([encode_event(e, event_json(e)) for e in batch])
            assert pub.last_seq == 6
            await _told_in_order(public, restricted)
            # One bad event refuses the whole batch before anything is sent.
            good = Envelope.model_validate(mixed_events("T1", 7)[-1])
            stranger = Envelope.model_validate(mixed_events("T2", 8)[-1])
            with pytest.raises(InputError):
                pub.publish_all([encode_event(e, event_json(e)) for e in (good, stranger)])
            assert pub.last_seq == 6
            with pytest.raises(InputError, match="published already"):
                pub.publish_all([encode_event(batch[0], event_json(batch[0]))])

    asyncio.run(main())


def test_events_framed_before_their_commit_go_only_when_sent_in_order(keys: Keys) -> None:
    # The runtime frames a card's events while its commit is prepared and sends them once it
    # returns: nothing reaches a subscriber before the send, and a publish in between (which
    # moves the streams' positions) has the framed events made again after it.
    async def main() -> None:
        async with _streams(keys) as (pub, public, restricted):
            events = [Envelope.model_validate(e) for e in mixed_events("T1", 6)]
            wires = [encode_event(e, event_json(e)) for e in events]
            framed = pub.frame(wires[:3])
            assert pub.last_seq == 0
            assert await _frames(public, 1, timeout=0.3) == []  # framed is not sent
            pub.send_framed(framed)
            assert pub.last_seq == 3
            # Framed after seq 3, but seq 4 goes first: seq 5 and 6 follow it, not seq 3.
            later = pub.frame(wires[4:])
            pub.publish_all(wires[3:4])
            pub.send_framed(later)
            # The bytes are the journal's text, as `publish_all` sends them.
            assert await _told_in_order(public, restricted) == [w.payload for w in wires]
            # Framing refuses what publishing refuses, before anything is sent; and events
            # framed twice go once.
            with pytest.raises(InputError, match="published already"):
                pub.frame(wires[:1])
            with pytest.raises(InputError, match="published already"):
                pub.send_framed(later)
            assert pub.last_seq == 6

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


class PublishingTable(RecordedTable):
    """`studio run`'s order: apply, store the input with its events (`step`), then send them."""

    def __init__(
        self, journal: Journal, controller: TableController, publisher: EventPublisher
    ) -> None:
        super().__init__(journal, controller)
        self.view = controller.view
        self.publisher = publisher

    def step(self, inp: Input) -> list[StoredEvent]:
        stored = super().step(inp)
        self.publisher.publish_all([encode_event(event, body) for event, body in stored])
        return stored


def test_every_event_a_subscriber_sees_is_served_at_once_by_the_replay_service(
    keys: Keys, tmp_path: Path
) -> None:
    """The replay service answers from the journal without waiting, and never ends short.

    A writer thread plays rounds (faults included) as fast as it can, storing and then sending
    every input's events; the moment a restricted subscriber gets an event, it asks the replay
    service (its own read-only connection, in its own thread) for the events from that one on:
    the answer must start with that very event, byte for byte, while the writer goes on.
    """
    settings = TableSettings(table="T1", game="caribbean-stud")
    path = tmp_path / "t.journal"
    with Journal(path) as journal:
        bind_settings(journal, settings)
    reader = keys.clients["settlement"]
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    failures: list[BaseException] = []
    stored: list[int] = []  # the writer's last event, once it is done
    with (
        EventPublisher(
            "T1",
            public_endpoint=None,
            restricted_endpoint="tcp://127.0.0.1:0",
            security=keys.security,
            heartbeat_interval=0.2,
        ) as publisher,
        ReplayService(
            "tcp://127.0.0.1:0",
            open_source=lambda: JournalSource(path, TableController(settings).view),
            security=keys.security,
        ) as replay,
        ReplayClient(
            replay.endpoint, client_keys=reader, server_key=keys.server.public, timeout=5.0
        ) as client,
    ):

        def play() -> None:
            try:
                with Journal(path) as journal:
                    table = PublishingTable(journal, TableController(settings), publisher)
                    SimulatedTable(
                        table,
                        table.view,
                        clock=SimulatedClock(T0),
                        seed="consistent",
                        faults=FaultRates(duplicate=0.05, unreadable=0.05, device=0.02),
                        camera=False,
                        faces=card_faces(settings.rules().deals),
                    ).run(4)
                    stored.append(journal.last_event_seq)
            except BaseException as err:  # reported by the test's thread
                failures.append(err)

        stream = ctx.socket(zmq.SUB)
        try:
            stream.setsockopt(zmq.LINGER, 0)
            secure_client(stream, reader, keys.server.public)
            stream.setsockopt(zmq.SUBSCRIBE, b"T1.")
            stream.connect(publisher.endpoints["restricted"])  # type: ignore[index]
            # The welcome heartbeat says the subscription reached the publisher.
            assert stream.poll(5000), "no welcome heartbeat"
            stream.recv_multipart()
            writer = threading.Thread(target=play)
            writer.start()
            seen: list[int] = []
            try:
                # Until the last stored event has come (heartbeats keep the stream busy).
                deadline = time.monotonic() + 120.0
                while not failures and (not stored or (seen[-1:] or [0])[0] < stored[0]):
                    if time.monotonic() > deadline or not stream.poll(50):
                        assert time.monotonic() <= deadline, f"stream stopped after {seen[-1:]}"
                        continue
                    event = parse_frames(stream.recv_multipart()).event
                    if event is None:
                        continue
                    served = next(iter(client.fetch(event.seq, audience="restricted")), None)
                    assert served is not None, f"event {event.seq} seen, not in the journal"
                    assert (served.seq, served.payload) == (event.seq, event.payload)
                    seen.append(event.seq)
            finally:
                writer.join()
        finally:
            stream.close()
            ctx.term()
        assert not failures, failures
        # Every event went out and was checked, in order, while the writer was still writing.
        assert seen == list(range(1, stored[0] + 1)) and stored[0] > 40
