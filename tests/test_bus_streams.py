"""The streams on real loopback sockets: routing, the public guard, late and slow subscribers."""

from __future__ import annotations

import logging
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
import zmq
from test_bus_support import (  # noqa: F401  (fixtures are used by name)
    Keys,
    TableRig,
    drain,
    envelope,
    keys_fixture,
    mixed_events,
    no_leaks,
)

from studio.bus import (
    CommandChannel,
    CommandClient,
    CommandDecision,
    EventPublisher,
    ReplayClient,
    ReplayTarget,
    StreamProxy,
)
from studio.bus.wire import event_frames, heartbeat_frames, parse_frames, to_event
from studio.errors import AudienceError, EndpointInUseError, InputError
from studio.messages import Envelope


def _raw_sub(ctx: zmq.Context[zmq.Socket[bytes]], endpoint: str) -> zmq.Socket[bytes]:
    sock = ctx.socket(zmq.SUB)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.SUBSCRIBE, b"T1.")
    sock.connect(endpoint)
    return sock


def test_public_stream_carries_public_events_only_with_their_positions(keys: Keys) -> None:
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    with TableRig(keys, heartbeat=10.0) as rig:
        sock = _raw_sub(ctx, rig.endpoints["public"])
        try:
            # The welcome heartbeat proves the subscription is in place before anything is sent.
            assert sock.poll(3000)
            assert parse_frames(sock.recv_multipart()).event is None
            for event in mixed_events("T1", 9):
                rig.emit(event)
            got = []
            while len(got) < 6 and sock.poll(2000):
                message = parse_frames(sock.recv_multipart())
                if message.event is not None:
                    got.append((message.event.seq, message.position, message.event.audience))
        finally:
            sock.close()
            ctx.term()
    # Restricted events 3, 6, 9 never appear; each position names the previous public event.
    assert got == [
        (1, 0, "public"),
        (2, 1, "public"),
        (4, 2, "public"),
        (5, 4, "public"),
        (7, 5, "public"),
        (8, 7, "public"),
    ]


def test_restricted_event_offered_to_public_stream_is_refused_and_logged(
    keys: Keys, caplog: pytest.LogCaptureFixture
) -> None:
    with TableRig(keys) as rig:
        secret = envelope("T1", 1, "restricted", "card_dealt")
        with caplog.at_level(logging.ERROR), pytest.raises(AudienceError):
            rig.publisher.publish(secret, streams=("public",))
        assert any("public" in r.message for r in caplog.records)
        # The refused event did not consume its sequence number: it may still go out restricted.
        rig.emit(secret)


def test_publish_refuses_a_repeated_or_foreign_event(keys: Keys) -> None:
    with TableRig(keys) as rig:
        rig.emit(envelope("T1", 1))
        with pytest.raises(InputError):
            rig.publisher.publish(envelope("T1", 1))
        with pytest.raises(InputError):
            rig.publisher.publish(envelope("T2", 2))
        with pytest.raises(InputError):
            rig.publisher.publish({"table": "T1", "seq": 2})


def test_late_subscriber_gets_the_whole_sequence(keys: Keys) -> None:
    events = mixed_events("T1", 60)
    with TableRig(keys) as rig:
        for event in events[:40]:
            rig.emit(event)
        with rig.subscriber("restricted") as late, rig.subscriber("public", "observer") as pub:
            for event in events[40:]:
                rig.emit(event)
            assert drain(late, until=60) == list(range(1, 61))
            assert drain(pub, until=59) == [s for s in range(1, 61) if s % 3]
            assert late.positions == {"T1": 60}


def test_subscriber_too_slow_for_the_high_water_mark_still_gets_everything(keys: Keys) -> None:
    total = 3000
    with TableRig(keys, sndhwm=5) as rig, rig.subscriber("restricted", rcvhwm=5) as slow:
        for event in mixed_events("T1", total):
            rig.emit(event)
        time.sleep(0.3)  # Let the queues overflow before reading anything.
        seqs = drain(slow, until=total, timeout=30)
        replayed = slow.replayed
    assert seqs == list(range(1, total + 1))
    # The stream did drop messages (the point of the test); the replay filled every gap.
    assert replayed > 0


def test_publisher_started_with_wrong_positions_costs_a_replay_not_an_event(keys: Keys) -> None:
    with TableRig(keys) as rig:
        for event in mixed_events("T1", 10):
            rig.emit(event)
        with rig.subscriber("restricted") as sub:
            assert drain(sub, until=10) == list(range(1, 11))
            # A restarted publisher that forgot its positions (0) sends seq 11 "after 0".
            rig.publisher.close()
            rig.publisher = EventPublisher(
                "T1",
                public_endpoint=None,
                restricted_endpoint=rig.endpoints["restricted"],
                security=keys.security,
                heartbeat_interval=0.2,
                last_seq=10,
            )
            for event in mixed_events("T1", 20)[10:]:
                rig.emit(event)
            assert drain(sub, until=20) == list(range(11, 21))


def test_a_second_bind_on_an_ipc_path_is_refused(keys: Keys) -> None:
    with tempfile.TemporaryDirectory(prefix="bus") as folder:
        endpoint = f"ipc://{Path(folder) / 'pub'}"
        with EventPublisher("T1", public_endpoint=endpoint, restricted_endpoint=None) as first:
            with pytest.raises(EndpointInUseError):
                EventPublisher("T1", public_endpoint=endpoint, restricted_endpoint=None)
            # The first still owns the path: a subscriber reaches it.
            ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
            sock = _raw_sub(ctx, endpoint)
            try:
                assert sock.poll(3000)
            finally:
                sock.close()
                ctx.term()
            first.publish(envelope("T1", 1))
        # Once closed, the path can be bound again.
        with EventPublisher("T1", public_endpoint=endpoint, restricted_endpoint=None):
            pass


def test_second_bind_on_a_tcp_port_is_refused(keys: Keys) -> None:
    first = EventPublisher("T1", public_endpoint="tcp://127.0.0.1:0", restricted_endpoint=None)
    with first, pytest.raises(EndpointInUseError):
        EventPublisher("T1", public_endpoint=first.endpoints["public"], restricted_endpoint=None)


def test_wire_frames_round_trip_and_malformed_frames_are_input_errors() -> None:
    event = to_event(Envelope.model_validate(envelope("T1", 7)))
    message = parse_frames(event_frames(event, 5))
    assert message.event is not None
    assert (message.table, message.position, message.event.envelope) == ("T1", 5, event.envelope)
    beat = parse_frames(heartbeat_frames("T1", 9))
    assert (beat.table, beat.position, beat.event) == ("T1", 9, None)
    for junk in (
        [b"T1.card_dealt"],
        [b"T1.card_dealt", b"{", b"1"],
        [b"T1.card_dealt", event.payload, b"x"],
        [b"T2.card_dealt", event.payload, b"1"],
        [b"\xff", b"", b""],
    ):
        with pytest.raises(InputError):
            parse_frames(junk)
    with pytest.raises(InputError):
        to_event(envelope("T.1", 1))
    with pytest.raises(InputError):
        to_event(envelope("T1", 1, type_="heartbeat"))


def test_every_socket_owner_closes_twice_without_harm(keys: Keys) -> None:
    with TableRig(keys) as rig:
        owners: list[Any] = [
            rig.subscriber("restricted"),
            ReplayClient(rig.replay.endpoint),
            CommandChannel("tcp://127.0.0.1:0", lambda r: CommandDecision(True), keys.security),
            StreamProxy("tcp://127.0.0.1:0", [ReplayTarget(rig.endpoints["public"])]),
        ]
        owners.append(CommandClient(owners[2].endpoint, keys.clients["dealer"], keys.server.public))
        for owner in owners:
            owner.close()
            owner.close()
        rig.close()
    rig.close()
