"""The replay service (ROUTER) that lets subscribers fetch what the streams did not bring them.

Requests and replies are multipart messages whose first frame is UTF-8 JSON:

- `{"id": "r1", "op": "events", "from": N, "audience": "public" | "restricted"}` is answered by
  `{"id": "r1", "status": "ok", "count": k, "more": bool}` followed by k frames, each one
  envelope's JSON, in sequence order from `seq` N on (at most `batch` per reply; ask again from
  the next `seq` while `more` is true). With `"audience": "public"` only public events are sent.
- `{"id": "r2", "op": "snapshot"}` is answered by `{"id": "r2", "status": "ok", "snapshot": {...}}`;
  a table runtime's snapshot is its `TableView` as JSON (`ReplayClient.view()` parses it). With
  `"audience": "public"` it is the view anyone may see (no face-down card), served to every key.
- `{"id": "r3", "op": "crop", "zone": "player-1"}` (restricted readers only: a crop may show a
  face-down card's face) is answered by `{"id": "r3", "status": "ok", "zone": ..., "frame": N,
  "ts": ...}` followed by one frame, the JPEG of that zone in the camera's latest frame; a table
  without a camera, or before its first frame, answers with an error.
- Anything else gets `{"id": ..., "status": "error", "reason": "..."}`; a request the service
  cannot even parse gets that with `"id": null`.

With CURVE, restricted events and the restricted snapshot (face-down cards) are served only to
keys whose role is in `RESTRICTED_READERS`, looked up from the request's authenticated User-Id in
the allow-list as it is now. Without CURVE every request is served public events only.
"""

from __future__ import annotations

import itertools
import json
import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol
from uuid import uuid4

import zmq
from pydantic import ValidationError

from studio.bus.endpoints import ExclusiveBind, bind, connect
from studio.bus.keys import RESTRICTED_READERS, KeyPair
from studio.bus.security import KeyGuard, ServerSecurity, any_listed, secure_client, user_id
from studio.bus.service import RouterService
from studio.bus.wire import EnvelopeLike, WireEvent, to_event
from studio.closing import Closing
from studio.errors import BusError, BusTimeoutError, InputError
from studio.messages.view import TableView

log = logging.getLogger(__name__)

REPLAY_DOMAIN = "replay"
"""The ZAP domain of the replay service: any allow-listed key completes the handshake."""

MAX_REQUEST_BYTES = 1024
"""Requests are a few dozen bytes; anything larger is refused unread."""

MAX_SEQ = 2**63 - 1
"""The largest sequence number a request may name (SQLite's largest integer)."""


MAX_ZONE = 64
"""The longest zone name a crop request may carry (zones are position names)."""


@dataclass(frozen=True, slots=True)
class ZoneCrop:
    """One zone as the camera saw it: the frame's number and capture time, and the JPEG."""

    zone: str
    frame: int
    ts: datetime
    jpeg: bytes


ZoneCrops = Callable[[str], ZoneCrop | None]
"""Cuts a zone out of the camera's latest frame (None: no frame, or no such zone)."""


class EventSource(Protocol):
    """Where the replay service reads stored events: the journal in production.

    Both methods are called from the replay service's own thread, so an implementation backed
    by SQLite opens its own connection for that thread (or serialises access itself).
    """

    def events_from(self, seq: int) -> Iterable[EnvelopeLike]:
        """Every stored event with sequence number `seq` or later, in sequence order."""
        ...

    def snapshot(self) -> Mapping[str, Any]:
        """The table now as a JSON-able mapping (restricted: face-down cards shown)."""
        ...

    def public_snapshot(self) -> Mapping[str, Any]:
        """The table now as anyone may see it (no face-down card's value)."""
        ...


class ReplayService(RouterService):
    """Answer replay and snapshot requests for one table from an `EventSource`.

    The service runs in its own thread from construction until `close()` (idempotent; context
    manager). A failing source or a bad request is answered with an error, never stops it.
    """

    def __init__(
        self,
        endpoint: str,
        source: EventSource | None = None,
        *,
        open_source: Callable[[], EventSource] | None = None,
        security: ServerSecurity | None = None,
        batch: int = 1000,
    ) -> None:
        """Bind `endpoint` and start serving from `source`, or from what `open_source` returns.

        `open_source` is called in the service's thread (a SQLite connection must be made in
        the thread that uses it); if its result has a `close()`, that is called when the service
        stops. Give exactly one of the two. Raises EndpointInUseError or BusError on bind.
        """
        if (source is None) == (open_source is None):
            raise BusError("give the replay service a source or a way to open one, not both")
        self._source = source
        self._open_source = open_source
        self._security = security
        self._batch = batch
        self._crops: ZoneCrops | None = None
        self._stop = threading.Event()
        self._ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
        self._guard: KeyGuard | None = None
        self._claims: list[ExclusiveBind] = []
        self._sock = self._ctx.socket(zmq.ROUTER)
        self._thread: threading.Thread | None = None
        try:
            self._sock.setsockopt(zmq.LINGER, 0)
            # A vanished client must raise EHOSTUNREACH on reply, not fill a queue nobody reads.
            self._sock.setsockopt(zmq.ROUTER_MANDATORY, 1)
            self._sock.setsockopt(zmq.MAXMSGSIZE, MAX_REQUEST_BYTES * 4)
            if security is not None:
                self._guard = security.guard(self._ctx, {REPLAY_DOMAIN: any_listed})
                self._guard.secure(self._sock, security.server_keys, REPLAY_DOMAIN)
            self._claims.append(bind(self._sock, endpoint))
        except BaseException:
            self._teardown()
            raise
        self._serve_in_background("replay-service")

    def serve_crops(self, crops: ZoneCrops) -> None:
        """Answer `crop` requests with `crops` (the camera, once it is open; any thread)."""
        self._crops = crops

    def _run(self) -> None:
        if self._open_source is not None:
            try:
                self._source = self._open_source()
            except Exception:
                # Requests are then answered with an error; the table itself keeps running.
                log.exception("replay source could not be opened")
        try:
            self._serve()
        finally:
            close = getattr(self._source, "close", None) if self._open_source else None
            if callable(close):
                close()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                if not self._sock.poll(50):
                    continue
                frames = self._sock.recv_multipart(copy=False)
            except zmq.ZMQError:
                log.exception("replay service receive failed")
                continue
            try:
                self._answer(frames)
            except Exception:
                # Whatever a client sends or a source raises, the service keeps serving.
                log.exception("replay request failed")

    def _answer(self, frames: list[zmq.Frame]) -> None:
        route = [f.bytes for f in frames[:-1]]
        request = frames[-1]
        may_read_restricted = False
        if self._security is not None:
            user = user_id(request)
            entry = self._security.allow_list.lookup(user) if user else None
            if entry is None:
                self._reply(route, {"id": None, "status": "error", "reason": "key not allowed"})
                return
            may_read_restricted = entry.role in RESTRICTED_READERS
        try:
            if len(request.bytes) > MAX_REQUEST_BYTES:
                raise InputError("request too large")
            data = json.loads(request.bytes)
            if not isinstance(data, dict):
                raise InputError("a request is a JSON object")
        except (ValueError, InputError) as err:
            self._reply(route, {"id": None, "status": "error", "reason": f"malformed: {err}"})
            return
        rid = data.get("id") if isinstance(data.get("id"), str) else None
        op = data.get("op")
        if op == "crop":
            self._answer_crop(route, rid, data.get("zone"), may_read_restricted)
            return
        if op == "snapshot":
            public = data.get("audience") == "public"
            if not (public or may_read_restricted):
                self._reply(route, {"id": rid, "status": "error", "reason": "role may not"})
                return
            try:
                source = self._opened()
                snap = dict(source.public_snapshot() if public else source.snapshot())
            except Exception as err:
                log.exception("snapshot failed")
                self._reply(route, {"id": rid, "status": "error", "reason": f"source: {err}"})
                return
            self._reply(route, {"id": rid, "status": "ok", "snapshot": snap})
            return
        start, audience = data.get("from"), data.get("audience", "public")
        # bool is an int in Python, and SQLite's integers stop at MAX_SEQ.
        if op != "events" or type(start) is not int or not 1 <= start <= MAX_SEQ:
            self._reply(route, {"id": rid, "status": "error", "reason": "unknown request"})
            return
        if audience not in ("public", "restricted") or (
            audience == "restricted" and not may_read_restricted
        ):
            self._reply(route, {"id": rid, "status": "error", "reason": "audience not allowed"})
            return
        try:
            events, more = self._collect(start, public_only=audience == "public")
        except Exception as err:
            log.exception("events_from(%d) failed", start)
            self._reply(route, {"id": rid, "status": "error", "reason": f"source: {err}"})
            return
        header = {"id": rid, "status": "ok", "count": len(events), "more": more}
        self._reply(route, header, [e.payload for e in events])

    def _answer_crop(
        self, route: list[bytes], rid: str | None, zone: object, may_read_restricted: bool
    ) -> None:
        if not may_read_restricted:
            self._reply(route, {"id": rid, "status": "error", "reason": "role may not"})
            return
        if not isinstance(zone, str) or not 0 < len(zone) <= MAX_ZONE:
            self._reply(route, {"id": rid, "status": "error", "reason": "a crop needs a zone"})
            return
        crops = self._crops
        if crops is None:
            self._reply(route, {"id": rid, "status": "error", "reason": "the table has no camera"})
            return
        try:
            crop = crops(zone)
        except Exception as err:
            log.exception("crop of %s failed", zone)
            self._reply(route, {"id": rid, "status": "error", "reason": f"camera: {err}"})
            return
        if crop is None:
            reason = f"no camera image of {zone}"
            self._reply(route, {"id": rid, "status": "error", "reason": reason})
            return
        header = {"id": rid, "status": "ok", "zone": crop.zone, "frame": crop.frame}
        self._reply(route, {**header, "ts": crop.ts.isoformat()}, [crop.jpeg])

    def _collect(self, start: int, *, public_only: bool) -> tuple[list[WireEvent], bool]:
        events: list[WireEvent] = []
        iterator = iter(self._opened().events_from(start))
        try:
            for item in iterator:
                event = to_event(item)
                if event.seq < start or (public_only and event.audience != "public"):
                    continue
                if len(events) == self._batch:
                    return events, True
                events.append(event)
            return events, False
        finally:
            close = getattr(iterator, "close", None)
            if callable(close):
                close()

    def _opened(self) -> EventSource:
        if self._source is None:
            raise BusError("the event source is not open")
        return self._source

    def _reply(
        self, route: list[bytes], header: dict[str, Any], payloads: list[bytes] | None = None
    ) -> None:
        try:
            self._sock.send_multipart([*route, json.dumps(header).encode(), *(payloads or [])])
        except zmq.ZMQError as err:
            log.warning("replay reply not delivered: %s", err)


class ReplayClient(Closing):
    """Ask one table's replay service for events and snapshots (context manager, idempotent close).

    With `client_keys` and `server_key` the connection uses CURVE; a key the service does not
    admit never completes the handshake, which shows as `BusTimeoutError`.
    """

    def __init__(
        self,
        endpoint: str,
        *,
        client_keys: KeyPair | None = None,
        server_key: bytes | None = None,
        timeout: float = 2.0,
        context: zmq.Context[zmq.Socket[bytes]] | None = None,
    ) -> None:
        """Connect to `endpoint` (no I/O happens until the first request)."""
        self._own_ctx = context is None
        self._ctx: zmq.Context[zmq.Socket[bytes]] = context or zmq.Context()
        self._timeout_ms = int(timeout * 1000)
        self._ids = itertools.count()
        self._prefix = uuid4().hex[:8]
        self._sock = self._ctx.socket(zmq.DEALER)
        self._sock.setsockopt(zmq.LINGER, 0)
        try:
            if client_keys is not None and server_key is not None:
                secure_client(self._sock, client_keys, server_key)
            connect(self._sock, endpoint)
        except BaseException:
            self.close()
            raise

    def _request(self, body: dict[str, Any]) -> tuple[dict[str, Any], list[bytes]]:
        rid = f"{self._prefix}-{next(self._ids)}"
        self._sock.send(json.dumps({"id": rid, **body}).encode())
        while True:
            if not self._sock.poll(self._timeout_ms):
                raise BusTimeoutError("the replay service did not answer in time")
            header_frame, *payloads = self._sock.recv_multipart()
            try:
                header = json.loads(header_frame)
            except ValueError as err:
                raise BusError(f"unreadable replay reply: {err}") from err
            if header.get("id") != rid:
                continue  # A late answer to a request that timed out earlier.
            if header.get("status") != "ok":
                raise BusError(f"replay refused: {header.get('reason')}")
            return header, payloads

    def fetch(self, start: int, *, audience: str = "public") -> Iterator[WireEvent]:
        """Yield every stored event from `seq` `start` on for `audience`, in order.

        Raises BusTimeoutError when the service does not answer, BusError when it refuses.
        """
        while True:
            header, payloads = self._request({"op": "events", "from": start, "audience": audience})
            events = [to_event(p) for p in payloads]
            yield from events
            if not header.get("more") or not events:
                return
            start = events[-1].seq + 1

    def snapshot(self, *, audience: str = "restricted") -> dict[str, Any]:
        """The table now; `audience` "public" asks for what anyone may see.

        Raises BusTimeoutError when the service does not answer, BusError when it refuses.
        """
        header, _ = self._request({"op": "snapshot", "audience": audience})
        snap = header.get("snapshot")
        if not isinstance(snap, dict):
            raise BusError("replay snapshot reply has no snapshot")
        return snap

    def crop(self, zone: str) -> ZoneCrop:
        """`zone` in the table camera's latest frame (restricted readers only).

        Raises BusTimeoutError when the service does not answer, BusError when it refuses (no
        camera, no frame yet, a role that may not read restricted events).
        """
        header, payloads = self._request({"op": "crop", "zone": zone})
        try:
            ts = datetime.fromisoformat(str(header.get("ts")))
            frame = int(header["frame"])
        except (KeyError, TypeError, ValueError) as err:
            raise BusError(f"unreadable crop reply: {err}") from err
        if len(payloads) != 1:
            raise BusError("crop reply has no image")
        return ZoneCrop(zone, frame, ts, payloads[0])

    def view(self, *, audience: str = "restricted") -> TableView:
        """The table now as a typed `TableView` (the snapshot a table runtime serves).

        Raises BusTimeoutError, or BusError when refused or when the snapshot is not a view.
        """
        try:
            return TableView.model_validate(self.snapshot(audience=audience))
        except ValidationError as err:
            raise BusError(f"replay snapshot is not a table view: {err}") from err

    def close(self) -> None:
        """Close the socket (and the context if this client made it)."""
        if not self._sock.closed:
            self._sock.close()
            if self._own_ctx:
                self._ctx.term()
