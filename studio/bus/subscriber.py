"""A lossless stream consumer: every event of its tables exactly once, in order (Clone pattern).

PUB sockets drop messages silently when a subscriber's queue is full, and a subscription takes
effect only some time after `connect`. The `Subscriber` therefore trusts the stream for nothing
but speed: it delivers a live event only when the event's stream position (see `studio.bus.wire`)
equals the last sequence number it delivered for that table, drops anything it has already
delivered, and on any mismatch, on a heartbeat ahead of it, and once at start, fetches the
missing events from the table's replay service before going on.
"""

from __future__ import annotations

import collections
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import zmq

from studio.bus.endpoints import connect
from studio.bus.keys import KeyPair
from studio.bus.replay import ReplayClient
from studio.bus.security import secure_client
from studio.bus.wire import WireEvent, check_table, parse_frames, topic_prefix
from studio.closing import Closing
from studio.errors import BusError, InputError
from studio.messages.notices import AnyNotice

log = logging.getLogger(__name__)

NOTICES_KEPT = 10_000
"""Notices a subscriber keeps until `notices()` takes them (the oldest go first)."""


@dataclass(frozen=True)
class ReplayTarget:
    """Where one table's replay service listens, and its CURVE public key (None: plain)."""

    endpoint: str
    server_key: bytes | None = None


class Subscriber(Closing):
    """Follow one stream (public or restricted) for one or more tables, losslessly.

    `tables` maps each table id to its replay service; `after` gives, per table, the last
    sequence number already processed (0 or absent: from the start), which is how a consumer that
    restarts continues without a gap or a duplicate. `client_keys` is this consumer's key pair
    (needed for CURVE on the stream and the replay service); `stream_server_key` is the stream
    endpoint's public key for a restricted stream (or a proxy serving one), None for plain.
    Use it as a context manager; `close()` is idempotent.
    """

    def __init__(
        self,
        endpoint: str,
        tables: Mapping[str, ReplayTarget],
        *,
        audience: Literal["public", "restricted"] = "public",
        client_keys: KeyPair | None = None,
        stream_server_key: bytes | None = None,
        after: Mapping[str, int] | None = None,
        rcvhwm: int = 1000,
        replay_timeout: float = 2.0,
        catch_up_on_start: bool = True,
    ) -> None:
        """Connect, subscribe to every table's topics and (by default) fetch what was missed.

        Raises BusTimeoutError or BusError when the first catch-up fails, InputError on a
        table id the bus cannot carry.
        """
        if not tables:
            raise InputError("a subscriber follows at least one table")
        self.audience = audience
        self._last = {check_table(t): (after or {}).get(t, 0) for t in tables}
        self._delivered = dict(self._last)
        self._pending: collections.deque[WireEvent] = collections.deque()
        # Notices are not replayed: a consumer that does not take them keeps the newest only.
        self._notices: collections.deque[AnyNotice] = collections.deque(maxlen=NOTICES_KEPT)
        self._replayed = 0
        self._last_heard = time.monotonic()
        self._ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
        self._replay: dict[str, ReplayClient] = {}
        self._sock = self._ctx.socket(zmq.SUB)
        try:
            self._sock.setsockopt(zmq.LINGER, 0)
            self._sock.setsockopt(zmq.RCVHWM, rcvhwm)
            if stream_server_key is not None:
                if client_keys is None:
                    raise BusError("a CURVE stream needs the subscriber's own key pair")
                secure_client(self._sock, client_keys, stream_server_key)
            for table, target in tables.items():
                self._sock.setsockopt(zmq.SUBSCRIBE, topic_prefix(table))
                self._replay[table] = ReplayClient(
                    target.endpoint,
                    client_keys=client_keys,
                    server_key=target.server_key,
                    timeout=replay_timeout,
                    context=self._ctx,
                )
            connect(self._sock, endpoint)
            if catch_up_on_start:
                for table in tables:
                    self._catch_up(table)
        except BaseException:
            self.close()
            raise

    @property
    def positions(self) -> dict[str, int]:
        """Per table, the sequence number of the last event `receive()` returned."""
        return dict(self._delivered)

    @property
    def replayed(self) -> int:
        """How many events came from the replay service rather than the stream (a health figure)."""
        return self._replayed

    @property
    def last_heard(self) -> float:
        """When a followed table was last heard on the stream, event or heartbeat (monotonic).

        Before the first message, the subscriber's start. A silent table is down or cut off.
        """
        return self._last_heard

    def notices(self) -> list[AnyNotice]:
        """The notices (journal alarms, checkpoints) received since the last call, in order.

        Notices ride the stream only (a lost one is not fetched again); only a restricted
        stream carries them. At most `NOTICES_KEPT` are kept between two calls.
        """
        taken = list(self._notices)
        self._notices.clear()
        return taken

    def receive(self, timeout: float | None = None) -> WireEvent | None:
        """The next event of any followed table, in sequence order per table.

        Waits up to `timeout` seconds (None: forever); returns None when nothing came in time.
        Raises BusTimeoutError or BusError when a replay needed to fill a gap fails (the state
        stays consistent: the next heartbeat retries).
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._pending:
                event = self._pending.popleft()
                self._delivered[event.table] = event.seq
                return event
            try:
                # Under load a message is usually queued already: skip the poll's system call.
                frames = self._sock.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                now = time.monotonic()
                wait_ms = -1 if deadline is None else max(0, int((deadline - now) * 1000))
                if not self._sock.poll(wait_ms):
                    return None
                frames = self._sock.recv_multipart()
            self._take(frames)

    def _take(self, frames: list[bytes]) -> None:
        try:
            message = parse_frames(frames)
        except InputError as err:
            log.warning("ignored a malformed stream message: %s", err)
            return
        table = message.table
        if table not in self._last:
            return
        self._last_heard = time.monotonic()
        last = self._last[table]
        event = message.event
        if message.notice is not None:
            self._notices.append(message.notice)
        if event is None:
            if message.position > last:
                self._catch_up(table)
            return
        if event.seq <= last:
            return  # Already delivered (from a replay that overtook the stream).
        if message.position == last:
            self._accept(event)
            return
        self._catch_up(table)
        if event.seq > self._last[table]:
            if message.position == self._last[table]:
                self._accept(event)
                return
            # An event is stored, with its input, before the stream carries it: the replay
            # must hold this event.
            raise BusError(
                f"table {table}: events {self._last[table] + 1}..{event.seq} are on neither "
                "the stream nor the replay service"
            )

    def _accept(self, event: WireEvent) -> None:
        self._last[event.table] = event.seq
        self._pending.append(event)

    def _catch_up(self, table: str) -> None:
        for event in self._replay[table].fetch(self._last[table] + 1, audience=self.audience):
            if event.table == table and event.seq > self._last[table]:
                self._replayed += 1
                self._accept(event)

    def close(self) -> None:
        """Close the stream and replay sockets and the context."""
        for client in self._replay.values():
            client.close()
        self._replay.clear()
        if not self._sock.closed:
            self._sock.close()
            self._ctx.term()
