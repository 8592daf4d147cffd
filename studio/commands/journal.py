"""`studio journal verify PATH`: check a journal's hash chain.

Exit status 0 with a one-line `OK: ...` summary when every record checks out, 1 with a `BAD: ...`
line naming the first bad record when anything was edited, inserted or deleted, and 2 (through
`studio.cli`) when the file is missing or is not a readable journal.
"""

from __future__ import annotations

import argparse
from typing import Any

from studio.journal import Journal, verify


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the `journal` command and its `verify` action to the `studio` parser."""
    parser = subparsers.add_parser("journal", help="inspect a table's journal")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    check = actions.add_parser(
        "verify", help="check the hash chain; exit 1 naming the first bad record"
    )
    check.add_argument("path", metavar="PATH", help="the journal file")
    check.set_defaults(run=run_verify)


def run_verify(args: argparse.Namespace) -> int:
    """Verify the journal at `args.path`; print one line; return 0 (sound) or 1 (damaged).

    Raises `JournalError` (exit status 2) for a missing or unreadable file.
    """
    with Journal(args.path, readonly=True) as journal:
        report = verify(journal)
    print(f"{args.path}: {report.summary()}")
    return 0 if report.ok else 1
