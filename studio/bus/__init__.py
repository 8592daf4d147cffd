"""The table's ZeroMQ bus: event streams, replay for lossless consumers, authenticated commands.

- `EventPublisher`: the public and restricted streams (topics `<table>.<type>`, heartbeats).
- `ReplayService` / `ReplayClient` / `EventSource`: "events from sequence N" and the snapshot.
- `Subscriber`: every event exactly once, in order, whatever the streams drop.
- `CommandChannel` / `CommandClient`: commands checked against the sender's key's role.
- `StreamProxy`: many tables' streams behind one endpoint.
- `AllowList`, `KeyPair`, `ServerSecurity`: CURVE keys and the allow-list of client keys.

The wire formats are in `docs/streams.md` and the module docstrings of `wire`, `replay` and
`commands`.

The names above are loaded on first use (PEP 562): importing one module of the package (the
default endpoints of `studio.bus.defaults`, say) does not import ZeroMQ, pydantic and every
message model with it, so a command's `--help` starts at once.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from studio.bus.commands import (
        COMMAND_ROLES,
        CommandChannel,
        CommandClient,
        CommandDecision,
        CommandReply,
        CommandRequest,
    )
    from studio.bus.keys import RESTRICTED_READERS, ROLES, AllowList, KeyPair
    from studio.bus.proxy import StreamProxy
    from studio.bus.publisher import EventPublisher, StreamName
    from studio.bus.replay import EventSource, ReplayClient, ReplayService
    from studio.bus.security import ServerSecurity
    from studio.bus.subscriber import ReplayTarget, Subscriber
    from studio.bus.wire import EnvelopeLike, WireEvent

_HOMES: dict[str, str] = {
    "COMMAND_ROLES": "commands",
    "CommandChannel": "commands",
    "CommandClient": "commands",
    "CommandDecision": "commands",
    "CommandReply": "commands",
    "CommandRequest": "commands",
    "RESTRICTED_READERS": "keys",
    "ROLES": "keys",
    "AllowList": "keys",
    "KeyPair": "keys",
    "StreamProxy": "proxy",
    "EventPublisher": "publisher",
    "StreamName": "publisher",
    "EventSource": "replay",
    "ReplayClient": "replay",
    "ReplayService": "replay",
    "ServerSecurity": "security",
    "ReplayTarget": "subscriber",
    "Subscriber": "subscriber",
    "EnvelopeLike": "wire",
    "WireEvent": "wire",
}
"""Each public name -> the module of the package that defines it (the imports above are the same
names for the type checker; a test holds the three lists equal)."""

__all__ = [
    "COMMAND_ROLES",
    "RESTRICTED_READERS",
    "ROLES",
    "AllowList",
    "CommandChannel",
    "CommandClient",
    "CommandDecision",
    "CommandReply",
    "CommandRequest",
    "EnvelopeLike",
    "EventPublisher",
    "EventSource",
    "KeyPair",
    "ReplayClient",
    "ReplayService",
    "ReplayTarget",
    "ServerSecurity",
    "StreamName",
    "StreamProxy",
    "Subscriber",
    "WireEvent",
]


def __getattr__(name: str) -> Any:
    """Import the module that defines `name` on first use; raises AttributeError otherwise."""
    module = _HOMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    """The module's names, the lazily loaded ones included."""
    return sorted({*globals(), *_HOMES})
