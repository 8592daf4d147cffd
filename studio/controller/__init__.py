"""The table controller: a pure, deterministic state machine from inputs to events.

`TableController(settings).handle(input) -> list[Envelope]` (see `studio.controller.table`).
Its modules: `state` (the records), `core` (events, time, faults, the script),
`hardware` (cards, camera, device health), `commands` (each command's check and apply), `table`
(inputs, the public API, the snapshot).
"""

from __future__ import annotations

from studio.controller.commands import ROLES
from studio.controller.table import TableController
from studio.messages import TableSettings

__all__ = ["ROLES", "TableController", "TableSettings"]
