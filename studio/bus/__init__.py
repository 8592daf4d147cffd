"""The table's ZeroMQ bus: event streams, replay for lossless consumers, authenticated commands.

- `EventPublisher`: the public and restricted streams (topics `<table>.<type>`, heartbeats).
- `ReplayService` / `ReplayClient` / `EventSource`: "events from sequence N" and the snapshot.
- `Subscriber`: every event exactly once, in order, whatever the streams drop.
- `CommandChannel` / `CommandClient`: commands checked against the sender's key's role.
- `StreamProxy`: many tables' streams behind one endpoint.
- `AllowList`, `KeyPair`, `ServerSecurity`: CURVE keys and the allow-list of client keys.

The wire formats are in `docs/streams.md` and the module docstrings of `wire`, `replay` and
`commands`.
"""

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
