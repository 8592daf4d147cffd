"""`studio watch [--table T] [--json] [--key KEYFILE] [--endpoint E]`: follow a table as a live log.

With no arguments it follows the public stream of the table `studio run` started on this
machine (its run file in the data directory), losslessly: the local observer key made on first
run opens the replay service, so a gap the stream drops is fetched and nothing shows twice. A
`--key` whose role may read restricted events (shift manager, settlement) follows the restricted
stream instead (`--public` keeps the public one). `--endpoint` follows another stream endpoint
carrying the table, such as a `studio proxy` frontend (its restricted frontend, for a key that
reads the restricted stream; `--endpoint-key` gives that frontend's public key when it is not
the table's); gaps are still fetched from the table's own replay service.

It starts with the table's state now (a `now:` line: running or paused, phase, light, round,
cards, incidents, devices), then prints each event once as one line in words: sequence number,
game number, what happened. On the restricted stream a card's public copy (its value hidden) is
left out for the restricted copy that follows it. The restricted stream's notices, which have no
sequence number and are not fetched again if missed, are lines of their own (`notice KIND
[restricted, not journalled] at HH:MM:SS: ...`): a journal that cannot be written, and when it
can again; signed checkpoints; integrity checks. When neither an event nor a heartbeat comes
for `--silence` seconds (default 3) it says the table or the link is down, and when the table is
heard again, after how long. `--json` prints each envelope as one JSON object per line instead
(`table`, `seq`, `game_number`, `ts`, `audience`, `type`, `body`, `schema_version`; every
envelope, both copies of a card's event; no `now:` line, the silence notices and the stream's
notices go to stderr, in words). It
starts at the table's present (`--from N` starts at event N, without the `now:` line) and runs
until Ctrl-C, `--count N` events or `--timeout S` seconds without one (exit 1). A table that
cannot be found or a bad key ends as one line with exit status 2.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any, Literal

from studio.bus import defaults as bus
from studio.errors import InputError, KeyFileError

__all__ = ["register", "run"]

SILENCE = 3.0
"""Seconds without a heartbeat or an event before the table is said to be silent (3 beats)."""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the `watch` command to the `studio` parser."""
    parser = subparsers.add_parser("watch", help="follow a table's stream as a live log")
    parser.add_argument("--table", help="the table id (default: the one `studio run` started)")
    parser.add_argument("--json", action="store_true", help="one envelope per line as JSON")
    parser.add_argument("--key", type=Path, help="your NAME.key_secret (default: local observer)")
    parser.add_argument("--from", dest="start", type=int, metavar="N", help="start at event N")
    parser.add_argument("--count", type=int, metavar="N", help="stop after N events")
    parser.add_argument("--timeout", type=float, metavar="S", help="give up after S s of silence")
    parser.add_argument(
        "--endpoint",
        metavar="E",
        help="the stream to follow instead of the table's own: a `studio proxy` frontend",
    )
    parser.add_argument(
        "--endpoint-key",
        type=Path,
        metavar="FILE",
        help="the --endpoint's public key file, for a restricted one (default: the table's)",
    )
    parser.add_argument(
        "--public",
        action="store_true",
        help="follow the public stream even with a key that may read the restricted one",
    )
    parser.add_argument(
        "--silence",
        type=float,
        metavar="S",
        help=f"say the table is silent after S s without a heartbeat (default {SILENCE:g})",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Follow the stream; print one line (or JSON object) per event; return 0 (1 on --timeout).

    Raises KeyFileError, BusError (exit 2) for a bad key or a table that cannot be reached,
    InputError for an option out of range.
    """
    # Imported here, not above: `studio watch --help` need not load ZeroMQ and the messages.
    from studio.bus import KeyPair, ReplayTarget, Subscriber
    from studio.bus.keys import RESTRICTED_READERS, AllowList
    from studio.bus.replay import MAX_SEQ, ReplayClient
    from studio.commands.locate import locate
    from studio.commands.watch_log import WatchLog, snapshot_line

    # --timeout 0 (a poll: exit 1 at once if nothing is new) and --from 0 (taken as 1) worked
    # before these checks came, and other tools may use them: they stay allowed.
    if args.timeout is not None and not 0 <= args.timeout < math.inf:
        raise InputError(f"--timeout must be 0 or more seconds, got {args.timeout}")
    # The top is SQLite's largest integer: the replay service could not look further. A count
    # of 0 stays allowed: it checks that the table answers, then exits 0.
    for option, value, low in (("--from", args.start, 0), ("--count", args.count, 0)):
        if value is not None and not low <= value <= MAX_SEQ:
            raise InputError(f"{option} must be from {low} to {MAX_SEQ}, got {value}")
    if args.silence is not None and not 0 < args.silence < math.inf:
        raise InputError(f"--silence must be a positive number of seconds, got {args.silence}")
    where = locate(args.table)
    key_file: Path = args.key or where.keys_dir / "observer.key_secret"
    try:
        keys = KeyPair.load(key_file)
    except KeyFileError as err:
        if args.key is not None:
            raise
        raise KeyFileError(f"{err}: start the table once with `studio run`, or pass --key") from err
    keys.require_secret()
    server = KeyPair.load(where.server_key).public
    audience: Literal["public", "restricted"] = "public"
    allow = where.server_key.parent / bus.ALLOW_LIST_NAME
    if allow.exists():
        entry = AllowList(allow).lookup(keys.public)
        if entry is None:
            raise KeyFileError(f"{key_file} is not on the table's allow-list")
        if entry.role in RESTRICTED_READERS and not args.public:
            audience = "restricted"
    stream = args.endpoint or (where.restricted if audience == "restricted" else where.public)
    stream_key = None
    if audience == "restricted":
        # A `studio proxy` on the table's machine serves with the table's key pair by default.
        stream_key = KeyPair.load(args.endpoint_key).public if args.endpoint_key else server
    with ReplayClient(where.replay, client_keys=keys, server_key=server, timeout=5.0) as client:
        # The state now, and the event it stands at: the stream continues right after it.
        view = client.view(audience=audience)
    start = view.seq + 1 if args.start is None else args.start
    with Subscriber(
        stream,
        {where.table: ReplayTarget(where.replay, server)},
        audience=audience,
        client_keys=keys,
        stream_server_key=stream_key,
        after={where.table: max(0, start - 1)},
    ) as sub:
        if not args.json:
            print(f"watching table {where.table}: {audience} stream {stream}", flush=True)
            if args.start is None:
                print(f"now: {snapshot_line(view)}", flush=True)
        log = WatchLog(where.table, as_json=args.json, silence=args.silence or SILENCE)
        return log.follow(sub, count=args.count, timeout=args.timeout)
