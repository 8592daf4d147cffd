"""The archive side of `studio recall --archive DSN (GAME_NUMBER | --table T --last N)`."""

from __future__ import annotations

import psycopg

from studio.archive import recall
from studio.errors import InputError
from studio.journal.recall import RecalledRound


def archive_rounds(
    dsn: str, game_number: str | None, table: str | None, last: int | None
) -> list[RecalledRound]:
    """The rounds asked for, from the archive; InputError for `--last` without `--table`."""
    if last is not None and table is None:
        raise InputError("--archive with --last needs --table T")
    try:
        conn = psycopg.connect(dsn)
    except psycopg.OperationalError as exc:
        raise InputError(f"cannot open the archive: {str(exc).strip()}") from exc
    with conn:
        try:
            if last is not None and table is not None:
                return recall.recall_last(conn, table, last)
            assert game_number is not None  # argparse: one of GAME_NUMBER or --last
            return [recall.recall_round(conn, game_number)]
        except psycopg.errors.UndefinedTable as exc:
            raise InputError(f"{dsn}: not a studio archive (run `studio archive` once)") from exc
