"""The error tree of the `studio` package.

Every error a user can cause (a bad card code, an illegal bet, a malformed request) derives from
`StudioError`, so the command line can print one clear line instead of a traceback.
"""


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
