"""`studio rtp [--json]`: every bet's computed return beside the published figure.

The rows come from `studio.returns` (exact enumerations unless a row says `simulation`). Plain
output is a table with percentages and the difference in percentage points; `--json` prints one
JSON list of rows, returns as fractions (0.9144), with each row's `difference` (computed minus
published, null where nothing is published) and `note` besides the keys of `ReturnRow`. While a
long computation runs, progress shows on stderr: a bar on a terminal, else a line every few
seconds (`studio.commands.progress`).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the `rtp` command to the `studio` parser."""
    parser = subparsers.add_parser(
        "rtp",
        help="compute every bet's return beside the published figure",
        description="Compute every bet's return to player (exact enumeration unless marked "
        "simulation) and print it beside the published figure and the difference.",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON list of rows (returns as fractions)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Compute every row and print them as a table or, with `args.json`, as JSON; return 0."""
    # Imported here: `studio rtp --help` need not load NumPy and the enumerations.
    from studio.commands.rtp_rows import compute_rows, format_table, rows_json

    rows = compute_rows(sys.stderr)
    print(json.dumps(rows_json(rows), indent=2) if args.json else format_table(rows))
    return 0
