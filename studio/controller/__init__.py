"""The table controller: a pure, deterministic state machine from inputs to events.

`TableController(settings).handle(input) -> list[Envelope]` (see `studio.controller.table`).
State is one typed structure (`state`); behaviour is one module of functions per concern:
`dealing` (the round and its script), `timers` (time), `incidents` (faults and device health),
`confirmation` (the camera confirming cards), `commands` (the registry of commands: roles,
checks, applies), `events` (publishing, the public/restricted split), `view` (the `TableView`).
The table's card source is a strategy chosen once: `shoe_source` or `camera_source`.
"""

from __future__ import annotations

from studio.controller.commands import COMMANDS, ROLES
from studio.controller.table import TableController
from studio.messages import TableSettings

__all__ = ["COMMANDS", "ROLES", "TableController", "TableSettings"]
