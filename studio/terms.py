"""The table's terms as plain names: roles, commands, devices and card sources.

Each is a `Literal`, the one place its names are written; the message models
(`studio.messages`), the key files (`studio.bus.keys`) and the controller's registries
(`studio.controller.commands.COMMANDS`, `studio.controller.table.SOURCES`, each checked equal to
its names here) use them. This module imports nothing but `typing`, so the command line lists
these names in its help without building the message models or loading ZeroMQ.
"""

from __future__ import annotations

from typing import Literal, get_args

Role = Literal["dealer", "shift_manager", "settlement", "observer"]
"""The roles a command can carry; the bus authenticates them, the controller checks them."""

KeyRole = Role | Literal["console"]
"""A key's role: a person's role, or `console`, the key of a console that relays for people."""

PERSON_ROLES: tuple[Role, ...] = get_args(Role)
"""The roles a person has (a console relays for one of these, never for another console)."""

ROLES: tuple[KeyRole, ...] = (*PERSON_ROLES, "console")
"""Every role a key may have, in the order the help lists them."""

CommandName = Literal[
    "start_round",
    "call_manager",
    "resume",
    "correct_card",
    "discard_last_card",
    "rescan",
    "cancel_rescan",
    "acknowledge_device",
    "acknowledge_alarm",
    "void",
    "new_deck",
    "check_integrity",
]
"""Every command the controller knows."""

Device = Literal["shoe", "camera"]
"""The devices a table has: the card shoe (always) and the camera (when the table has one)."""

CardSourceName = Literal["shoe", "camera"]
"""Where a round's cards come from (`TableSettings.card_source`)."""
