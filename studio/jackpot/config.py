"""The jackpot's configuration: one TOML file with a `[jackpot]` table, validated.

    [jackpot]
    pool = "studio"        # the pool's id in the database
    seed = "10000.00"      # where the pool starts and restarts (currency, exact)
    rate = "1/5"           # the share of each Jackpot bet that feeds the pool (0..1)
    publish = "tcp://127.0.0.1:7730"   # the overlays' stream (loopback or ipc only)
    publish_seconds = 1.0

Unknown keys are refused (a misspelt key silently ignored would run on a default nobody chose).
Errors are `ConfigurationError` naming the key.
"""

from __future__ import annotations

import tomllib
from fractions import Fraction
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from studio.bus.defaults import JACKPOT_ENDPOINT
from studio.errors import ConfigurationError, StudioError
from studio.games.money import parse_amount, whole_cents


class JackpotConfig(BaseModel):
    """The pool's id, seed (read as currency, held in minor units), rate and overlay stream."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pool: str = Field(default="studio", min_length=1)
    seed: int = 0
    rate: Fraction = Fraction(0)
    publish: str = JACKPOT_ENDPOINT
    publish_seconds: float = Field(default=1.0, gt=0)

    @field_validator("seed", mode="before")
    @classmethod
    def _seed_amount(cls, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise ValueError('the seed is an amount such as "10000.00"')
        try:
            seed = parse_amount(str(value), "jackpot seed")
        except StudioError as err:
            raise ValueError(str(err)) from err
        if seed < 0 or not whole_cents(seed):
            raise ValueError("the seed must be a whole number of cents, not negative")
        return int(seed * 100)

    @field_validator("rate", mode="before")
    @classmethod
    def _rate_fraction(cls, value: object) -> Fraction:
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise ValueError('the rate is a fraction as text, such as "1/5" or "0.2"')
        try:
            rate = Fraction(str(value))
        except (ValueError, ZeroDivisionError) as err:
            raise ValueError(f"not a fraction: {value!r}") from err
        if not 0 <= rate <= 1:
            raise ValueError("the rate must be from 0 to 1")
        return rate

    @field_validator("publish")
    @classmethod
    def _loopback(cls, value: str) -> str:
        host = value.removeprefix("tcp://").rpartition(":")[0]
        if not (value.startswith("ipc://") or host in ("127.0.0.1", "[::1]", "localhost")):
            raise ValueError("the jackpot stream binds loopback (tcp://127.0.0.1:PORT) or ipc only")
        return value


def load_jackpot_config(path: str | Path | None) -> JackpotConfig:
    """The `[jackpot]` table of the TOML file at `path` (None: the defaults)."""
    data: object = {}
    if path is not None:
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8")).get("jackpot", {})
        except OSError as err:
            raise ConfigurationError(f"cannot read config {path}: {err.strerror}") from err
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
            raise ConfigurationError(f"config {path} is not valid TOML: {err}") from err
    try:
        return JackpotConfig.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        cause = first.get("ctx", {}).get("error") if first["type"] == "value_error" else None
        message = str(cause) if cause is not None else first["msg"]
        raise ConfigurationError(f"config jackpot.{where}: {message}") from err
