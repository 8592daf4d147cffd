"""`studio archive --dsn DSN --stream ENDPOINT --table T=REPLAY[,KEYFILE] ...`: archive every table.

Follows the tables' stream (one table's, or `studio proxy`'s frontend carrying many) with the
lossless `Subscriber` and stores every event in PostgreSQL exactly once, keyed by (table, seq)
(see `studio.archive`). `--key` is this archive's client key (an observer key archives the public
stream; a settlement key with `--restricted` and `--stream-key` the full stream, where any jump
in seq is flagged as a gap). Each `--table` names a table, its replay service and optionally
the table's public key file (for CURVE; a table whose key is not the one it was first archived
under is refused until `studio archive-allow` allows it). Every `--status` seconds it prints
one line per table: the last stored seq and how far behind the table's clock it is. Runs until
SIGINT or SIGTERM.
"""

from __future__ import annotations

import argparse
import signal
import threading
from collections.abc import Mapping
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from studio.errors import InputError

if TYPE_CHECKING:
    from studio.archive.follow import Progress
    from studio.bus import ReplayTarget, Subscriber


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the `archive` command to the `studio` parser."""
    parser = subparsers.add_parser("archive", help="store every table's events in PostgreSQL")
    parser.add_argument("--dsn", required=True, help="the PostgreSQL connection string")
    parser.add_argument("--stream", required=True, help="a table's stream or the proxy frontend")
    parser.add_argument(
        "--table",
        action="append",
        default=[],
        metavar="T=REPLAY[,KEYFILE]",
        help="a table, its replay endpoint and its public key file; repeat per table",
    )
    parser.add_argument("--key", type=Path, help="this archive's NAME.key_secret")
    parser.add_argument("--restricted", action="store_true", help="follow the restricted stream")
    parser.add_argument("--stream-key", type=Path, help="the restricted stream's public key file")
    parser.add_argument("--status", type=float, default=10.0, metavar="S", help="status every S s")
    parser.set_defaults(run=run)


def parse_table(text: str) -> tuple[str, ReplayTarget]:
    """`T=REPLAY[,KEYFILE]` as a table id and its replay target; InputError when malformed."""
    # Imported here, not above: `studio archive --help` loads no PostgreSQL, no ZeroMQ.
    from studio.bus import KeyPair, ReplayTarget

    table, sep, rest = text.partition("=")
    if not sep or not table or not rest:
        raise InputError(f"--table wants T=REPLAY[,KEYFILE], got {text!r}")
    endpoint, _, key_file = rest.partition(",")
    key = KeyPair.load(key_file).public if key_file else None
    return table, ReplayTarget(endpoint, key)


def table_keys(tables: Mapping[str, ReplayTarget]) -> dict[str, str]:
    """Each CURVE table's public key as text: the archive refuses a table whose key changed."""
    return {t: target.server_key.decode() for t, target in tables.items() if target.server_key}


def run(args: argparse.Namespace) -> int:
    """Archive until SIGINT or SIGTERM; return 0."""
    # Imported here, not above: `studio archive --help` loads no PostgreSQL, no ZeroMQ.
    from studio.archive.follow import Progress, follow
    from studio.bus import KeyPair, Subscriber

    if not args.table:
        raise InputError("name at least one --table")
    tables = dict(parse_table(t) for t in args.table)
    keys = KeyPair.load(args.key) if args.key else None
    stream_key = KeyPair.load(args.stream_key).public if args.stream_key else None
    if args.restricted and (keys is None or stream_key is None):
        raise InputError("--restricted needs --key and --stream-key")

    def subscribe(after: Mapping[str, int]) -> Subscriber:
        return Subscriber(
            args.stream,
            tables,
            audience="restricted" if args.restricted else "public",
            client_keys=keys,
            stream_server_key=stream_key if args.restricted else None,
            after=after,
        )

    stop = threading.Event()

    def _stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, _stop)
    progress = Progress()
    worker = threading.Thread(
        target=follow,
        args=(args.dsn, subscribe, stop),
        kwargs={"gapless": args.restricted, "progress": progress, "keys": table_keys(tables)},
        daemon=True,
    )
    worker.start()
    print(f"archive: following {len(tables)} table(s) on {args.stream}", flush=True)
    try:
        while not stop.wait(args.status):
            for line in status_lines(progress, tables):
                print(line, flush=True)
    except KeyboardInterrupt:
        stop.set()
    finally:
        worker.join()
        signal.signal(signal.SIGTERM, previous)
    return 0


def status_lines(progress: Progress, tables: Mapping[str, ReplayTarget]) -> list[str]:
    """One line per table: how far behind it the archive is, plus the totals."""
    lines = [
        f"  {t}: lag {progress.lag[t]:.3f} s" if t in progress.lag else f"  {t}: nothing yet"
        for t in sorted(tables)
    ]
    lines.append(
        f"archive: {progress.stored} stored, {progress.duplicates} replays dropped, "
        f"{progress.reconnects} reconnects, {len(progress.flags)} flags"
    )
    return lines
