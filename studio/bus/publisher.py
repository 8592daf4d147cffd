"""The table's two event streams: public (anyone) and restricted (CURVE, authorised keys).

`EventPublisher` binds both as XPUB sockets and owns them in one thread, which also sends a
heartbeat on a stream that has been idle for `heartbeat_interval` and a welcome heartbeat to every
new subscription (so a subscriber that joined after events were sent learns at once that it has
something to fetch). ZeroMQ sockets are not thread-safe, so that one thread is the only one that
touches them. It is either

- the publisher's own I/O thread (the default): `publish()` may be called from any thread; it
  checks and encodes the event in the caller's thread, so a bad event raises there, and hands the
  frames to the I/O thread; or
- an asyncio loop's thread (`loop=`): `publish()` is called in that thread and sends at once,
  without a hand-off to another thread (which costs a wake-up and a GIL switch per event, a
  large part of a card's latency); the loop watches the sockets for subscriptions and keeps the
  heartbeat timer.

Routing: every event goes to the restricted stream; only `audience == "public"` events go to the
public stream. Offering a restricted event to the public stream raises `AudienceError` and logs it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Collection, Sequence
from itertools import count
from typing import Literal

import zmq

from studio.bus.endpoints import ExclusiveBind, bind, release
from studio.bus.keys import RESTRICTED_READERS, AllowedKey
from studio.bus.security import KeyGuard, ServerSecurity
from studio.bus.wire import (
    EnvelopeLike,
    WireEvent,
    check_table,
    event_frames,
    heartbeat_frames,
    to_event,
)
from studio.closing import Closing
from studio.errors import AudienceError, BusError, InputError

log = logging.getLogger(__name__)

StreamName = Literal["public", "restricted"]
"""The two streams of a table."""

RESTRICTED_DOMAIN = "restricted"
"""The ZAP domain of the restricted stream: only `RESTRICTED_READERS` keys complete a handshake."""

_pipe_ids = count()
_STOP = b"stop"


def _following(seq: int, last: int) -> int:
    """`seq` if it may follow the last published `last`; raises InputError for a repeat.

    A jump forward is only logged: its events are in the journal, and subscribers fetch them.
    """
    if seq <= last:
        raise InputError(f"seq {seq} was published already (last {last})")
    if seq != last + 1:
        log.warning("seq jumps from %d to %d", last, seq)
    return seq


def _restricted_reader(entry: AllowedKey) -> bool:
    return entry.role in RESTRICTED_READERS


class EventPublisher(Closing):
    """Publish one table's events on its public and restricted streams.

    `last_seq` and `last_public_seq` are the last events each stream carried before this process
    (from the journal after a restart); if they are wrong, subscribers notice a position mismatch
    and repair it from the replay service, so a mistake costs a replay, never an event.
    Use it as a context manager; `close()` is idempotent.
    """

    def __init__(
        self,
        table: str,
        *,
        public_endpoint: str | None,
        restricted_endpoint: str | None,
        security: ServerSecurity | None = None,
        heartbeat_interval: float = 1.0,
        sndhwm: int = 1000,
        last_seq: int = 0,
        last_public_seq: int = 0,
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        """Bind the streams and start the I/O thread, or with `loop` attach them to that loop.

        With `loop`, the publisher must be created, used (`publish`) and closed in the thread
        that runs `loop`; it starts no thread. Raises EndpointInUseError or BusError when an
        endpoint is taken or a restricted stream is asked for without security, InputError for
        a table id the bus cannot carry.
        """
        self.table = check_table(table)
        if restricted_endpoint is not None and security is None:
            raise BusError("the restricted stream needs CURVE keys and an allow-list")
        self._interval = heartbeat_interval
        self._last_seq = last_seq
        self._positions: dict[StreamName, int] = {
            "public": last_public_seq,
            "restricted": last_seq,
        }
        self._lock = threading.Lock()
        self._closed = False
        self._ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
        self._claims: list[ExclusiveBind] = []
        self._guard: KeyGuard | None = None
        self._sockets: dict[StreamName, zmq.Socket[bytes]] = {}
        self._thread: threading.Thread | None = None
        self._pipe: zmq.Socket[bytes] | None = None
        self._loop = loop
        self._owner = threading.get_ident()
        self._watched: list[int] = []
        self._beat: asyncio.TimerHandle | None = None
        self._last_sent: dict[StreamName, float] = {}
        self._subscriptions: dict[StreamName, int] = {"public": 0, "restricted": 0}
        try:
            if security is not None and restricted_endpoint is not None:
                self._guard = security.guard(self._ctx, {RESTRICTED_DOMAIN: _restricted_reader})
            for name, endpoint in (
                ("public", public_endpoint),
                ("restricted", restricted_endpoint),
            ):
                if endpoint is None:
                    continue
                sock = self._ctx.socket(zmq.XPUB)
                sock.setsockopt(zmq.LINGER, 200)
                sock.setsockopt(zmq.SNDHWM, sndhwm)
                # Report every subscription, not just the first per topic: welcome each joiner.
                # VERBOSER reports every unsubscription too (a subscriber gone), so the
                # subscriptions open can be counted for the metrics.
                sock.setsockopt(zmq.XPUB_VERBOSER, 1)
                if name == "restricted" and self._guard is not None and security is not None:
                    self._guard.secure(sock, security.server_keys, RESTRICTED_DOMAIN)
                self._sockets[name] = sock  # type: ignore[index]
                self._claims.append(bind(sock, endpoint))
            if loop is not None:
                self._attach(loop)
                return
            pipe_name = f"inproc://studio-publisher-{next(_pipe_ids)}"
            self._pipe = self._ctx.socket(zmq.PAIR)
            self._pipe.bind(pipe_name)
            # Created here, used only by the I/O thread from its start on.
            worker_pipe = self._ctx.socket(zmq.PAIR)
            worker_pipe.connect(pipe_name)
        except BaseException:
            self._teardown()
            raise
        self._thread = threading.Thread(
            target=self._run, args=(worker_pipe,), name=f"publisher-{table}", daemon=True
        )
        self._thread.start()

    def _attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Watch the sockets from `loop` (subscriptions) and arm the heartbeat timer."""
        self._last_sent = dict.fromkeys(self._sockets, time.monotonic())
        for name, sock in self._sockets.items():
            fd = int(sock.getsockopt(zmq.FD))
            loop.add_reader(fd, self._on_readable, sock, name)
            self._watched.append(fd)
        self._beat = loop.call_later(self._interval, self._on_beat)

    def _on_readable(self, sock: zmq.Socket[bytes], name: StreamName) -> None:
        # ZMQ_FD is edge-triggered: only ZMQ_EVENTS says whether a subscription is waiting.
        while int(sock.getsockopt(zmq.EVENTS)) & zmq.POLLIN:
            self._welcome(sock, name, self._last_sent)

    def _on_beat(self) -> None:
        self._beat = None
        if self._closed or self._loop is None:
            return
        now = time.monotonic()
        for name, sent in self._last_sent.items():
            if now - sent >= self._interval:
                self._heartbeat(name, self._last_sent)
                self._on_readable(self._sockets[name], name)
        due = min(self._last_sent.values(), default=now) + self._interval
        self._beat = self._loop.call_later(max(0.0, due - time.monotonic()), self._on_beat)

    @property
    def last_seq(self) -> int:
        """The sequence number of the last event handed to the streams (any thread may read it)."""
        return self._last_seq

    @property
    def subscriptions(self) -> dict[StreamName, int]:
        """How many subscriptions are open on each bound stream (for the metrics)."""
        return {name: self._subscriptions[name] for name in self._sockets}

    @property
    def endpoints(self) -> dict[StreamName, str]:
        """The endpoints actually bound (a `tcp://...:0` request shows its chosen port)."""
        return {
            name: sock.getsockopt_string(zmq.LAST_ENDPOINT) for name, sock in self._sockets.items()
        }

    def publish(
        self, event: EnvelopeLike, *, streams: Collection[StreamName] | None = None
    ) -> None:
        """Send `event` on `streams` (default: restricted always, public if its audience is public).

        Raises AudienceError (after logging it) when a restricted event is offered to the public
        stream, InputError when `event` is not a valid envelope of this table or repeats a
        sequence number already published, BusError when the publisher is closed.
        """
        wire = self._own(to_event(event))
        if streams is None:
            targets: set[StreamName] = {"restricted"}
            if wire.audience == "public":
                targets.add("public")
        else:
            targets = set(streams)
        if "public" in targets and wire.audience != "public":
            log.error("refused: %s event seq %d offered to the public stream", wire.type, wire.seq)
            raise AudienceError(f"event {wire.seq} ({wire.type}) is restricted: never public")
        if self._loop is not None:
            self._send_now(wire, targets)
            return
        flags = b"".join(n[:1].encode() for n in sorted(targets) if n in self._sockets)
        with self._lock:
            if self._closed or self._pipe is None:
                raise BusError("the publisher is closed")
            self._last_seq = _following(wire.seq, self._last_seq)
            topic, payload, _ = event_frames(wire, 0)
            audience = b"p" if wire.audience == "public" else b"r"
            self._pipe.send_multipart([flags, topic, payload, str(wire.seq).encode(), audience])

    def publish_all(self, events: Sequence[EnvelopeLike]) -> None:
        """Publish one input's events, routed as `publish` routes them, the public stream first.

        Each stream carries its events in sequence order, but a public event does not wait
        behind the restricted stream's sends (and its encryption) of the events before it: the
        overlays and players' screens see a card as soon as it can be sent. A loop-owned
        publisher sends every public event, then every event on the restricted stream; a
        threaded one hands them on in order. Raises as `publish` does, before anything is sent
        for a bad event.
        """
        wires = [self._own(to_event(event)) for event in events]
        if self._loop is None:
            for wire in wires:
                self.publish(wire)
            return
        self._check_owner()
        last = self._last_seq
        for wire in wires:
            last = _following(wire.seq, last)
        self._last_seq = last
        now = time.monotonic()
        for stream in ("public", "restricted"):
            if stream in self._sockets:
                for wire in wires:
                    if stream == "restricted" or wire.audience == "public":
                        self._send_on(stream, wire, now)
        self._take_subscriptions()

    def _own(self, wire: WireEvent) -> WireEvent:
        """`wire` if it is this table's event; raises InputError otherwise."""
        if wire.table != self.table:
            raise InputError(f"event of table {wire.table!r} offered to table {self.table!r}")
        return wire

    def _send_on(self, stream: StreamName, wire: WireEvent, now: float) -> None:
        """Send `wire` on `stream` after the stream's previous event (loop-owned sockets)."""
        topic = f"{wire.table}.{wire.type}".encode()
        previous = self._positions[stream]
        self._sockets[stream].send_multipart([topic, wire.payload, str(previous).encode()])
        self._positions[stream] = wire.seq
        self._last_sent[stream] = now

    def _check_owner(self) -> None:
        if threading.get_ident() != self._owner:
            raise BusError("a loop-owned publisher publishes from its loop's thread only")
        if self._closed:
            raise BusError("the publisher is closed")

    def _take_subscriptions(self) -> None:
        for stream, sock in self._sockets.items():
            # A send may have taken the edge a subscription raised on the socket's fd.
            self._on_readable(sock, stream)

    def _send_now(self, wire: WireEvent, targets: set[StreamName]) -> None:
        """Send `wire` on `targets` from the loop's thread, the sockets' owner."""
        self._check_owner()
        self._last_seq = _following(wire.seq, self._last_seq)
        now = time.monotonic()
        streams: tuple[StreamName, ...] = ("public", "restricted")
        for stream in streams:
            if stream in self._sockets and stream in targets:
                self._send_on(stream, wire, now)
        self._take_subscriptions()

    def _run(self, pipe: zmq.Socket[bytes]) -> None:
        poller = zmq.Poller()
        poller.register(pipe, zmq.POLLIN)
        by_socket = {sock: name for name, sock in self._sockets.items()}
        for sock in self._sockets.values():
            poller.register(sock, zmq.POLLIN)
        last_sent = dict.fromkeys(self._sockets, time.monotonic())
        try:
            while True:
                now = time.monotonic()
                due = min(last_sent.values(), default=now) + self._interval
                ready = dict(poller.poll(int(max(0.0, due - now) * 1000)))
                if pipe in ready and not self._forward(pipe, last_sent):
                    return
                for sock, name in by_socket.items():
                    if sock in ready:
                        self._welcome(sock, name, last_sent)
                now = time.monotonic()
                for name, sent in last_sent.items():
                    if now - sent >= self._interval:
                        self._heartbeat(name, last_sent)
        except zmq.ZMQError:
            log.exception("publisher I/O thread for table %s stopped", self.table)
        finally:
            pipe.close(linger=0)

    def _forward(self, pipe: zmq.Socket[bytes], last_sent: dict[StreamName, float]) -> bool:
        # Drain what is queued so a burst does not wait one poll per event.
        while True:
            try:
                flags, topic, payload, seq_text, audience = pipe.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return True
            if flags == _STOP:
                return False
            seq = int(seq_text)
            streams: tuple[StreamName, ...] = ("public", "restricted")
            for stream in streams:
                if stream[:1].encode() not in flags:
                    continue
                if stream == "public" and audience != b"p":
                    # Second line of defence behind publish(): never reached unless it was bypassed.
                    log.error("dropped restricted event %d at the public socket", seq)
                    continue
                previous = self._positions[stream]
                self._sockets[stream].send_multipart([topic, payload, str(previous).encode()])
                self._positions[stream] = seq
                last_sent[stream] = time.monotonic()

    def _welcome(
        self, sock: zmq.Socket[bytes], name: StreamName, last_sent: dict[StreamName, float]
    ) -> None:
        while True:
            try:
                message = sock.recv(zmq.NOBLOCK)
            except zmq.Again:
                return
            if message[:1] == b"\x01":
                self._subscriptions[name] += 1
                self._heartbeat(name, last_sent)
            elif message[:1] == b"\x00":
                self._subscriptions[name] = max(0, self._subscriptions[name] - 1)

    def _heartbeat(self, name: StreamName, last_sent: dict[StreamName, float]) -> None:
        frames = heartbeat_frames(self.table, self._positions[name])
        try:
            self._sockets[name].send_multipart(frames, zmq.NOBLOCK)
        except zmq.Again:
            log.debug("heartbeat on %s dropped at the high-water mark", name)
        last_sent[name] = time.monotonic()

    def close(self) -> None:
        """Stop the I/O thread after it has handed on what was published, and unbind.

        A loop-owned publisher is closed in its loop's thread; the sockets linger (up to 200 ms)
        so that what was published still leaves.
        """
        if self._loop is not None:
            if self._closed:
                return
            if threading.get_ident() != self._owner:
                raise BusError("a loop-owned publisher is closed from its loop's thread only")
            self._detach()
            self._teardown()
            return
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._thread is not None and self._pipe is not None:
                self._pipe.send_multipart([_STOP, b"", b"", b"", b""])
        if self._thread is not None:
            self._thread.join()
        self._teardown()

    def _detach(self) -> None:
        if self._beat is not None:
            self._beat.cancel()
            self._beat = None
        if self._loop is not None and not self._loop.is_closed():
            for fd in self._watched:
                self._loop.remove_reader(fd)
        self._watched.clear()

    def _teardown(self) -> None:
        self._detach()
        self._closed = True
        for sock in self._sockets.values():
            sock.close()
        if self._pipe is not None:
            self._pipe.close(linger=0)
        if self._guard is not None:
            self._guard.close()
        self._ctx.term()
        release(self._claims)
