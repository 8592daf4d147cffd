"""`studio report --archive DSN --from WHEN --to WHEN [--json | --csv]`: rounds, voids, incidents.

Per table and per dealer, for the rounds opened in [--from, --to) (ISO 8601; a time without a
zone is UTC): text for people, one JSON object, or CSV (one row per table or dealer, a column
per incident kind seen). See `studio.archive.report` for what counts as a round's dealer.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from studio.errors import InputError

if TYPE_CHECKING:
    from studio.archive.report import Line, Report


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the `report` command to the `studio` parser."""
    parser = subparsers.add_parser(
        "report", help="rounds, voids and incidents per table and dealer, from the archive"
    )
    parser.add_argument("--archive", required=True, metavar="DSN", help="the archive")
    parser.add_argument("--from", dest="start", required=True, help="ISO 8601 start (inclusive)")
    parser.add_argument("--to", dest="end", required=True, help="ISO 8601 end (exclusive)")
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="one JSON object")
    form.add_argument("--csv", action="store_true", help="CSV, one row per table or dealer")
    parser.set_defaults(run=run)


def when(text: str, what: str) -> datetime:
    """An ISO 8601 time, UTC when it names no zone; InputError otherwise."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as err:
        raise InputError(
            f"{what} wants an ISO 8601 time such as 2026-12-03T00:00, got {text!r}"
        ) from err
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def run(args: argparse.Namespace) -> int:
    """Print the report; return 0."""
    # Imported here, not above: `studio report --help` need not load PostgreSQL's driver.
    import psycopg

    from studio.archive.report import rounds_between, summarise

    start, end = when(args.start, "--from"), when(args.end, "--to")
    if end <= start:
        raise InputError("--to must be after --from")
    try:
        conn = psycopg.connect(args.archive)
    except psycopg.OperationalError as exc:
        raise InputError(f"cannot open the archive: {str(exc).strip()}") from exc
    with conn:
        try:
            report = summarise(start, end, rounds_between(conn, start, end))
        except psycopg.errors.UndefinedTable as exc:
            raise InputError(f"{args.archive}: not a studio archive") from exc
    if args.json:
        print(json.dumps(as_json(report)))
    elif args.csv:
        write_csv(report)
    else:
        print(as_text(report))
    return 0


def _line_json(line: Line) -> dict[str, Any]:
    return {
        "key": line.key,
        "rounds": line.rounds,
        "voids": line.voids,
        "incidents": dict(sorted(line.incidents.items())),
    }


def as_json(report: Report) -> dict[str, Any]:
    """The report as JSON types: its period, then per table and per dealer."""
    return {
        "from": report.start.isoformat(),
        "to": report.end.isoformat(),
        "tables": [_line_json(line) for line in report.tables],
        "dealers": [_line_json(line) for line in report.dealers],
    }


def write_csv(report: Report) -> None:
    """One header row, then a row per table and per dealer (`by` says which)."""
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["by", "key", "rounds", "voids", *(f"incidents_{k}" for k in report.kinds)])
    for by, lines in (("table", report.tables), ("dealer", report.dealers)):
        for line in lines:
            counts = [line.incidents[k] for k in report.kinds]
            out.writerow([by, line.key, line.rounds, line.voids, *counts])


def as_text(report: Report) -> str:
    """Two small tables for people."""
    text = [f"rounds opened from {report.start.isoformat()} to {report.end.isoformat()}"]
    for title, lines in (("table", report.tables), ("dealer", report.dealers)):
        text.append(f"{'by ' + title:<16}{'rounds':>8}{'voids':>7}  incidents")
        for line in lines:
            kinds = ", ".join(f"{k} {n}" for k, n in sorted(line.incidents.items())) or "none"
            text.append(f"{line.key:<16}{line.rounds:>8}{line.voids:>7}  {kinds}")
        if not lines:
            text.append("(no rounds)")
    return "\n".join(text)
