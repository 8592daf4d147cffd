"""The table's terms as plain names: roles, commands, devices, card sources, games and bets.

Each is a `Literal` or a constant, the one place its names are written; the message models
(`studio.messages`), the key files (`studio.bus.keys`) and the controller's registries
(`studio.controller.commands.COMMANDS`, `studio.controller.table.SOURCES`, each checked equal to
its names here) use them. The games' names (`GAME_TERMS`) are what their rules say
(`studio.games` checks them equal when it is imported, so they cannot drift). This module
imports nothing but `typing`, so the command line lists these names in its help without
building the message models or the game rules, or loading ZeroMQ.
"""

from __future__ import annotations

from typing import Literal, NamedTuple, get_args

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


Procedure = Literal["hidden", "late"]
"""Caribbean Stud's dealing procedures: the dealer's last four cards face down, or dealt late."""

PROCEDURES: tuple[Procedure, ...] = get_args(Procedure)
"""The procedures in the order the help lists them."""


class BetTerm(NamedTuple):
    """A bet's name and how it is placed (`required`, `optional`, `automatic`, `decision`)."""

    name: str
    placed: str


class WindowTerm(NamedTuple):
    """A decision window's name and the options a player has in it."""

    name: str
    options: tuple[str, ...]


class GameTerms(NamedTuple):
    """A game's names: its variants, and the bets and windows of its `live` variant."""

    variants: tuple[str, ...]
    bets: tuple[BetTerm, ...]
    windows: tuple[WindowTerm, ...]


GAME_TERMS: dict[str, GameTerms] = {
    "caribbean-stud": GameTerms(
        ("live", "classic"),
        (
            BetTerm("ante", "required"),
            BetTerm("bonus", "optional"),
            BetTerm("jackpot", "optional"),
            BetTerm("call", "decision"),
        ),
        (WindowTerm("decision", ("call", "fold")),),
    ),
    "ultimate-holdem": GameTerms(
        ("live",),
        (
            BetTerm("ante", "required"),
            BetTerm("blind", "automatic"),
            BetTerm("trips", "optional"),
            BetTerm("play", "decision"),
        ),
        (
            WindowTerm("preflop", ("play4x", "play3x", "check")),
            WindowTerm("flop", ("play2x", "check")),
            WindowTerm("river", ("play1x", "fold")),
        ),
    ),
}
"""Every game the table runs, in the order the help lists them; `studio.games` holds it equal
to the games' rules (`studio.games.game_terms`)."""

GAME_NAMES: tuple[str, ...] = tuple(GAME_TERMS)
"""The games' names (`studio.games.GAMES` is this tuple)."""
