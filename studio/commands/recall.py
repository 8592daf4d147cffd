"""`studio recall (--journal PATH | --archive DSN) (GAME_NUMBER | --last N) [--json]`: rounds.

With `--archive` the rounds come from the studio archive in PostgreSQL (`--last` then needs
`--table T`), through the same rendering, so the output is the same as the journal's.

Every round is rebuilt from the journal's stored events (cards by position, timings, windows,
incidents, commands with their actors, result). `--json` prints a JSON list of rounds in the shape
`studio.journal.recall` documents, a contract other tools read. An unknown round or a missing
journal ends with one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from studio.journal.recall import RecalledRound


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the `recall` command to the `studio` parser."""
    parser = subparsers.add_parser("recall", help="print whole rounds from a table's journal")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--journal", metavar="PATH", help="the journal file")
    source.add_argument("--archive", metavar="DSN", help="the studio archive (PostgreSQL)")
    parser.add_argument("--table", help="with --archive and --last: the table")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("game_number", nargs="?", metavar="GAME_NUMBER", help="one round")
    which.add_argument("--last", type=int, metavar="N", help="the last N rounds, oldest first")
    parser.add_argument("--json", action="store_true", help="print a JSON list of rounds")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the requested rounds; return 0.

    Raises `JournalError` for a missing or unreadable journal and `InputError` for an unknown
    round or a bad count (exit status 2).
    """
    # Imported here, not above: `studio recall --help` loads no journal, no PostgreSQL.
    from studio.commands.recall_archive import archive_rounds
    from studio.journal.recall import format_round

    if args.archive is not None:
        rounds = archive_rounds(args.archive, args.game_number, args.table, args.last)
    else:
        rounds = _journal_rounds(args)
    if args.json:
        print(json.dumps(rounds, indent=2))
    else:
        print("\n\n".join(format_round(r) for r in rounds))
    return 0


def _journal_rounds(args: argparse.Namespace) -> list[RecalledRound]:
    # Imported here, not above: `studio recall --help` loads no journal, no PostgreSQL.
    from studio.journal import Journal
    from studio.journal.recall import recall_last, recall_round

    with Journal(args.journal, readonly=True) as journal, journal.reading():
        if args.last is not None:
            rounds = recall_last(journal, args.last)
        else:
            rounds = [recall_round(journal, args.game_number)]
    return rounds
