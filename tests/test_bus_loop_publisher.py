"""A publisher owned by an asyncio loop's thread: same stream, no I/O thread, no hand-off."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest
import zmq
from test_bus_support import envelope, mixed_events, no_leaks  # noqa: F401  (fixture by name)

from studio.bus import EventPublisher
from studio.bus.wire import encode_event, parse_frames, to_event
from studio.errors import AudienceError, BusError
from studio.journal.chain import canonical_json
from studio.messages import Envelope


async def _recv(sock: zmq.Socket[bytes], timeout: float = 3.0) -> list[bytes]:
    # The loop must keep running while the test waits: it serves the publisher's sockets.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            return sock.recv_multipart(zmq.NOBLOCK)
        except zmq.Again:
            await asyncio.sleep(0.005)
    raise AssertionError("nothing arrived")


def test_loop_owned_publisher_welcomes_sends_in_order_and_beats() -> None:
    async def main() -> None:
        ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
        pub = EventPublisher(
            "T1",
            public_endpoint="tcp://127.0.0.1:0",
            restricted_endpoint=None,
            heartbeat_interval=0.2,
            loop=asyncio.get_running_loop(),
        )
        sub = ctx.socket(zmq.SUB)
        try:
            assert not [t for t in threading.enumerate() if t.name.startswith("publisher-")]
            sub.setsockopt(zmq.LINGER, 0)
            sub.setsockopt(zmq.SUBSCRIBE, b"T1.")
            sub.connect(pub.endpoints["public"])
            # The loop notices the subscription and welcomes it at once, long before a beat.
            welcome = parse_frames(await _recv(sub, timeout=0.15))
            assert welcome.event is None and welcome.position == 0
            events = [e for e in mixed_events("T1", 6) if e["audience"] == "public"]
            for seq, event in enumerate(mixed_events("T1", 6), start=1):
                model = Envelope.model_validate(event)
                stored = encode_event(model, canonical_json(model.model_dump(mode="json")))
                streams = None if event["audience"] == "public" else {"restricted"}
                pub.publish(stored, streams=streams)
                assert seq == model.seq
            got = []
            while len(got) < len(events):
                message = parse_frames(await _recv(sub))
                if message.event is not None:
                    got.append((message.event.seq, message.position, message.event.payload))
            assert [(s, p) for s, p, _ in got] == [(1, 0), (2, 1), (4, 2), (5, 4)]
            # The bytes sent are the ones given (the journal's canonical text), not re-encoded.
            first = Envelope.model_validate_json(got[0][2])
            assert first == Envelope.model_validate(events[0])
            assert got[0][2] == canonical_json(json.loads(got[0][2])).encode()
            idle = parse_frames(await _recv(sub, timeout=1.0))
            assert idle.event is None and idle.position == 5
            with pytest.raises(AudienceError):
                pub.publish(envelope("T1", 7, "restricted"), streams={"public"})
            failure: list[BaseException] = []

            def elsewhere() -> None:
                try:
                    pub.publish(to_event(envelope("T1", 7, "public")))
                except BusError as err:
                    failure.append(err)

            other = threading.Thread(target=elsewhere)
            other.start()
            other.join()
            assert failure, "a loop-owned publisher must refuse another thread"
        finally:
            sub.close()
            pub.close()
            pub.close()
            ctx.term()

    asyncio.run(main())
