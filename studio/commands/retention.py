"""`studio retention export|import --archive DSN ...`: old rounds out to files and back.

`export --older-than-days N --dir DIR` writes every table's events of rounds opened more than N
days ago to `DIR/T-FIRST-LAST.jsonl.gz` with a `.sha256` beside it and removes them from the
archive; `import --file FILE ...` checks each file against its recorded hash and chain and
restores its rows exactly (a table's newest export first). See `studio.archive.retention`.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from studio.errors import InputError


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the `retention` command to the `studio` parser."""
    parser = subparsers.add_parser("retention", help="export old rounds from the archive, or back")
    parser.add_argument("action", choices=("export", "import"))
    parser.add_argument("--archive", required=True, metavar="DSN", help="the archive")
    parser.add_argument("--older-than-days", type=float, help="export: the age to keep")
    parser.add_argument("--dir", type=Path, help="export: where the files go")
    parser.add_argument(
        "--file", dest="files", action="append", default=[], type=Path, metavar="FILE",
        help="import: an exported file (repeat)",
    )  # fmt: skip
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Export or import; print one line per file; return 0."""
    # Imported here, not above: `studio retention --help` need not load PostgreSQL's driver.
    import psycopg

    from studio.archive.migrate import migrate
    from studio.archive.retention import export_before, import_file

    try:
        conn = psycopg.connect(args.archive, autocommit=True)
    except psycopg.OperationalError as exc:
        raise InputError(f"cannot open the archive: {str(exc).strip()}") from exc
    with conn:
        migrate(conn)
        if args.action == "export":
            if args.older_than_days is None or args.dir is None or args.older_than_days < 0:
                raise InputError("export needs --older-than-days N (N >= 0) and --dir DIR")
            cutoff = datetime.now(UTC) - timedelta(days=args.older_than_days)
            for done in export_before(conn, cutoff, args.dir):
                print(
                    f"{done.path}: {done.table} seq {done.first_seq}-{done.last_seq} {done.sha256}"
                )
        else:
            if not args.files:
                raise InputError("import needs the files to import")
            for path in args.files:
                done = import_file(conn, path)
                print(f"{path}: {done.table} seq {done.first_seq}-{done.last_seq} restored")
    return 0
