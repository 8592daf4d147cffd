"""The games the table runs, as rule data plus pure judgement and settlement functions.

`get_rules(game, variant, **options)` is the one way to look a game up by name;
`judge(rules, cards)` is the one way to judge a round's cards (see `studio.games.judgement`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from studio.cards import Card
from studio.errors import ConfigurationError
from studio.games import caribbean_stud, ultimate_holdem
from studio.games.judgement import Judgement, Resolution, decision_paths, jackpot_review
from studio.games.limits import with_limits
from studio.games.model import GameRules

__all__ = [
    "GAMES",
    "GameRules",
    "Judgement",
    "Resolution",
    "decision_paths",
    "get_rules",
    "jackpot_review",
    "judge",
    "variants",
    "with_limits",
]

Judge = Callable[[GameRules, Mapping[str, Card]], Judgement]

_REGISTRY: dict[str, tuple[tuple[str, ...], Callable[..., GameRules], Judge]] = {
    caribbean_stud.GAME: (("live", "classic"), caribbean_stud.rules, caribbean_stud.judge),
    ultimate_holdem.GAME: (("live",), ultimate_holdem.rules, ultimate_holdem.judge),
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


def judge(rules: GameRules, cards: Mapping[str, Card]) -> Judgement:
    """Judge one round: each side's hand, the qualifier, side bets and every decision path.

    `cards` maps every position name of `rules.positions` to its card. Raises `CardError` for a
    missing position, an unknown position or a card given twice, and `ConfigurationError` for
    rules of a game that is not registered.
    """
    variants(rules.game)  # raises ConfigurationError for an unregistered game
    return _REGISTRY[rules.game][2](rules, cards)
