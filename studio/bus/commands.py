"""The command channel: authenticated commands in, "accepted" or the refusal reason out.

A client (DEALER or REQ) sends one frame of UTF-8 JSON, at most `MAX_COMMAND_BYTES` (a REQ
socket puts its empty delimiter frame before it; any other frame is refused unread, and nothing
but the sender's identity and that delimiter is ever sent back):

    {"id": "c1", "action": "void", "args": {"reason": "misdeal"}}

and gets one frame back: `{"id": "c1", "status": "accepted" | "refused" | "error", "reason": ...}`
("error" for a message the channel cannot read, with `"id": null` when even that is unknown).

Who sends a command is the CURVE key that completed the handshake, read from the message's
User-Id and looked up in the allow-list as the file says *now* (removing a key does not close a
connection already made, so the check is per message). A message's own claims (a "role" field,
say) are refused as unknown fields, never believed. A role allowed to send the action gets the
command handed to the handler (the runtime: controller and journal), whose decision is the reply;
otherwise it is refused here and reported to `on_refused` so it can be journalled with its actor.

A key with the `console` role acts only for a person signed in to it, named in the message:

    {"id": "c2", "action": "call_manager", "relay": {"name": "alice", "role": "dealer"}}

The channel then checks *the person's* role against the action (a dealer relayed by the console
may not void, exactly as a dealer's own key may not) and the actor journalled is
`alice via console` (the console key's name). A `relay` from any other key is refused: only a
key the table lists as a console may speak for someone else, and a console never acts as itself.
"""

from __future__ import annotations

import itertools
import json
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Literal
from uuid import uuid4

import zmq
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from studio.bus.endpoints import ExclusiveBind, bind, connect
from studio.bus.keys import AllowedKey, KeyPair
from studio.bus.security import KeyGuard, ServerSecurity, any_listed, secure_client, user_id
from studio.bus.service import RouterService
from studio.closing import Closing
from studio.controller.commands import ROLES
from studio.errors import BusError, BusTimeoutError
from studio.messages import Command, CommandName, Role

log = logging.getLogger(__name__)

COMMAND_DOMAIN = "commands"
"""The ZAP domain of the command channel: any allow-listed key completes the handshake."""

MAX_COMMAND_BYTES = 4096
"""A command is a few hundred bytes; larger messages are refused before parsing."""

COMMAND_ROLES: Mapping[str, frozenset[Role]] = ROLES
"""Which roles may send each action: the controller's command registry, read, never copied."""


def _printable(text: str) -> str:
    # A NUL or an escape sequence in a note reaches the journal, the logs and every screen
    # that shows the command: free text is printable text (a new line or tab included).
    bad = [c for c in text if (ord(c) < 32 and c not in "\t\n") or 127 <= ord(c) < 160]
    if bad:
        raise ValueError(f"control character {bad[0]!r} refused in free text")
    return text


PrintableText = Annotated[str, AfterValidator(_printable)]
"""A string with no control character but tab and new line."""


class CommandArgs(BaseModel):
    """A command's arguments: those `studio.messages.Command` takes, checked by the controller."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    position: PrintableText | None = Field(default=None, max_length=32)
    card: PrintableText | None = Field(default=None, max_length=8)
    note: PrintableText = Field(default="", max_length=500)


class RelayedPerson(BaseModel):
    """The person a console key acts for: their sign-in name and their role."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")
    role: Role


class CommandMessage(BaseModel):
    """A command as a client sends it; unknown fields (claims of identity or role) are refused.

    `relay` is honoured only from a `console` key (see the module docstring).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    id: PrintableText = Field(min_length=1, max_length=64)
    action: CommandName
    args: CommandArgs = CommandArgs()
    relay: RelayedPerson | None = None


@dataclass(frozen=True)
class CommandRequest:
    """An authenticated command: what was asked and who (by key) asked it."""

    request_id: str
    action: CommandName
    args: CommandArgs
    actor: str
    role: Role
    public_key: str

    def as_input(self, ts: datetime) -> Command:
        """The controller input for this command at time `ts` (UTC), actor and role from the key."""
        return Command(
            ts=ts,
            actor=self.actor,
            role=self.role,
            command=self.action,
            position=self.args.position,
            card=self.args.card,
            note=self.args.note,
        )


@dataclass(frozen=True)
class CommandDecision:
    """The answer to a command: accepted, or refused with the reason the sender is shown."""

    accepted: bool
    reason: str | None = None


CommandHandler = Callable[[CommandRequest], CommandDecision]
"""Receives each role-checked command (from the channel's thread) and decides it."""

RefusalListener = Callable[[CommandRequest, str], None]
"""Told of each command the channel refused by role, with the reason, to journal it."""


class CommandChannel(RouterService):
    """Serve the table's command channel (ROUTER, CURVE) from its own thread until `close()`.

    `handler` and `on_refused` are called from that thread; an exception in either is logged
    and answered as an error, never stops the channel. Context manager; `close()` idempotent.
    """

    def __init__(
        self,
        endpoint: str,
        handler: CommandHandler,
        security: ServerSecurity,
        *,
        on_refused: RefusalListener | None = None,
        permissions: Mapping[str, frozenset[Role]] = COMMAND_ROLES,
    ) -> None:
        """Bind `endpoint` and start serving; raises EndpointInUseError or BusError on bind."""
        self._handler = handler
        self._on_refused = on_refused
        self._permissions = permissions
        self._security = security
        self._stop = threading.Event()
        self._ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
        self._claims: list[ExclusiveBind] = []
        self._guard: KeyGuard | None = None
        self._sock = self._ctx.socket(zmq.ROUTER)
        self._thread: threading.Thread | None = None
        try:
            self._sock.setsockopt(zmq.LINGER, 0)
            self._sock.setsockopt(zmq.ROUTER_MANDATORY, 1)
            # libzmq drops the peer of a message this large before it is ever read.
            self._sock.setsockopt(zmq.MAXMSGSIZE, MAX_COMMAND_BYTES * 16)
            self._guard = security.guard(self._ctx, {COMMAND_DOMAIN: any_listed})
            self._guard.secure(self._sock, security.server_keys, COMMAND_DOMAIN)
            self._claims.append(bind(self._sock, endpoint))
        except BaseException:
            self._teardown()
            raise
        self._serve_in_background("command-channel")

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                if not self._sock.poll(50):
                    continue
                frames = self._sock.recv_multipart(copy=False)
            except zmq.ZMQError:
                log.exception("command channel receive failed")
                continue
            route = [f.bytes for f in frames[:-1]]
            try:
                if not _documented(route):
                    # Never echo frames a client made up: they could address another peer.
                    route = route[:1]
                    reply = {
                        "id": None,
                        "status": "error",
                        "reason": "a command is one frame (after a REQ socket's empty delimiter)",
                    }
                else:
                    reply = self._decide(frames[-1])
            except Exception:
                log.exception("command handling failed")
                reply = {"id": None, "status": "error", "reason": "internal error"}
            try:
                self._sock.send_multipart([*route, json.dumps(reply).encode()])
            except zmq.ZMQError as err:
                log.warning("command reply not delivered: %s", err)

    def _decide(self, frame: zmq.Frame) -> dict[str, Any]:
        """The reply to one received message frame."""
        user = user_id(frame)
        entry = self._security.allow_list.lookup(user) if user else None
        if entry is None:
            log.warning("command from a key not on the allow-list (%s) refused", user)
            return {"id": None, "status": "refused", "reason": "key not on the allow-list"}
        raw = frame.bytes
        if len(raw) > MAX_COMMAND_BYTES:
            return {"id": None, "status": "error", "reason": "message too large"}
        try:
            message = CommandMessage.model_validate_json(raw)
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "message"
            return {"id": None, "status": "error", "reason": f"malformed: {where}: {first['msg']}"}
        request = self._request(entry, message)
        if isinstance(request, str):
            log.warning("command from %s refused: %s", entry.name, request)
            return {"id": message.id, "status": "refused", "reason": request}
        if message.relay is not None and entry.role != "console":
            reason = f"{entry.name} is not a console: it may not act for another person"
            self._refuse(request, reason)
            return {"id": message.id, "status": "refused", "reason": reason}
        allowed = self._permissions.get(message.action)
        if allowed is None or request.role not in allowed:
            reason = (
                f"unknown action {message.action!r}"
                if allowed is None
                else f"role {request.role} may not {message.action}"
            )
            self._refuse(request, reason)
            return {"id": message.id, "status": "refused", "reason": reason}
        decision = self._handler(request)
        status = "accepted" if decision.accepted else "refused"
        return {"id": message.id, "status": status, "reason": decision.reason}

    @staticmethod
    def _request(entry: AllowedKey, message: CommandMessage) -> CommandRequest | str:
        """Who asks, by key (or, from a console, the person it relays); else why nobody does."""
        if entry.role == "console":
            if message.relay is None:
                return "a console acts only for a signed-in person (relay)"
            actor, role = f"{message.relay.name} via {entry.name}", message.relay.role
        else:
            actor, role = entry.name, entry.role
        return CommandRequest(
            request_id=message.id,
            action=message.action,
            args=message.args,
            actor=actor,
            role=role,
            public_key=entry.public_key,
        )

    def _refuse(self, request: CommandRequest, reason: str) -> None:
        if self._on_refused is not None:
            try:
                self._on_refused(request, reason)
            except Exception:
                log.exception("on_refused listener failed")


def _documented(route: list[bytes]) -> bool:
    """Whether the frames before a command are the documented ones.

    Those are a DEALER's identity, or a REQ's identity and empty delimiter; anything else is not
    read.
    """
    return len(route) == 1 or (len(route) == 2 and route[1] == b"")


CommandStatus = Literal["accepted", "refused", "error"]


@dataclass(frozen=True)
class CommandReply:
    """The channel's answer to one command."""

    status: CommandStatus
    reason: str | None


class CommandClient(Closing):
    """Send commands to a table's command channel with a CURVE key (context manager).

    A key the channel does not admit never completes the handshake: `send` then raises
    BusTimeoutError.
    """

    def __init__(
        self, endpoint: str, client_keys: KeyPair, server_key: bytes, *, timeout: float = 3.0
    ) -> None:
        """Connect to `endpoint` as `client_keys` (no I/O until the first command)."""
        self._ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
        self._timeout_ms = int(timeout * 1000)
        self._ids = itertools.count()
        self._prefix = uuid4().hex[:8]
        self._sock = self._ctx.socket(zmq.DEALER)
        self._sock.setsockopt(zmq.LINGER, 0)
        try:
            secure_client(self._sock, client_keys, server_key)
            connect(self._sock, endpoint)
        except BaseException:
            self.close()
            raise

    def send_raw(self, payload: bytes) -> dict[str, Any]:
        """Send `payload` as is and return the reply object (for tests and diagnostics).

        Raises BusTimeoutError when no reply comes in time.
        """
        self._sock.send(payload)
        if not self._sock.poll(self._timeout_ms):
            raise BusTimeoutError("the command channel did not answer in time")
        reply = json.loads(self._sock.recv())
        if not isinstance(reply, dict):
            raise BusError("unreadable command reply")
        return reply

    def send(
        self,
        action: str,
        args: Mapping[str, str | None] | None = None,
        *,
        relay: RelayedPerson | None = None,
    ) -> CommandReply:
        """Send one command (for `relay`, from a console key) and wait for its answer.

        Raises BusTimeoutError or BusError.
        """
        rid = f"{self._prefix}-{next(self._ids)}"
        message: dict[str, Any] = {"id": rid, "action": action, "args": dict(args or {})}
        if relay is not None:
            message["relay"] = relay.model_dump()
        payload = json.dumps(message)
        deadline_polls = 3
        reply = self.send_raw(payload.encode())
        # A reply to an earlier command that timed out may still be queued: skip it.
        while reply.get("id") not in (rid, None) and deadline_polls:
            deadline_polls -= 1
            if not self._sock.poll(self._timeout_ms):
                raise BusTimeoutError("the command channel did not answer in time")
            reply = json.loads(self._sock.recv())
        status = reply.get("status")
        if status not in ("accepted", "refused", "error"):
            raise BusError(f"unreadable command reply: {reply!r}")
        reason = reply.get("reason")
        return CommandReply(status, reason if isinstance(reason, str) else None)

    def close(self) -> None:
        """Close the socket and its context."""
        if not self._sock.closed:
            self._sock.close()
            self._ctx.term()
