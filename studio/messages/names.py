"""The strings events carry, as types: card codes, position names, games and their decisions.

Each type validates in Python and has a named definition in the JSON Schema (`$defs/CardCode`,
`$defs/Position`, ...), so a consumer in another language refuses what no table sends. The
enumerations are read from the games' rule data (`studio.games`), never written out again here:
a new game or variant extends them by being registered.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any

from pydantic import GetPydanticSchema
from pydantic_core import core_schema

from studio.games import GAMES, decision_paths, get_rules, variants
from studio.games.judgement import OUTCOMES
from studio.games.model import GameRules
from studio.hands import Category

CARD_CODE_PATTERN = "^[2-9TJQKA][CDHS]$"
"""A canonical card code: rank 2-9, T, J, Q, K or A, then suit C, D, H or S (`AS`, `TD`, `2C`)."""


def _unique(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


def _all_rules() -> tuple[GameRules, ...]:
    # Table options (Caribbean Stud's procedure) change the script's faces, never the names.
    return tuple(get_rules(game, variant) for game in GAMES for variant in variants(game))


_RULES = _all_rules()

POSITIONS: tuple[str, ...] = _unique(p for rules in _RULES for p in rules.positions)
"""Every position name of every game, in rule order (`player-1`, ..., `turn`, `river`)."""

VARIANTS: tuple[str, ...] = _unique(rules.variant for rules in _RULES)
"""Every variant name of every game."""

WINDOWS: tuple[str, ...] = _unique(w.name for rules in _RULES for w in rules.windows)
"""Every decision window's name (`decision`, `preflop`, `flop`, `river`)."""

DECISIONS: tuple[str, ...] = _unique(
    o for rules in _RULES for w in rules.windows for o in w.options
)
"""Every option a decision window offers (`call`, `fold`, `play4x`, `check`, ...)."""

PATHS: tuple[str, ...] = _unique(p for rules in _RULES for p in decision_paths(rules))
"""Every complete decision path (`call`, `check/play2x`, ...): the keys of a judgement's paths."""

BETS: tuple[str, ...] = _unique(b.name for rules in _RULES for b in rules.bets)
"""Every bet name (`ante`, `bonus`, `jackpot`, `call`, `blind`, `trips`, `play`)."""

CATEGORIES: tuple[str, ...] = tuple(c.slug for c in Category)
"""Every hand category's slug, low to high (`high-card` .. `royal-flush`)."""

RATIO_PATTERN = "^[0-9]+/[1-9][0-9]*$"
"""A per-unit figure that is not whole, as an exact fraction string (`5/2`)."""


def _named(name: str, description: str, inner: core_schema.CoreSchema) -> GetPydanticSchema:
    """Validation by `inner`, with its JSON Schema as the definition `$defs/<name>`."""

    def build(_source: Any, _handler: Any) -> core_schema.CoreSchema:
        # A `ref` makes pydantic put the schema in `$defs` once and point every use at it;
        # `pydantic_js_updates` (pydantic >= 2.10) names the definition for readers.
        schema: dict[str, Any] = {
            **inner,
            "ref": name,
            "metadata": {"pydantic_js_updates": {"title": name, "description": description}},
        }
        return schema

    return GetPydanticSchema(build)


def _one_of(name: str, description: str, values: tuple[str, ...]) -> GetPydanticSchema:
    return _named(name, description, core_schema.literal_schema(list(values)))


CardCode = Annotated[
    str,
    _named(
        "CardCode",
        "A canonical card code: rank (2-9, T, J, Q, K, A) then suit (C, D, H, S), e.g. AS, TD.",
        core_schema.str_schema(pattern=CARD_CODE_PATTERN),
    ),
]
"""A canonical two-character card code (`studio.cards.Card.code`)."""

Position = Annotated[str, _one_of("Position", "A position name of one of the games.", POSITIONS)]
"""A position name of any registered game (see `POSITIONS`)."""

GameName = Annotated[str, _one_of("GameName", "A game the table runs.", GAMES)]
"""A registered game's name (`caribbean-stud`, `ultimate-holdem`)."""

VariantName = Annotated[str, _one_of("VariantName", "A variant of one of the games.", VARIANTS)]
"""A variant name of any registered game."""

WindowName = Annotated[
    str, _one_of("WindowName", "A decision window of one of the games.", WINDOWS)
]
"""A decision window's name."""

Decision = Annotated[str, _one_of("Decision", "An option of a decision window.", DECISIONS)]
"""An option a decision window offers."""

PathName = Annotated[
    str, _one_of("PathName", "A complete decision path, choices joined by '/'.", PATHS)
]
"""A complete decision path, the players' choices in window order joined by `/`."""

BetName = Annotated[str, _one_of("BetName", "A bet of one of the games.", BETS)]
"""A bet's name."""

CategoryName = Annotated[str, _one_of("CategoryName", "A poker hand category's slug.", CATEGORIES)]
"""A hand category's slug."""

OutcomeName = Annotated[str, _one_of("Outcome", "How a bet ends.", OUTCOMES)]
"""How a bet ends: win, lose, push or refund."""
