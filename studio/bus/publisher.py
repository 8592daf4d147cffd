"""The table's two event streams: public (anyone) and restricted (CURVE, authorised keys).

`EventPublisher` binds both as XPUB sockets and owns them in one thread, which also sends a
heartbeat on a stream that has been idle for `heartbeat_interval` and a welcome heartbeat to every
new subscription (so a subscriber that joined after events were sent learns at once that it has
something to fetch). ZeroMQ sockets are not thread-safe, so that one thread is the only one that
touches them, and it is always an asyncio loop's: one implementation, hosted either

- by the caller's loop (`loop=`, what `studio run` does): `publish()` is called in that thread
  and sends at once, without a hand-off to another thread (which costs a wake-up and a GIL
  switch per event, a large part of a card's latency); or
- by a loop of its own on a thread the publisher starts (the default, for callers without a
  loop): `publish()` may be called from any thread; it checks the event in the caller's thread,
  so a bad event raises there, and hands it to that loop.

In both, the loop watches the sockets for subscriptions and keeps the heartbeat timer.

A publisher on the caller's loop can also frame an input's events before they may go
(`frame()`: checked, routed and made into each stream's frames, nothing sent) and send them
later with no other work (`send_framed()`): the runtime frames a card's events while its
journal transaction is being prepared, so once the commit returns only the sends are left.

Routing: every event goes to the restricted stream; only `audience == "public"` events go to the
public stream. Offering a restricted event to the public stream raises `AudienceError` and logs it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

import zmq

from studio.bus.endpoints import ExclusiveBind, bind, release
from studio.bus.keys import RESTRICTED_READERS, AllowedKey
from studio.bus.security import KeyGuard, ServerSecurity
from studio.bus.wire import (
    HEARTBEAT,
    NOTICE,
    EnvelopeLike,
    WireEvent,
    check_table,
    check_type,
    heartbeat_frames,
    notice_frames,
    to_event,
)
from studio.closing import Closing
from studio.errors import AudienceError, BusError, InputError
from studio.messages.notices import AnyNotice

log = logging.getLogger(__name__)

StreamName = Literal["public", "restricted"]
"""The two streams of a table."""

RESTRICTED_DOMAIN = "restricted"
"""The ZAP domain of the restricted stream: only `RESTRICTED_READERS` keys complete a handshake."""

_BOTH: frozenset[StreamName] = frozenset(("public", "restricted"))
_RESTRICTED: frozenset[StreamName] = frozenset(("restricted",))


def _following(seq: int, last: int) -> int:
    """`seq` if it may follow the last published `last`; raises InputError for a repeat.

    A jump forward is only logged: its events are in the journal, and subscribers fetch them.
    """
    if seq <= last:
        raise InputError(f"seq {seq} was published already (last {last})")
    if seq != last + 1:
        log.warning("seq jumps from %d to %d", last, seq)
    return seq


def _checked(wires: list[WireEvent], last: int) -> int:
    """The last seq of `wires`, each checked to follow the one before (from `last`).

    Raises InputError as `_following` does.
    """
    for wire in wires:
        last = _following(wire.envelope.seq, last)
    return last


def _routes(wire: WireEvent) -> frozenset[StreamName]:
    """Where an event goes by default: the restricted stream always, the public if its own."""
    return _BOTH if wire.envelope.audience == "public" else _RESTRICTED


def _restricted_reader(entry: AllowedKey) -> bool:
    return entry.role in RESTRICTED_READERS


@dataclass(frozen=True, slots=True)
class FramedEvents:
    """One input's events checked, routed and framed by `EventPublisher.frame`, not yet sent.

    `sends` holds, in sending order (the public stream first), each stream's frames and the
    event's `seq`, made after the publisher's last event `after` (empty on a publisher with its
    own thread, which frames when it sends); `last` is the last event's `seq`.
    """

    wires: tuple[WireEvent, ...]
    routes: tuple[frozenset[StreamName], ...]
    after: int
    last: int
    sends: tuple[tuple[StreamName, list[bytes], int], ...]


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
        """Bind the streams and attach them to `loop`, or to a loop of its own on a new thread.

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
        # No loop given: a loop of its own on its own thread, from its start the sockets' owner.
        self._loop: asyncio.AbstractEventLoop = loop or asyncio.new_event_loop()
        self._thread: threading.Thread | None = None
        self._attached = threading.Event()
        self._attach_error: BaseException | None = None
        if loop is None:
            self._thread = threading.Thread(
                target=self._host, args=(self._loop,), name=f"publisher-{table}", daemon=True
            )
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
        except BaseException:
            self._teardown()
            if self._thread is not None:
                self._loop.close()
            raise
        if self._thread is None:
            self._attach(self._loop)
            return
        self._thread.start()
        self._attached.wait()
        if self._attach_error is not None:
            self._thread.join()
            raise BusError(f"the publisher's loop did not start: {self._attach_error}")

    def _host(self, loop: asyncio.AbstractEventLoop) -> None:
        """Run the publisher's own loop until `close()` stops it, then release the sockets."""
        asyncio.set_event_loop(loop)
        self._owner = threading.get_ident()
        try:
            try:
                self._attach(loop)
            except BaseException as err:  # said to the constructor, which is waiting for it
                self._attach_error = err
                return
            finally:
                self._attached.set()
            loop.run_forever()
        finally:
            self._teardown()
            loop.close()

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
        if self._closed:
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
        wire = self._own(event)
        if streams is None:
            targets: frozenset[StreamName] = _routes(wire)
        else:
            targets = frozenset(streams)
        if "public" in targets and wire.audience != "public":
            log.error("refused: %s event seq %d offered to the public stream", wire.type, wire.seq)
            raise AudienceError(f"event {wire.seq} ({wire.type}) is restricted: never public")
        self._dispatch([wire], [targets])

    def publish_all(self, events: Sequence[EnvelopeLike]) -> None:
        """Publish one input's events, routed as `publish` routes them, the public stream first.

        Each stream carries its events in sequence order, but a public event does not wait
        behind the restricted stream's sends (and its encryption) of the events before it: the
        overlays and players' screens see a card as soon as it can be sent. Raises as `publish`
        does, before anything is sent for a bad event.
        """
        self.send_framed(self.frame(events))

    def frame(self, events: Sequence[EnvelopeLike]) -> FramedEvents:
        """Check, route and frame one input's events as `publish_all` would; send nothing.

        On a publisher on the caller's loop the frames are made now, with each stream's
        positions after its last event, so `send_framed` only sends them; on a publisher with
        its own thread they are numbered and made when sent. Raises as `publish_all` does
        (InputError for an event not of this table or, loop-owned, one published already;
        BusError for a loop-owned publisher closed or called from another thread), before
        anything is sent.
        """
        if self._thread is None:
            return self._frame_here(events)
        wires = tuple(self._own(event) for event in events)
        routes = tuple(_routes(wire) for wire in wires)
        # Numbered under the lock and framed by the publisher's thread (`send_framed`).
        return FramedEvents(wires, routes, self._last_seq, self._last_seq, ())

    def _frame_here(self, events: Sequence[EnvelopeLike]) -> FramedEvents:
        """`frame` on a publisher on the caller's loop, in one pass over the events.

        `_own`, `_routes`, `_checked` and `_frames` inline: this runs on every card's way
        before its commit, where each helper's call costs several times its warm figure (the
        caches are cold after the idle gap between cards). The checks and the frames are
        theirs, byte for byte (tests/test_runtime_frames.py).
        """
        self._check_owner()  # the positions the frames follow are the loop thread's
        table, after = self.table, self._last_seq
        last = after
        wires: list[WireEvent] = []
        routes: list[frozenset[StreamName]] = []
        public: list[tuple[StreamName, list[bytes], int]] = []
        restricted: list[tuple[StreamName, list[bytes], int]] = []
        sockets, positions = self._sockets, self._positions
        public_at = positions["public"] if "public" in sockets else None
        restricted_at = positions["restricted"] if "restricted" in sockets else None
        for event in events:
            if isinstance(event, WireEvent) and event.envelope.table == table:
                # The runtime's own events: this table's id met the topic's pattern when the
                # publisher was made (`check_table`), so only the type is left (`check_type`).
                wire = event
                envelope = wire.envelope
                if envelope.type in (HEARTBEAT, NOTICE):
                    check_type(envelope)
            else:
                wire = self._own(event)
                envelope = wire.envelope
            seq = envelope.seq
            if seq != last + 1:
                _following(seq, last)
            last = seq
            wires.append(wire)
            topic = f"{table}.{envelope.type}".encode()
            if envelope.audience == "public":
                routes.append(_BOTH)
                if public_at is not None:
                    public.append(("public", [topic, wire.payload, str(public_at).encode()], seq))
                    public_at = seq
            else:
                routes.append(_RESTRICTED)
            if restricted_at is not None:
                frames = [topic, wire.payload, str(restricted_at).encode()]
                restricted.append(("restricted", frames, seq))
                restricted_at = seq
        return FramedEvents(tuple(wires), tuple(routes), after, last, (*public, *restricted))

    def send_framed(self, framed: FramedEvents) -> None:
        """Send events framed by `frame`, in their order; the public stream first.

        Frames made before another publish are made again (their positions would be stale).
        Raises InputError when an event was published since, BusError when the publisher is
        closed or, on a loop-owned publisher, called from another thread.
        """
        if self._thread is not None:
            self._dispatch(list(framed.wires), list(framed.routes))
            return
        self._check_owner()
        if framed.after != self._last_seq:
            self._last_seq = _checked(list(framed.wires), self._last_seq)
            self._send_frames(self._frames(framed.wires, framed.routes))
            return
        self._last_seq = framed.last
        self._send_frames(framed.sends)

    def _own(self, event: EnvelopeLike) -> WireEvent:
        """`event` checked (`to_event`) as this table's; raises InputError otherwise."""
        if isinstance(event, WireEvent) and event.envelope.table == self.table:
            # The runtime's own events, on every card's way: this table's id met the topic's
            # pattern when the publisher was made (`check_table`), so only the type is left.
            check_type(event.envelope)
            return event
        wire = to_event(event)
        if wire.table != self.table:
            raise InputError(f"event of table {wire.table!r} offered to table {self.table!r}")
        return wire

    def publish_notice(self, notice: AnyNotice) -> None:
        """Send `notice` on the restricted stream only (a notice may name what the journal holds).

        It takes no sequence number: its position is the last event the stream carried. Without
        a restricted stream it is only logged. Raises InputError for another table's notice,
        BusError when the publisher is closed.
        """
        if notice.table != self.table:
            raise InputError(f"notice of table {notice.table!r} offered to table {self.table!r}")
        if "restricted" not in self._sockets:
            log.info("no restricted stream for the %s notice", notice.kind)
            return
        if self._thread is None:
            self._check_owner()
            self._send_notice(notice)
            return
        with self._lock:
            if self._closed:
                raise BusError("the publisher is closed")
            self._loop.call_soon_threadsafe(self._send_notice, notice)

    def _send_notice(self, notice: AnyNotice) -> None:
        """Send `notice` after the restricted stream's last event (in the sockets' thread)."""
        frames = notice_frames(notice, self._positions["restricted"])
        self._sockets["restricted"].send_multipart(frames)
        self._last_sent["restricted"] = time.monotonic()

    def _dispatch(self, wires: list[WireEvent], routes: list[frozenset[StreamName]]) -> None:
        """Number the checked `wires` in, then send them from the sockets' thread."""
        if self._thread is None:
            self._check_owner()
            self._last_seq = _checked(wires, self._last_seq)
            self._send(wires, routes)
            return
        with self._lock:
            if self._closed:
                raise BusError("the publisher is closed")
            self._last_seq = _checked(wires, self._last_seq)
            # Handed on under the lock: the loop sends them in the order they were numbered.
            self._loop.call_soon_threadsafe(self._send, wires, routes)

    def _send(self, wires: list[WireEvent], routes: list[frozenset[StreamName]]) -> None:
        """Send `wires` on their streams, the public stream first (in the sockets' thread)."""
        self._send_frames(self._frames(wires, routes))

    def _frames(
        self, wires: Sequence[WireEvent], routes: Sequence[frozenset[StreamName]]
    ) -> tuple[tuple[StreamName, list[bytes], int], ...]:
        """Each stream's frames of `wires`, the public stream first, after its last event.

        Read in the sockets' thread only (the positions are that thread's).
        """
        positions = dict(self._positions)
        sends: list[tuple[StreamName, list[bytes], int]] = []
        for stream in ("public", "restricted"):
            if stream not in self._sockets:
                continue
            for wire, targets in zip(wires, routes, strict=True):
                if stream not in targets:
                    continue
                envelope = wire.envelope  # its fields, not the WireEvent's properties
                if stream == "public" and envelope.audience != "public":
                    # Second line of defence behind publish(): never reached unless bypassed.
                    log.error("dropped restricted event %d at the public socket", envelope.seq)
                    continue
                topic = f"{envelope.table}.{envelope.type}".encode()
                previous = str(positions[stream]).encode()
                sends.append((stream, [topic, wire.payload, previous], envelope.seq))
                positions[stream] = envelope.seq
        return tuple(sends)

    def _send_frames(self, sends: Sequence[tuple[StreamName, list[bytes], int]]) -> None:
        """Send framed events in their order (in the sockets' thread)."""
        now = time.monotonic()
        for stream, frames, seq in sends:
            self._send_on(stream, frames, seq, now)
        self._take_subscriptions()

    def _send_on(self, stream: StreamName, frames: list[bytes], seq: int, now: float) -> None:
        """Send one event's `frames` on `stream`; it is the stream's last event from now on."""
        self._sockets[stream].send_multipart(frames)
        self._positions[stream] = seq
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
        """Stop after handing on what was published, and unbind; idempotent.

        A publisher on the caller's loop is closed in that loop's thread. The sockets linger
        (up to 200 ms) so that what was published still leaves.
        """
        if self._thread is None:
            if self._closed:
                return
            if threading.get_ident() != self._owner:
                raise BusError("a loop-owned publisher is closed from its loop's thread only")
            self._teardown()
            return
        with self._lock:
            if self._closed:
                return
            self._closed = True
            # After every send already handed on: the loop runs its callbacks in order.
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()

    def _detach(self) -> None:
        if self._beat is not None:
            self._beat.cancel()
            self._beat = None
        if not self._loop.is_closed():
            for fd in self._watched:
                self._loop.remove_reader(fd)
        self._watched.clear()

    def _teardown(self) -> None:
        self._detach()
        self._closed = True
        for sock in self._sockets.values():
            sock.close()
        if self._guard is not None:
            self._guard.close()
        self._ctx.term()
        release(self._claims)
