"""CURVE + ZAP on real sockets: who may read, replay and command, decided by key and role."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import pytest
import zmq
from test_bus_support import (  # noqa: F401  (fixtures are used by name)
    Keys,
    TableRig,
    drain,
    keys_fixture,
    mixed_events,
    no_leaks,
)

from studio.bus import (
    COMMAND_ROLES,
    AllowList,
    CommandChannel,
    CommandClient,
    CommandDecision,
    CommandRequest,
    ReplayClient,
    ServerSecurity,
)
from studio.bus.commands import MAX_COMMAND_BYTES
from studio.bus.keys import AllowedKey, unregister_key
from studio.bus.security import secure_client
from studio.bus.wire import parse_frames
from studio.controller.commands import ROLES as CONTROLLER_ROLES
from studio.errors import BusError, BusTimeoutError, KeyFileError
from studio.messages import Command


def _restricted_messages(rig: TableRig, keys: Keys, role: str, seconds: float = 0.6) -> int:
    """How many messages a raw CURVE subscriber with `role`'s key gets in `seconds`."""
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    sock = ctx.socket(zmq.SUB)
    sock.setsockopt(zmq.LINGER, 0)
    secure_client(sock, keys.clients[role], keys.server.public)
    sock.setsockopt(zmq.SUBSCRIBE, b"")
    sock.connect(rig.endpoints["restricted"])
    count = 0
    try:
        deadline = time.monotonic() + seconds
        seq = len(list(rig.source.events_from(1))) + 1
        while time.monotonic() < deadline:
            for event in mixed_events("T1", seq + 2)[seq - 1 :]:
                rig.emit(event)
            seq += 3
            while sock.poll(50):
                parse_frames(sock.recv_multipart())
                count += 1
    finally:
        sock.close()
        ctx.term()
    return count


def test_only_restricted_readers_complete_the_restricted_stream_handshake(keys: Keys) -> None:
    with TableRig(keys, heartbeat=0.1) as rig:
        assert _restricted_messages(rig, keys, "settlement") > 0
        assert _restricted_messages(rig, keys, "stranger") == 0
        # A listed key without the right role is refused at the handshake too.
        assert _restricted_messages(rig, keys, "observer") == 0
        assert _restricted_messages(rig, keys, "dealer") == 0


def test_replay_serves_by_role_and_refuses_strangers(keys: Keys) -> None:
    with TableRig(keys) as rig:
        for event in mixed_events("T1", 6):
            rig.emit(event)
        target = rig.target()
        with ReplayClient(
            target.endpoint, client_keys=keys.clients["settlement"], server_key=target.server_key
        ) as client:
            assert [e.seq for e in client.fetch(2, audience="restricted")] == [2, 3, 4, 5, 6]
            assert client.snapshot() == {"phase": "dealing", "events": 6}
        with ReplayClient(
            target.endpoint, client_keys=keys.clients["observer"], server_key=target.server_key
        ) as client:
            assert [e.seq for e in client.fetch(1)] == [1, 2, 4, 5]
            with pytest.raises(BusError, match="audience"):
                list(client.fetch(1, audience="restricted"))
            with pytest.raises(BusError):
                client.snapshot()
            # What anyone may see is served to every listed key.
            assert client.snapshot(audience="public") == {"phase": "dealing"}
        with (
            ReplayClient(
                target.endpoint,
                client_keys=keys.clients["stranger"],
                server_key=target.server_key,
                timeout=0.5,
            ) as client,
            pytest.raises(BusTimeoutError),
        ):
            list(client.fetch(1))
        # The service survived all of that and still answers garbage with an error.
        ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
        raw = ctx.socket(zmq.DEALER)
        raw.setsockopt(zmq.LINGER, 0)
        secure_client(raw, keys.clients["observer"], keys.server.public)
        raw.connect(target.endpoint)
        try:
            for junk in (b"", b"\xff\xfe", b"[]", b'{"op": "events", "from": -1}', b"x" * 2000):
                raw.send(junk)
                assert raw.poll(3000)
                assert json.loads(raw.recv_multipart()[0])["status"] == "error"
            # true is no sequence number (it was read as 1); 2**64 reached SQLite and came back
            # as the source's OverflowError, with a traceback in the table's log.
            for start in (b"true", str(2**64).encode()):
                raw.send(b'{"op": "events", "from": ' + start + b"}")
                assert raw.poll(3000)
                reply = json.loads(raw.recv_multipart()[0])
                assert (reply["status"], reply["reason"]) == ("error", "unknown request"), start
        finally:
            raw.close()
            ctx.term()


class Controller:
    """Stands in for the runtime: records what it was handed and accepts it."""

    def __init__(self) -> None:
        self.handled: list[CommandRequest] = []
        self.refused: list[tuple[CommandRequest, str]] = []

    def handle(self, request: CommandRequest) -> CommandDecision:
        self.handled.append(request)
        if request.args.note == "bad":
            return CommandDecision(False, "no round to void")
        return CommandDecision(True)

    def on_refused(self, request: CommandRequest, reason: str) -> None:
        self.refused.append((request, reason))


@pytest.fixture
def channel(keys: Keys) -> tuple[CommandChannel, Controller]:
    controller = Controller()
    with CommandChannel(
        "tcp://127.0.0.1:0", controller.handle, keys.security, on_refused=controller.on_refused
    ) as chan:
        yield chan, controller  # type: ignore[misc]


def _client(chan: CommandChannel, keys: Keys, role: str, timeout: float = 3.0) -> CommandClient:
    return CommandClient(chan.endpoint, keys.clients[role], keys.server.public, timeout=timeout)


def test_void_by_a_shift_manager_is_accepted_and_by_a_dealer_refused(
    keys: Keys, channel: tuple[CommandChannel, Controller]
) -> None:
    chan, controller = channel
    with _client(chan, keys, "shift_manager") as manager, _client(chan, keys, "dealer") as dealer:
        reply = manager.send("void", {"note": "misdeal"})
        assert (reply.status, reply.reason) == ("accepted", None)
        refused = dealer.send("void", {"note": "misdeal"})
        assert refused.status == "refused"
        assert refused.reason == "role dealer may not void"
        assert dealer.send("start_round").status == "accepted"
        assert manager.send("void", {"note": "bad"}).reason == "no round to void"
    assert [(r.action, r.actor, r.role) for r in controller.handled] == [
        ("void", "shift_manager", "shift_manager"),
        ("start_round", "dealer", "dealer"),
        ("void", "shift_manager", "shift_manager"),
    ]
    assert [(r.action, r.actor) for r, _ in controller.refused] == [("void", "dealer")]
    command = controller.handled[0].as_input(datetime(2026, 1, 1, tzinfo=UTC))
    assert isinstance(command, Command)
    assert (command.actor, command.role, command.command) == (
        "shift_manager",
        "shift_manager",
        "void",
    )


def test_a_message_claiming_a_role_is_not_believed(
    keys: Keys, channel: tuple[CommandChannel, Controller]
) -> None:
    chan, controller = channel
    with _client(chan, keys, "dealer") as dealer:
        claim = {"id": "c1", "action": "void", "args": {}, "role": "shift_manager"}
        reply = dealer.send_raw(json.dumps(claim).encode())
        assert reply["status"] == "error"
        assert "role" in reply["reason"]
        claim = {"id": "c2", "action": "void", "args": {"actor": "boss"}}
        assert dealer.send_raw(json.dumps(claim).encode())["status"] == "error"
    assert controller.handled == []


def test_malformed_oversized_and_unauthenticated_messages_never_stop_the_channel(
    keys: Keys, channel: tuple[CommandChannel, Controller]
) -> None:
    chan, controller = channel
    with _client(chan, keys, "shift_manager") as manager:
        for junk in (
            b"",
            b"\x00\xff",
            b"null",
            b"[1, 2]",
            b'{"id": "x"}',
            b'{"id": "x", "action": "explode"}',
            b'{"id": "x", "action": "void", "args": {"card": 7}}',
            json.dumps({"id": "x", "action": "void", "args": {"note": "n" * 10_000}}).encode(),
            b"{" * (MAX_COMMAND_BYTES + 1),
        ):
            reply = manager.send_raw(junk)
            assert reply["status"] == "error", junk[:40]
        # Far beyond the socket's limit: libzmq drops the connection; the client's next
        # message reconnects (the handshake is redone) and is served.
        with (
            _client(chan, keys, "shift_manager", timeout=0.5) as big,
            pytest.raises(BusTimeoutError),
        ):
            big.send_raw(b"x" * 200_000)
    with _client(chan, keys, "stranger", timeout=0.5) as stranger, pytest.raises(BusTimeoutError):
        stranger.send("void")
    # A plain (non-CURVE) client cannot even complete the handshake.
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    plain = ctx.socket(zmq.DEALER)
    plain.setsockopt(zmq.LINGER, 0)
    plain.connect(chan.endpoint)
    try:
        plain.send(b'{"id": "p", "action": "void"}')
        assert not plain.poll(500)
    finally:
        plain.close()
        ctx.term()
    with _client(chan, keys, "shift_manager") as manager:
        assert manager.send("resume").status == "accepted"
    assert [r.action for r in controller.handled] == ["resume"]


def test_a_key_removed_from_the_allow_list_has_its_next_command_refused(
    keys: Keys, channel: tuple[CommandChannel, Controller]
) -> None:
    chan, controller = channel
    with _client(chan, keys, "shift_manager") as manager:
        assert manager.send("resume").status == "accepted"
        unregister_key(keys.allow_list_path, "shift_manager")
        # Same connection, already authenticated: the per-message check still refuses it.
        reply = manager.send("void")
        assert (reply.status, reply.reason) == ("refused", "key not on the allow-list")
    assert [r.action for r in controller.handled] == ["resume"]
    with _client(chan, keys, "shift_manager", timeout=0.5) as again, pytest.raises(BusTimeoutError):
        again.send("resume")


def test_an_unreadable_allow_list_refuses_every_key(keys: Keys) -> None:
    allow = AllowList(keys.allow_list_path)
    public = keys.clients["settlement"].public
    assert allow.lookup(public) is not None
    keys.allow_list_path.write_text("{ not json", encoding="utf-8")
    assert allow.lookup(public) is None
    keys.allow_list_path.unlink()
    assert allow.lookup(public) is None
    with pytest.raises(KeyFileError):
        AllowList(keys.allow_list_path)
    with pytest.raises(KeyFileError):
        ServerSecurity(keys.clients["settlement"].__class__(public, None), allow)


def test_an_allow_list_that_is_not_utf8_refuses_every_key_until_repaired(
    keys: Keys, channel: tuple[CommandChannel, Controller]
) -> None:
    # An editor saving in Latin-1 must not kill the handshake handler: that left every later
    # handshake unanswered, even after the file was repaired, and the table unable to stop.
    chan, controller = channel
    good = keys.allow_list_path.read_bytes()
    keys.allow_list_path.write_bytes(good.replace(b'"shift_manager"', b'"shift_manager\xe9"', 1))
    with _client(chan, keys, "shift_manager", timeout=0.5) as late, pytest.raises(BusTimeoutError):
        late.send("resume")
    keys.allow_list_path.write_bytes(good)
    with _client(chan, keys, "shift_manager") as manager:
        assert manager.send("resume").status == "accepted"
    assert [r.action for r in controller.handled] == ["resume"]


def test_a_check_that_fails_refuses_that_handshake_and_not_the_next(keys: Keys) -> None:
    # Any exception in the ZAP callback used to end the authenticator's thread: every later
    # handshake then went unanswered. A failing check must refuse only its own client.
    failing = {keys.clients["dealer"].public}

    def rule(entry: AllowedKey) -> bool:
        if entry.public_key.encode() in failing:
            raise RuntimeError("a rule that breaks")
        return True

    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    security = ServerSecurity(keys.server, AllowList(keys.allow_list_path))
    guard = security.guard(ctx, {"test": rule})
    server = ctx.socket(zmq.REP)
    clients: list[zmq.Socket[bytes]] = []
    try:
        server.setsockopt(zmq.LINGER, 0)
        guard.secure(server, keys.server, "test")
        port = server.bind_to_random_port("tcp://127.0.0.1")

        def ask(role: str) -> bool:
            client = ctx.socket(zmq.REQ)
            clients.append(client)
            client.setsockopt(zmq.LINGER, 0)
            secure_client(client, keys.clients[role], keys.server.public)
            client.connect(f"tcp://127.0.0.1:{port}")
            client.send(b"ping")
            if not server.poll(1500):
                return False
            server.send(server.recv())
            return bool(client.poll(1500)) and client.recv() == b"ping"

        assert not ask("dealer")
        assert ask("shift_manager")
    finally:
        for client in clients:
            client.close()
        server.close()
        # Stopping a dead authenticator waits for it forever: a regression must fail, not hang.
        auth = guard._auth
        if auth is not None and auth.thread.is_alive():
            guard.close()
        ctx.destroy(linger=0)


def test_the_channel_and_the_controller_agree_on_who_may_do_what() -> None:
    assert {k: set(v) for k, v in COMMAND_ROLES.items()} == {
        k: set(v) for k, v in CONTROLLER_ROLES.items()
    }


def test_only_the_documented_frames_are_read_and_nothing_made_up_is_echoed(
    keys: Keys, channel: tuple[CommandChannel, Controller]
) -> None:
    chan, controller = channel
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    raw = ctx.socket(zmq.DEALER)
    raw.setsockopt(zmq.LINGER, 0)
    secure_client(raw, keys.clients["shift_manager"], keys.server.public)
    raw.connect(chan.endpoint)
    command = json.dumps({"id": "f1", "action": "void", "args": {}}).encode()
    try:
        # Three frames: once executed, with the leading frames echoed back to the sender.
        for frames in ([b"other-peer", command], [b"", b"x", command], [b"a", b"b", command]):
            raw.send_multipart(frames)
            assert raw.poll(3000)
            reply = raw.recv_multipart()
            assert len(reply) == 1, reply
            assert json.loads(reply[0])["status"] == "error"
        assert controller.handled == []
        # A REQ socket's delimiter is documented: that command is read and its reply routed.
        raw.send_multipart([b"", command])
        assert raw.poll(3000)
        reply = raw.recv_multipart()
        assert reply[0] == b"" and json.loads(reply[1])["status"] == "accepted"
        assert len(controller.handled) == 1
    finally:
        raw.close()
        ctx.term()


@pytest.mark.parametrize("note", ["a\x00b", "\x1b[2Jcleared", "bell\x07", "c1\x9b"])
def test_control_characters_in_free_text_are_refused(
    keys: Keys, channel: tuple[CommandChannel, Controller], note: str
) -> None:
    chan, controller = channel
    with _client(chan, keys, "shift_manager") as manager:
        reply = manager.send("void", {"note": note})
        assert reply.status == "error" and "control character" in (reply.reason or "")
        # A note in words, over lines, is free text still.
        assert manager.send("void", {"note": "misdeal:\n\tthe dealer dropped a card"}).status == (
            "accepted"
        )
    assert [r.args.note for r in controller.handled] == ["misdeal:\n\tthe dealer dropped a card"]
