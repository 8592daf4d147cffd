"""The error tree of the `studio` package.

Every error a user can cause (a bad card code, an illegal bet, a malformed request) derives from
`StudioError`, so the command line can print one clear line instead of a traceback.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class StudioError(Exception):
    """Root of every error raised by the studio package."""


class ConfigurationError(StudioError):
    """A table, game or variant configuration is invalid or unknown."""


class InputError(StudioError):
    """Input from outside (a card code, a request line, an argument) cannot be understood."""


class CardError(InputError):
    """A card code is unknown, or a set of cards is impossible (a duplicate card)."""


class RuleError(StudioError):
    """A request breaks the game's rules: an unknown bet, an illegal decision, a limit exceeded."""


class JournalError(StudioError):
    """A journal cannot be opened or written, is damaged, or disagrees with its own replay."""


class ReplayMismatchError(JournalError):
    """Replaying a journal's inputs rebuilt events that differ from the events it stored."""


class BusError(StudioError):
    """The message bus cannot bind, connect, send or receive as its contract requires."""


class EndpointInUseError(BusError):
    """An endpoint is already bound by another socket (a second bind would silently steal it)."""


class AudienceError(BusError):
    """An event was offered to a stream its audience forbids (a restricted event to public)."""


class BusTimeoutError(BusError):
    """A request on the bus (replay, command) got no reply in time."""


class KeyFileError(ConfigurationError):
    """A CURVE key file or the allow-list of client keys is missing, malformed or inconsistent."""


class SimulationError(StudioError):
    """A simulated table met what its simulated staff cannot handle (a simulation bug).

    A refused command or a round that stopped moving means the simulation or the controller is
    wrong, never the user.
    """


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`" (did you mean X?)"` naming the choice nearest `word`, or "" when none is near.

    For the one-line errors a misspelt name gets (a config key, a subcommand, a bet): the
    nearness is difflib's ratio, the same measure `get_close_matches` uses.
    """
    near = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {near[0]}?)" if near else ""
