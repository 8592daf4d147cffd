"""Deck tables: how a barcode or an RFID tag names a card.

A barcode table maps the text of a barcode line to a card. Two tables are built in and chosen by
name: `cards` (the canonical code itself, `AS`, `TD`) and `numeric` (four digits, suit 01..04 in
the order clubs, diamonds, hearts, spades, then rank 02..14 with the ace 14: `0414` is the ace of
spades). Any other table is a JSON file (`{"schema_version": 1, "codes": {"X1": "AS", ...}}`).

An RFID deck registration maps tag ids (upper-case hex) to cards; `studio shoe enroll` writes it
after reading a whole deck, and a shoe reader refuses tags that it does not list.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from drivers.errors import DriverConfigurationError
from studio.cards import DECK, Card
from studio.errors import CardError

SCHEMA_VERSION = 1
"""The version of the barcode-table and deck-registration file formats."""


class BarcodeTable:
    """An immutable map from barcode text to card; unknown text maps to nothing."""

    def __init__(self, name: str, codes: Mapping[str, Card]) -> None:
        """Build a table called `name` from `codes`; raise if two codes name one card."""
        seen: dict[Card, str] = {}
        for code, card in codes.items():
            if card in seen:
                raise DriverConfigurationError(
                    f"barcode table {name!r}: codes {seen[card]!r} and {code!r} both mean {card}"
                )
            seen[card] = code
        self.name = name
        self._codes = dict(codes)
        self._by_card = seen

    def lookup(self, code: str) -> Card | None:
        """Return the card that `code` names, or None when the table does not know it."""
        return self._codes.get(code)

    def code_for(self, card: Card) -> str:
        """Return the barcode text of `card`; raise `DriverConfigurationError` if it has none."""
        try:
            return self._by_card[card]
        except KeyError:
            raise DriverConfigurationError(
                f"barcode table {self.name!r} has no code for {card}"
            ) from None

    @classmethod
    def card_codes(cls) -> BarcodeTable:
        """The table whose codes are the canonical card codes (`AS`, `TD`, `2C`)."""
        return cls("cards", {card.code: card for card in DECK})

    @classmethod
    def numeric(cls) -> BarcodeTable:
        """The four-digit table: two digits of suit (01..04), two of rank (02..14, ace 14)."""
        return cls("numeric", {f"{c.suit + 1:02d}{c.rank + 2:02d}": c for c in DECK})

    @classmethod
    def load(cls, path: Path) -> BarcodeTable:
        """Read a JSON barcode table; raise `DriverConfigurationError` naming what is wrong."""
        try:
            model = _BarcodeFile.model_validate(_read_json(path))
        except (OSError, ValueError) as err:
            raise DriverConfigurationError(f"barcode table {path}: {_one_line(err)}") from err
        return cls(str(path), model.codes)

    @classmethod
    def from_config(cls, spec: str) -> BarcodeTable:
        """Choose a table by configuration string: `cards`, `numeric`, or a path to a JSON file."""
        builtin = _BUILTIN_TABLES.get(spec)
        if builtin is not None:
            return builtin()
        path = Path(spec)
        if path.suffix != ".json":
            raise DriverConfigurationError(
                f"unknown barcode table {spec!r} (expected cards, numeric or a .json file)"
            )
        return cls.load(path)


_BUILTIN_TABLES = {"cards": BarcodeTable.card_codes, "numeric": BarcodeTable.numeric}


def _card(value: object) -> Card:
    if isinstance(value, Card):
        return value
    try:
        return Card.parse(str(value))
    except CardError as err:
        raise ValueError(str(err)) from err


class _BarcodeFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    schema_version: Literal[1]
    codes: dict[str, Card]

    @field_validator("codes", mode="before")
    @classmethod
    def _parse_codes(cls, value: object) -> dict[str, Card]:
        if not isinstance(value, dict):
            raise ValueError("codes must be an object of barcode -> card code")
        return {str(k): _card(v) for k, v in value.items()}


class DeckRegistration(BaseModel):
    """The RFID tags of one physical deck: `tags` maps upper-case hex tag ids to cards.

    Tags and cards are each distinct; files carry `schema_version` and refuse unknown fields.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    schema_version: Literal[1] = 1
    deck_id: str
    tags: dict[str, Card]

    @field_validator("tags", mode="before")
    @classmethod
    def _parse_tags(cls, value: object) -> dict[str, Card]:
        if not isinstance(value, dict):
            raise ValueError("tags must be an object of tag id -> card code")
        tags: dict[str, Card] = {}
        for key, card in value.items():
            tag = str(key).upper()
            if tag in tags:
                raise ValueError(f"tag {tag} is listed twice")
            tags[tag] = _card(card)
        if len(set(tags.values())) != len(tags):
            raise ValueError("a card is registered under two tags")
        return tags

    def lookup(self, tag: str) -> Card | None:
        """Return the card registered under `tag` (hex, any case), or None."""
        return self.tags.get(tag.upper())

    def to_json(self) -> str:
        """Return the registration file's text (cards as canonical codes, tags sorted)."""
        body = {
            "schema_version": self.schema_version,
            "deck_id": self.deck_id,
            "tags": {tag: self.tags[tag].code for tag in sorted(self.tags)},
        }
        return json.dumps(body, indent=2) + "\n"

    def save(self, path: Path) -> None:
        """Write the registration to `path`; raise `DriverConfigurationError` if it cannot."""
        try:
            path.write_text(self.to_json(), encoding="utf-8")
        except OSError as err:
            raise DriverConfigurationError(f"cannot write deck registration {path}: {err}") from err

    @classmethod
    def load(cls, path: Path) -> DeckRegistration:
        """Read a registration file; raise `DriverConfigurationError` naming what is wrong."""
        try:
            return cls.model_validate(_read_json(path))
        except (OSError, ValueError) as err:
            raise DriverConfigurationError(f"deck registration {path}: {_one_line(err)}") from err


def _read_json(path: Path) -> Any:
    """The JSON in `path`; raises ValueError for a key given twice in one object.

    Parsers keep the last of two equal keys: a code or tag listed twice would silently mean
    the second card, and the first card would be lost.
    """

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for key, item in pairs:
            if key in seen:
                raise ValueError(f"{key!r} is listed twice")
            seen[key] = item
        return seen

    return json.loads(path.read_bytes(), object_pairs_hook=unique)


def _one_line(err: Exception) -> str:
    if isinstance(err, ValidationError):
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        return f"{where}: {first['msg']}" if where else str(first["msg"])
    return str(err).splitlines()[0]
