"""How the `studio` command logs: one line per record, plain or JSON, to stderr or a file.

Only the command line configures handlers (`configure`); every module logs through
`logging.getLogger(__name__)`. The table a process runs says which table, round and event the
process is at (`log_context`), and every record carries them: `table`, `game_number` and `seq`
(None until known). One process runs at most one table, so the context is one per process and
threads (the shoe and camera readers) see it too.

- plain (the default, for a person at a terminal):
  `2026-12-04 23:32:49,121 WARNING studio.runtime.table [T01 T01-20261204-2332 #45]: message`,
  with a traceback folded onto the same line (` | ` between its lines);
- JSON (`--log-format json`, for a log shipper): one object per line with `ts`, `level`,
  `logger`, `message`, `table`, `game_number`, `seq` and, for an error, `exc_info`.

This module imports nothing heavy: every command, `studio --version` included, loads it.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from studio.errors import ConfigurationError

LogFormat = Literal["plain", "json"]
LOG_FORMATS: tuple[LogFormat, ...] = ("plain", "json")
CONTEXT_FIELDS = ("table", "game_number", "seq")
"""The attributes every record gets from the process's `log_context`."""


@dataclass(slots=True)
class LogContext:
    """Where the process's table is: its id, the round in play and the last event's sequence."""

    table: str | None = None
    game_number: str | None = None
    seq: int | None = None


log_context = LogContext()
"""The process's one context; the table runtime updates it after every input."""


def set_log_context(
    table: str | None = None, game_number: str | None = None, seq: int | None = None
) -> None:
    """Set what every following record says of the table (`table` None keeps the table)."""
    if table is not None:
        log_context.table = table
    log_context.game_number = game_number
    log_context.seq = seq


class ContextFilter(logging.Filter):
    """Adds `table`, `game_number` and `seq` to every record (a record's own `extra` wins)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Copy the context onto `record`; never drops it."""
        for name in CONTEXT_FIELDS:
            if not hasattr(record, name):
                setattr(record, name, getattr(log_context, name))
        return True


class PlainFormatter(logging.Formatter):
    """One line per record for a person: time, level, logger, `[table game #seq]`, message."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s%(where)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        """The record on one line; a traceback's lines are joined with ` | `."""
        seq = getattr(record, "seq", None)
        parts = [
            str(value)
            for value in (
                getattr(record, "table", None),
                getattr(record, "game_number", None),
                None if seq is None else f"#{seq}",
            )
            if value is not None
        ]
        record.where = f" [{' '.join(parts)}]" if parts else ""
        return " | ".join(line for line in super().format(record).splitlines() if line.strip())


def _json_formatter() -> logging.Formatter:
    # python-json-logger, imported only when asked for: most commands never log in JSON.
    from pythonjsonlogger.json import JsonFormatter

    return JsonFormatter(
        "{asctime}{levelname}{name}{message}{table}{game_number}{seq}",
        style="{",
        rename_fields={"asctime": "ts", "levelname": "level", "name": "logger"},
    )


def configure(level: int, *, log_format: LogFormat = "plain", file: Path | None = None) -> None:
    """Send every record at `level` or above to stderr (or appended to `file`) as `log_format`.

    Replaces handlers set before (a test calling `main` twice). Raises `ConfigurationError`
    when `file` cannot be opened for appending.
    """
    handler: logging.Handler
    if file is None:
        handler = logging.StreamHandler(sys.stderr)
    else:
        try:
            handler = logging.FileHandler(file, encoding="utf-8")
        except OSError as err:
            raise ConfigurationError(
                f"--log-file {file}: cannot open: {err.strerror or err}"
            ) from err
    handler.addFilter(ContextFilter())
    handler.setFormatter(_json_formatter() if log_format == "json" else PlainFormatter())
    logging.basicConfig(level=level, handlers=[handler], force=True)
