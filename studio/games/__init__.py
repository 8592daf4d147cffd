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
from studio.terms import GAME_NAMES, GAME_TERMS, BetTerm, GameTerms, WindowTerm

__all__ = [
    "GAMES",
    "GameRules",
    "Judgement",
    "Resolution",
    "decision_paths",
    "game_terms",
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

GAMES: tuple[str, ...] = GAME_NAMES
"""The games' names, in the order `studio.terms.GAME_TERMS` lists them (checked below)."""


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


def game_terms() -> dict[str, GameTerms]:
    """Every game's names as its rules give them (what `studio.terms.GAME_TERMS` must say).

    Its variants, and the bets and decision windows of its `live` variant.
    """
    terms: dict[str, GameTerms] = {}
    for game, (names, _, _) in _REGISTRY.items():
        rules = get_rules(game)
        terms[game] = GameTerms(
            names,
            tuple(BetTerm(bet.name, bet.placed) for bet in rules.bets),
            tuple(WindowTerm(window.name, window.options) for window in rules.windows),
        )
    return terms


# The command line's help lists the games' names from `studio.terms` without building the rules:
# a rule change that renames, adds or moves a bet, a window or a variant must change them too.
if game_terms() != GAME_TERMS or tuple(GAME_TERMS) != tuple(_REGISTRY):
    raise RuntimeError("studio.terms.GAME_TERMS differs from the games' rules: update it")
