"""The games the table runs, as rule data plus pure judgement and settlement functions.

`get_rules(game, variant, **options)` is the one way to look a game up by name.
"""

from __future__ import annotations

from collections.abc import Callable

from studio.errors import ConfigurationError
from studio.games import caribbean_stud, ultimate_holdem
from studio.games.model import GameRules

_REGISTRY: dict[str, tuple[tuple[str, ...], Callable[..., GameRules]]] = {
    caribbean_stud.GAME: (("live", "classic"), caribbean_stud.rules),
    ultimate_holdem.GAME: (("live",), ultimate_holdem.rules),
}

GAMES: tuple[str, ...] = tuple(_REGISTRY)


def variants(game: str) -> tuple[str, ...]:
    """The variant names of `game`; raises `ConfigurationError` for an unknown game."""
    try:
        return _REGISTRY[game][0]
    except KeyError:
        raise ConfigurationError(
            f"unknown game {game!r} (expected one of {', '.join(GAMES)})"
        ) from None


def get_rules(game: str, variant: str = "live", **options: str) -> GameRules:
    """The rules of `game`'s `variant` with table options (Caribbean Stud's `procedure`).

    Raises `ConfigurationError` for an unknown game, variant or option.
    """
    names = variants(game)
    if variant not in names:
        raise ConfigurationError(
            f"unknown variant {variant!r} of {game} (expected one of {', '.join(names)})"
        )
    try:
        return _REGISTRY[game][1](variant, **options)
    except (TypeError, ValueError) as err:
        raise ConfigurationError(f"bad options {options!r} for {game}: {err}") from err
