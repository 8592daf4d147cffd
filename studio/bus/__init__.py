"""The table's ZeroMQ bus: event streams, replay for lossless consumers, authenticated commands.

- `EventPublisher`: the public and restricted streams (topics `<table>.<type>`, heartbeats).
- `ReplayService` / `ReplayClient` / `EventSource`: "events from sequence N" and the snapshot.
- `Subscriber`: every event exactly once, in order, whatever the streams drop.
- `CommandChannel` / `CommandClient`: commands checked against the sender's key's role.
- `StreamProxy`: many tables' streams behind one endpoint.
- `AllowList`, `KeyPair`, `ServerSecurity`: CURVE keys and the allow-list of client keys.

The wire formats are in `docs/streams.md` and the module docstrings of `wire`, `replay` and
`commands`.

The names above are loaded on first use (PEP 562,
by `lazy_loader` from the names in `__init__.pyi`): importing one module of the package (the
default endpoints of `studio.bus.defaults`, say) does not import ZeroMQ, pydantic and every
message model with it, so a command's `--help` starts at once.
"""

import lazy_loader

# The stub beside this file is the one list of public names: the type checker reads it as the
# package's interface, and `attach_stub` imports each name from its module on first use.
__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
