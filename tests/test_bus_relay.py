"""The command channel's relay: only a `console` key speaks for a person, and the person's role
is what the channel checks; the actor is `NAME via CONSOLE` (real CURVE sockets on loopback)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_bus_support import no_leaks  # noqa: F401  (the fixture is used by name)

from studio.bus.commands import (
    CommandChannel,
    CommandClient,
    CommandDecision,
    CommandRequest,
    RelayedPerson,
)
from studio.bus.keys import AllowList, KeyPair, register_key
from studio.bus.security import ServerSecurity


@pytest.fixture(name="setup")
def setup_fixture(tmp_path: Path):  # type: ignore[no-untyped-def]
    server = KeyPair.generate()
    allow = tmp_path / "allow_list.json"
    keys = {name: KeyPair.generate() for name in ("console", "dealer", "manager")}
    register_key(allow, "console", "console", keys["console"].public)
    register_key(allow, "dealer", "dealer", keys["dealer"].public)
    register_key(allow, "manager", "shift_manager", keys["manager"].public)
    handled: list[CommandRequest] = []
    refused: list[tuple[CommandRequest, str]] = []

    def handle(request: CommandRequest) -> CommandDecision:
        handled.append(request)
        return CommandDecision(True)

    with CommandChannel(
        "tcp://127.0.0.1:0",
        handle,
        ServerSecurity(server, AllowList(allow)),
        on_refused=lambda r, why: refused.append((r, why)),
    ) as channel:
        yield channel, server, keys, handled, refused


def _send(setup, key: str, action: str, relay: RelayedPerson | None):  # type: ignore[no-untyped-def]
    channel, server, keys, _, _ = setup
    with CommandClient(channel.endpoint, keys[key], server.public) as client:
        return client.send(action, {"note": "why"}, relay=relay)


def test_the_console_relays_a_manager_and_the_actor_names_them(setup) -> None:  # type: ignore[no-untyped-def]
    reply = _send(setup, "console", "void", RelayedPerson(name="alice", role="shift_manager"))
    assert reply.status == "accepted"
    handled = setup[3]
    assert [(r.actor, r.role, r.action) for r in handled] == [
        ("alice via console", "shift_manager", "void")
    ]


def test_a_relayed_dealer_may_call_the_manager_but_never_void(setup) -> None:  # type: ignore[no-untyped-def]
    bob = RelayedPerson(name="bob", role="dealer")
    assert _send(setup, "console", "call_manager", bob).status == "accepted"
    refused = _send(setup, "console", "void", bob)
    assert (refused.status, refused.reason) == ("refused", "role dealer may not void")
    # Journalled with the person as the actor, as the table's own refusals are.
    assert [(r.actor, why) for r, why in setup[4]] == [
        ("bob via console", "role dealer may not void")
    ]


def test_only_a_console_key_may_relay_and_a_console_never_acts_as_itself(setup) -> None:  # type: ignore[no-untyped-def]
    claim = _send(setup, "dealer", "void", RelayedPerson(name="mallory", role="shift_manager"))
    assert claim.status == "refused"
    assert claim.reason == "dealer is not a console: it may not act for another person"
    bare = _send(setup, "console", "call_manager", None)
    assert (bare.status, bare.reason) == (
        "refused",
        "a console acts only for a signed-in person (relay)",
    )
    assert setup[3] == []  # nothing reached the table's handler
