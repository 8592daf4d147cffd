"""`studio archive-allow --dsn DSN --table T --key KEYFILE`: allow a table's new key.

The operator's answer to a `key` flag: the archive refuses a table answering with another key
than the one it was archived under (`studio.archive.keys`) until this records the new one; a
running `studio archive` then resumes that table from its stored position, losing nothing.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from studio.errors import InputError


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the `archive-allow` command to the `studio` parser."""
    parser = subparsers.add_parser("archive-allow", help="allow a table's new key in the archive")
    parser.add_argument("--dsn", required=True, help="the archive")
    parser.add_argument("--table", required=True, help="the table")
    parser.add_argument("--key", required=True, type=Path, help="the table's new public key file")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Record the key; return 0."""
    # Imported here, not above: `studio archive-allow --help` need not load PostgreSQL's driver.
    import psycopg

    from studio.archive.keys import allow
    from studio.archive.migrate import migrate
    from studio.bus import KeyPair

    key = KeyPair.load(args.key).public.decode()
    try:
        conn = psycopg.connect(args.dsn, autocommit=True)
    except psycopg.OperationalError as exc:
        raise InputError(f"cannot open the archive: {str(exc).strip()}") from exc
    with conn:
        migrate(conn)
        allow(conn, args.table, key)
    print(f"archive: {args.table} allowed with key {key}")
    return 0
