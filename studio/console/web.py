"""`ConsoleServer`: the aiohttp application behind `studio console`.

Pages: `/signin`, `/` (the overview of every table; a dealer goes to their display),
`/dealer/TABLE`, `/table/TABLE`, `/table/TABLE/recall`, and `/table/TABLE/crop/INCIDENT` (the
camera's JPEG of an incident's zone, for roles that read restricted events only). Live updates go
over WebSockets (`/ws/dealer/TABLE`: `DealerDisplay`, public view only; `/ws/table/TABLE`:
`TableDetail`; `/ws/console`: every `TableSummary`), pushed on every change and once a second
(a slow browser gets the latest state when it is ready, never a backlog). Actions are POSTs of
JSON (`/table/TABLE/command`, `/table/TABLE/acknowledge`) carrying the session's CSRF token and a
one-time nonce from `/api/nonce`; the console relays a command to the table with its `console`
key naming the person, and the table alone decides (its answer is the reply). An acknowledgement
is the table's `acknowledge_alarm` command, relayed the same way; once the table accepts it the
alarm's escalation stops. Every relayed action is appended to the console's journal (JSON lines).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import socket
import struct
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any, get_args
from urllib.parse import urlencode

from aiohttp import WSCloseCode, WSMsgType, web

from studio.bus.commands import CommandClient, RelayedPerson
from studio.bus.keys import RESTRICTED_READERS, KeyPair
from studio.console import pages
from studio.console.alarms import AlarmPolicy, WebhookSender
from studio.console.auth import COOKIE, NonceBook, Session, SessionCodec, SignInLimiter, monotonic
from studio.console.display import RecallPage, dealer_display, table_detail, table_summary
from studio.console.link import TableAddress, TableLink, TableState
from studio.console.users import UserDirectory
from studio.errors import StudioError
from studio.messages import CommandName

log = logging.getLogger(__name__)

ACTIONS: frozenset[str] = frozenset(get_args(CommandName))
"""The actions a person may ask the console to relay (the table decides whether they may)."""

ACKNOWLEDGERS = frozenset({"shift_manager"})
"""Who may acknowledge an alarm: refused here at once for others (the table refuses them too)."""

PUSH_SECONDS = 1.0
"""How often every screen is refreshed even without an event (ages, alarms, escalation)."""

STALL_SECONDS = 5.0
"""A screen whose connection has taken none of what was sent for this long is dropped: its
browser reconnects and starts again from the table as it is then (see `_backed_up`)."""

SCREEN_SEND_BUFFER = 16 * 1024
"""The kernel's send buffer of each screen's connection: frames are a few kB, and without a cap
the kernel grows it to megabytes for a browser that takes nothing (see `_backed_up`)."""

SESSION_KEY: web.RequestKey[Session | None] = web.RequestKey("session", Session)


@dataclass(frozen=True)
class ConsoleSettings:
    """How the console runs: session length, webhook, escalation, where it journals."""

    session_seconds: int = 8 * 3600
    webhook: str | None = None
    escalate_seconds: float = 300.0
    journal: Path | None = None
    command_timeout: float = 3.0
    link_timeout: float = 1.0


@dataclass
class _Socket:
    ws: web.WebSocketResponse
    session: Session
    channel: str
    transport: asyncio.BaseTransport | None
    busy: bool = False
    dirty: bool = False
    stalled_since: float | None = None


class ConsoleServer:
    """The console for `addresses` (see the module docstring); `app()` builds the application.

    The links to the tables start with the application and stop with it.
    """

    def __init__(
        self,
        addresses: list[TableAddress],
        keys: KeyPair,
        users: UserDirectory,
        secret: bytes,
        settings: ConsoleSettings = ConsoleSettings(),
        *,
        clock: Callable[[], float] = monotonic,
    ) -> None:
        """Serve `addresses` with the console's CURVE `keys`; sign people in against `users`."""
        self.addresses = {a.table: a for a in addresses}
        self.keys = keys
        self.users = users
        self.settings = settings
        self.sessions = SessionCodec(secret, settings.session_seconds)
        self.nonces = NonceBook()
        self.limiter = SignInLimiter()
        self.alarms = AlarmPolicy(escalate_seconds=settings.escalate_seconds)
        self.webhook = WebhookSender(settings.webhook) if settings.webhook else None
        self._clock = clock
        self._links: dict[str, TableLink] = {}
        self._states: dict[str, TableState] = {
            t: TableState(t, False, None, None, None) for t in self.addresses
        }
        self._sockets: list[_Socket] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pusher: asyncio.Task[None] | None = None
        self._sending: set[asyncio.Task[Any]] = set()

    # -- application ----------------------------------------------------------------------------

    def app(self) -> web.Application:
        """The aiohttp application (its startup connects to the tables)."""
        app = web.Application(middlewares=[self._guard], client_max_size=16 * 1024)
        static = resources.files("studio.console") / "static"
        app.router.add_get("/signin", self._signin_page)
        app.router.add_post("/signin", self._signin)
        app.router.add_post("/signout", self._signout)
        app.router.add_get("/", self._overview)
        app.router.add_get("/dealer/{table}", self._dealer)
        app.router.add_get("/table/{table}", self._table)
        app.router.add_get("/table/{table}/crop/{incident}", self._crop)
        app.router.add_get("/table/{table}/recall", self._recall)
        app.router.add_get("/api/nonce", self._nonce)
        app.router.add_post("/table/{table}/command", self._command)
        app.router.add_post("/table/{table}/acknowledge", self._acknowledge)
        app.router.add_get("/ws/dealer/{table}", self._ws_dealer)
        app.router.add_get("/ws/table/{table}", self._ws_table)
        app.router.add_get("/ws/console", self._ws_console)
        app.router.add_static("/static", Path(str(static)))
        app.router.add_get("/favicon.ico", _no_icon)
        app.on_startup.append(self._start)
        app.on_shutdown.append(self._close_sockets)
        app.on_cleanup.append(self._stop)
        return app

    async def _start(self, app: web.Application) -> None:
        self._loop = asyncio.get_running_loop()
        for table, address in self.addresses.items():
            self._links[table] = TableLink(
                address, self.keys, self._from_link, timeout=self.settings.link_timeout
            )
        self._pusher = asyncio.create_task(self._push_forever())

    async def _close_sockets(self, app: web.Application) -> None:
        for sock in list(self._sockets):
            await sock.ws.close()

    async def _stop(self, app: web.Application) -> None:
        if self._pusher is not None:
            self._pusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pusher
        links, self._links = list(self._links.values()), {}
        await asyncio.gather(*(asyncio.to_thread(link.close) for link in links))
        if self._sending:
            await asyncio.gather(*self._sending, return_exceptions=True)
        if self.webhook is not None:
            await self.webhook.close()

    # -- sessions and checks --------------------------------------------------------------------

    @web.middleware
    async def _guard(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        check = self.sessions.read(request.cookies.get(COOKIE))
        session = check.session
        if session is not None and self.users.role_of(session.name) != session.role:
            session = None  # Removed from the user file, or given another role: sign in again.
        request[SESSION_KEY] = session
        open_paths = ("/signin", "/static/", "/favicon.ico")
        if session is None and not request.path.startswith(open_paths):
            if request.method == "GET" and not request.path.startswith(("/ws/", "/api/")):
                why = "expired" if check.problem and "expired" in check.problem else ""
                raise web.HTTPSeeOther(f"/signin?{urlencode({'next': request.path, 'why': why})}")
            return _refuse(401, check.problem or "sign in first")
        response = await handler(request)
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'",
        )
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response

    @staticmethod
    def _session(request: web.Request) -> Session:
        session = request[SESSION_KEY]
        if session is None:
            raise web.HTTPUnauthorized(text="sign in first")
        return session

    @staticmethod
    def _same_site(request: web.Request) -> bool:
        """Whether the request comes from this console's own pages (not another site)."""
        origin = request.headers.get("Origin")
        if request.headers.get("Sec-Fetch-Site") in ("cross-site", "same-site"):
            return False
        return origin is None or origin == f"{request.scheme}://{request.host}"

    async def _checked_action(self, request: web.Request) -> tuple[Session, dict[str, Any]]:
        """The session and JSON body of an action that passed every check; else an HTTP error."""
        session = self._session(request)
        if not self._same_site(request):
            raise _refusal(403, "cross-site request refused")
        try:
            body = await request.json()
        except ValueError as err:
            raise _refusal(400, "the request is not JSON") from err
        if not isinstance(body, dict):
            raise _refusal(400, "the request is not a JSON object")
        token = body.get("csrf")
        if not isinstance(token, str) or not secrets.compare_digest(token, session.csrf):
            raise _refusal(403, "missing or wrong CSRF token")
        nonce = body.get("nonce")
        if not isinstance(nonce, str) or not self.nonces.spend(nonce, session, self._clock()):
            raise _refusal(409, "this request was already sent or has expired: try again")
        return session, body

    def _table_id(self, request: web.Request) -> str:
        table = request.match_info["table"]
        if table not in self.addresses:
            raise web.HTTPNotFound(text=f"no table {table} here")
        return table

    # -- pages ----------------------------------------------------------------------------------

    async def _signin_page(self, request: web.Request) -> web.Response:
        why = request.query.get("why", "")
        message = "Your session has expired: sign in again." if why == "expired" else ""
        return _html(pages.sign_in(message, _next(request.query.get("next"))))

    async def _signin(self, request: web.Request) -> web.Response:
        form = await request.post()
        name, password = str(form.get("name", "")), str(form.get("password", ""))
        next_url = _next(str(form.get("next", "/")))
        if not self._same_site(request):
            return _html(pages.sign_in("Cross-site sign-in refused.", next_url), status=403)
        keys = (f"ip:{request.remote}", f"name:{name}")
        wait = self.limiter.wait(keys, self._clock())
        if wait > 0:
            text = f"Too many sign-in attempts: try again in {int(wait) + 1} s."
            return _html(pages.sign_in(text, next_url), status=429)
        user = await asyncio.to_thread(self.users.verify, name, password)
        if user is None:
            self.limiter.failed(keys, self._clock())
            self._journal(name[:64], "sign_in_refused", None, {"from": request.remote})
            return _html(pages.sign_in("Wrong name or password.", next_url), status=401)
        self.limiter.succeeded(keys)
        cookie, _ = self.sessions.issue(user.name, user.role)
        home = next_url if next_url != "/" else self._home(user.role)
        response = web.HTTPSeeOther(home)
        response.set_cookie(
            COOKIE,
            cookie,
            max_age=self.settings.session_seconds,
            httponly=True,
            samesite="Strict",
            path="/",
        )
        self._journal(user.name, "signed_in", None, {})
        raise response

    async def _signout(self, request: web.Request) -> web.Response:
        session = self._session(request)
        form = await request.post()
        token = str(form.get("csrf", ""))
        if not self._same_site(request) or not secrets.compare_digest(token, session.csrf):
            return _refuse(403, "cross-site request refused")
        response = web.HTTPSeeOther("/signin")
        response.del_cookie(COOKIE, path="/")
        raise response

    def _home(self, role: str) -> str:
        first = next(iter(self.addresses))
        return f"/dealer/{first}" if role == "dealer" else "/"

    async def _overview(self, request: web.Request) -> web.Response:
        session = self._session(request)
        if session.role == "dealer":
            raise web.HTTPSeeOther(self._home(session.role))
        return _html(pages.overview(session.name, session.role, session.csrf))

    async def _dealer(self, request: web.Request) -> web.Response:
        session, table = self._session(request), self._table_id(request)
        may_call = session.role in ("dealer", "shift_manager")
        return _html(pages.dealer(table, session.name, session.role, session.csrf, may_call))

    async def _table(self, request: web.Request) -> web.Response:
        session, table = self._session(request), self._table_id(request)
        return _html(pages.table(table, session.name, session.role, session.csrf))

    async def _recall(self, request: web.Request) -> web.Response:
        session, table = self._session(request), self._table_id(request)
        link = self._links.get(table)
        rounds = tuple(link.book.rounds) if link else ()
        counts = dict(link.book.counts) if link else {}
        restricted = session.role in RESTRICTED_READERS
        page = RecallPage(table=table, restricted=restricted, rounds=rounds, counts=counts)
        return _html(pages.recall(page, session.name, session.role, session.csrf))

    async def _crop(self, request: web.Request) -> web.Response:
        # Restricted readers only: the crop may show a face-down card's face.
        session, table = self._session(request), self._table_id(request)
        if session.role not in RESTRICTED_READERS:
            raise web.HTTPForbidden(text=f"role {session.role} may not see the camera's image")
        try:
            crop = self._states[table].crops.get(int(request.match_info["incident"]))
        except ValueError:
            crop = None
        if crop is None:
            raise web.HTTPNotFound(text="no camera image of this incident")
        headers = {"Cache-Control": "private, max-age=600"}
        return web.Response(body=crop.jpeg, content_type="image/jpeg", headers=headers)

    async def _nonce(self, request: web.Request) -> web.Response:
        session = self._session(request)
        return web.json_response({"nonce": self.nonces.issue(session, self._clock())})

    # -- actions --------------------------------------------------------------------------------

    async def _command(self, request: web.Request) -> web.Response:
        table = self._table_id(request)
        session, body = await self._checked_action(request)
        action = body.get("action")
        if action not in ACTIONS:
            return _refuse(400, f"unknown action {action!r}")
        args = {k: body[k] for k in ("position", "card", "note") if isinstance(body.get(k), str)}
        if action == "void" and not args.get("note", "").strip():
            return _refuse(400, "a void needs a reason")
        person = RelayedPerson(name=session.name, role=session.role)
        address = self.addresses[table]
        try:
            reply = await asyncio.to_thread(self._relay, address, str(action), args, person)
        except StudioError as err:
            self._journal(session.name, str(action), table, {**args, "answer": f"error: {err}"})
            return web.json_response({"status": "error", "reason": f"table unreachable: {err}"})
        outcome = {"answer": reply.status, "why": reply.reason}
        self._journal(session.name, str(action), table, {**args, **outcome})
        return web.json_response({"status": reply.status, "reason": reply.reason})

    def _relay(
        self, address: TableAddress, action: str, args: dict[str, str], person: RelayedPerson
    ) -> Any:
        timeout = self.settings.command_timeout
        with CommandClient(address.commands, self.keys, address.server_key, timeout=timeout) as c:
            return c.send(action, args, relay=person)

    async def _acknowledge(self, request: web.Request) -> web.Response:
        table = self._table_id(request)
        session, _ = await self._checked_action(request)
        if session.role not in ACKNOWLEDGERS:
            return _refuse(403, f"role {session.role} may not acknowledge an alarm")
        view = self._states[table].restricted
        incidents = [i.incident for i in view.incidents] if view else []
        # The table journals the acknowledgement with the person as its actor; only once it
        # accepted it does the escalation stop here.
        person = RelayedPerson(name=session.name, role=session.role)
        address = self.addresses[table]
        try:
            reply = await asyncio.to_thread(self._relay, address, "acknowledge_alarm", {}, person)
        except StudioError as err:
            self._journal(session.name, "acknowledge_alarm", table, {"answer": f"error: {err}"})
            return web.json_response({"status": "error", "reason": f"table unreachable: {err}"})
        outcome = {"incidents": incidents, "answer": reply.status, "why": reply.reason}
        self._journal(session.name, "acknowledge_alarm", table, outcome)
        if reply.status == "accepted":
            self.alarms.acknowledge(table)
            self._push_all()
        return web.json_response({"status": reply.status, "reason": reply.reason})

    def _journal(self, actor: str, action: str, table: str | None, data: dict[str, Any]) -> None:
        """Append one line to the console's journal (who did what, when, and the answer)."""
        path = self.settings.journal
        if path is None:
            return
        line: dict[str, Any] = {"ts": datetime.now(UTC).isoformat(), "actor": actor}
        line |= {"action": action, "table": table, **data}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as out:
                out.write(json.dumps(line) + "\n")
                out.flush()
                os.fsync(out.fileno())
        except OSError:
            log.exception("console journal %s not written", path)

    # -- live updates ---------------------------------------------------------------------------

    def _from_link(self, state: TableState) -> None:
        """Called in a link's thread: hand the state to the loop."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._changed, state)

    def _changed(self, state: TableState) -> None:
        self._states[state.table] = state
        if state.acknowledged_by is not None and state.restricted and state.restricted.paused:
            # Acknowledged at the table (by this console or any other client): no escalation.
            self.alarms.acknowledge(state.table)
        self._check_alarms(state)
        self._push_table(state.table)
        self._push_console()

    def _check_alarms(self, state: TableState) -> None:
        if state.restricted is None:
            return
        # Observed with or without a webhook: the policy also ends an acknowledgement when its
        # pause ends, so the table's next pause sounds again on the screens.
        notices = self.alarms.observe(state.restricted, datetime.now(UTC))
        if self.webhook is None:
            return
        for notice in notices:
            task = asyncio.get_running_loop().create_task(self.webhook.send(notice))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    async def _push_forever(self) -> None:
        while True:
            await asyncio.sleep(PUSH_SECONDS)
            for state in self._states.values():
                self._check_alarms(state)
            await self._close_ended_sessions()
            self._push_all()

    async def _close_ended_sessions(self) -> None:
        """Close the live screens of sessions that expired or whose person lost their role."""
        now = time.time()
        for sock in list(self._sockets):
            session = sock.session
            if now >= session.expires or self.users.role_of(session.name) != session.role:
                await sock.ws.close(code=WSCloseCode.POLICY_VIOLATION, message=b"session ended")

    def _push_all(self) -> None:
        for table in self.addresses:
            self._push_table(table)
        self._push_console()

    def _message(self, sock: _Socket) -> str | None:
        kind, _, table = sock.channel.partition(":")
        now = datetime.now(UTC)
        if kind == "dealer":
            state = self._states[table]
            return dealer_display(table, state.public, state.reachable, now).model_dump_json()
        if kind == "table":
            restricted = sock.session.role in RESTRICTED_READERS
            acknowledged = self.alarms.acknowledged(table)
            return table_detail(self._states[table], restricted, acknowledged).model_dump_json()
        rows = [table_summary(s, now, self.alarms.acknowledged(t)) for t, s in self._states.items()]
        rows.sort(key=lambda r: (not r.paused, r.table))
        return json.dumps({"tables": [r.model_dump(mode="json") for r in rows]})

    def _push_table(self, table: str) -> None:
        for sock in self._sockets:
            if sock.channel in (f"dealer:{table}", f"table:{table}"):
                self._send(sock)

    def _push_console(self) -> None:
        for sock in self._sockets:
            if sock.channel == "console":
                self._send(sock)

    def _send(self, sock: _Socket) -> None:
        # A browser that reads slowly gets the latest state when it is ready, never a backlog:
        # while one frame is on its way, later changes only mark the socket to be sent again.
        if sock.busy:
            sock.dirty = True
            return
        sock.busy = True
        task = asyncio.get_running_loop().create_task(self._drain(sock))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    def _backed_up(self, sock: _Socket) -> bool:
        """Whether the browser has not yet taken what was sent (nothing more is written then).

        What a screen is sent waits in the kernel's buffers and, once those are full, in the
        transport: the console writes nothing more to it until it is taken (the next push then
        sends the state as it is by then), so a slow browser holds at most one frame here. One
        that takes nothing for `STALL_SECONDS` is cut off (its page reconnects by itself and
        starts from a fresh state), so it never holds a connection's buffers for good.
        """
        transport = sock.transport
        if not isinstance(transport, asyncio.WriteTransport):
            return False
        if transport.get_write_buffer_size() == 0:
            sock.stalled_since = None
            return False
        now = time.monotonic()
        if sock.stalled_since is None:
            sock.stalled_since = now
        elif now - sock.stalled_since >= STALL_SECONDS:
            log.info("a %s screen took nothing for %.0f s: dropped", sock.channel, STALL_SECONDS)
            _reset(transport)
        return True

    async def _drain(self, sock: _Socket) -> None:
        try:
            sock.dirty = True
            while sock.dirty and not sock.ws.closed:
                if self._backed_up(sock):
                    return  # still dirty: a later push sends the state as it is then
                sock.dirty = False
                text = self._message(sock)
                if text is not None:
                    with contextlib.suppress(ConnectionError, RuntimeError):
                        await sock.ws.send_str(text)
        finally:
            sock.busy = False

    async def _websocket(self, request: web.Request, channel: str) -> web.WebSocketResponse:
        session = self._session(request)
        if not self._same_site(request):
            raise _refusal(403, "cross-site WebSocket refused")
        ws = web.WebSocketResponse(heartbeat=10.0, max_msg_size=4096)
        await ws.prepare(request)
        raw = request.transport.get_extra_info("socket") if request.transport else None
        if raw is not None:
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SCREEN_SEND_BUFFER)
        sock = _Socket(ws, session, channel, request.transport)
        self._sockets.append(sock)
        try:
            self._send(sock)
            async for message in ws:
                if message.type == WSMsgType.ERROR:
                    break
        finally:
            self._sockets.remove(sock)
            if ws.close_code == WSCloseCode.ABNORMAL_CLOSURE and request.transport is not None:
                _reset(request.transport)  # no answer to a ping: the browser is gone or stuck
        return ws

    async def _ws_dealer(self, request: web.Request) -> web.WebSocketResponse:
        table = self._table_id(request)
        session = self._session(request)
        link = self._links.get(table)
        if link is not None and session.role == "dealer":
            link.book.dealer = session.name  # the dealer on duty, for the shift's counts
        return await self._websocket(request, f"dealer:{table}")

    async def _ws_table(self, request: web.Request) -> web.WebSocketResponse:
        return await self._websocket(request, f"table:{self._table_id(request)}")

    async def _ws_console(self, request: web.Request) -> web.WebSocketResponse:
        return await self._websocket(request, "console")


def _reset(transport: asyncio.BaseTransport) -> None:
    """Drop a connection with a reset, not a FIN queued behind data nobody takes.

    The kernel then frees the connection's buffers at once, and the browser learns at once that
    it must reconnect.
    """
    raw = transport.get_extra_info("socket")
    if raw is not None:
        with contextlib.suppress(OSError):
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    if isinstance(transport, asyncio.WriteTransport):
        transport.abort()
    else:
        transport.close()


async def _no_icon(request: web.Request) -> web.Response:
    return web.Response(status=204)


def _html(text: str, status: int = 200) -> web.Response:
    return web.Response(text=text, status=status, content_type="text/html")


def _refuse(status: int, reason: str) -> web.Response:
    return web.json_response({"status": "refused", "reason": reason}, status=status)


def _refusal(status: int, reason: str) -> web.HTTPException:
    error = web.HTTPException(
        text=json.dumps({"status": "refused", "reason": reason}), content_type="application/json"
    )
    error.set_status(status)
    return error


def _next(url: str | None) -> str:
    """A safe place to go after sign-in: a path on this console, never another site."""
    if not url or not url.startswith("/") or url.startswith("//") or "\\" in url:
        return "/"
    return url
