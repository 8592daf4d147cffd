"""Bring a PostgreSQL database to the archive's newest schema, one versioned SQL file at a time.

The files are `migrations/NNNN_name.sql`, applied in the order of NNNN, each in its own
transaction together with its row in `archive_migration`, under an advisory lock so that two
archives (or an archive and the jackpot) starting together apply each file once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

import psycopg
from psycopg.rows import TupleRow

from studio.errors import InputError

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
_LOCK = 0x5354_5544  # any constant: the advisory lock every migrator takes


@dataclass(frozen=True)
class Migration:
    """One SQL file: its version, its name and its text."""

    version: int
    name: str
    sql: str


def migrations(package: str = "studio.archive") -> list[Migration]:
    """Every migration shipped with the package, in version order.

    Raises InputError on a misnamed file or a repeated version (a packaging mistake).
    """
    found: dict[int, Migration] = {}
    for entry in resources.files(package).joinpath("migrations").iterdir():
        if not entry.name.endswith(".sql"):
            continue
        match = _NAME.match(entry.name)
        if match is None:
            raise InputError(f"migration file {entry.name!r} is not named NNNN_name.sql")
        version = int(match.group(1))
        if version in found:
            raise InputError(f"two migrations have version {version}")
        found[version] = Migration(version, match.group(2), entry.read_text(encoding="utf-8"))
    return [found[v] for v in sorted(found)]


def migrate(conn: psycopg.Connection[TupleRow], package: str = "studio.archive") -> list[int]:
    """Apply every migration of `package` the database lacks; return the versions applied now.

    Each package (the archive, the jackpot) keeps its own numbering in `archive_migration`.
    """
    applied: list[int] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS archive_migration ("
            " component text NOT NULL, version integer NOT NULL, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (component, version))"
        )
        rows = conn.execute(
            "SELECT version FROM archive_migration WHERE component = %s", (package,)
        ).fetchall()
        done = {int(row[0]) for row in rows}
        for migration in migrations(package):
            if migration.version in done:
                continue
            conn.execute(migration.sql.encode())
            conn.execute(
                "INSERT INTO archive_migration (component, version, name) VALUES (%s, %s, %s)",
                (package, migration.version, migration.name),
            )
            applied.append(migration.version)
    return applied
