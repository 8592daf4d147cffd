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
import json
import math
import sys
import time
from pathlib import Path
from typing import Any, Literal

from studio.bus import KeyPair, ReplayTarget, Subscriber
from studio.bus import defaults as bus
from studio.bus.keys import RESTRICTED_READERS, AllowList
from studio.bus.replay import MAX_SEQ, ReplayClient
from studio.commands.locate import locate
from studio.commands.words import describe, describe_notice
from studio.errors import BusError, InputError, KeyFileError
from studio.messages.notices import AnyNotice
from studio.messages.view import IncidentView, TableView

__all__ = ["describe", "register", "run"]

SILENCE = 3.0
"""Seconds without a heartbeat or an event before the table is said to be silent (3 beats)."""
POLL = 0.25
"""Seconds between two looks at the silence while no event comes."""
PAIRED = frozenset({"card_dealt", "card_corrected", "card_discarded"})
"""Event types the table sends twice, public copy then restricted copy (a card's value)."""


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


def snapshot_line(view: TableView) -> str:
    """The table's state in one line: what a watcher joining now needs before the events."""
    state = "PAUSED" if view.paused else "running"
    parts = [
        f"{state}, phase {view.phase}, light {view.light or '-'}",
        f"round {view.game_number or '-'}, at event #{view.seq}",
    ]
    if view.cards:
        cards = " ".join(
            f"{c.position}={c.code or ('face down' if not c.face_up else 'unreadable')}"
            for c in view.cards
        )
        parts.append(f"cards {cards}")
    if view.window is not None:
        parts.append(f"{view.window.name} window open")
    parts.extend(_incident(i) for i in view.incidents)
    devices = ", ".join(f"{d} {h}" for d, h in sorted(view.devices.items()))
    if devices:
        parts.append(f"devices {devices}")
    return "; ".join(parts)


def _incident(incident: IncidentView) -> str:
    if not incident.journalled:
        return f"incident {incident.kind} (not journalled)"
    return f"incident #{incident.incident} {incident.kind}"


class WatchLog:
    """Prints a followed stream: each event once, and when the table falls silent or returns.

    On the restricted stream a card's event comes twice, public copy (value hidden) then the
    restricted one: the words show only the restricted copy (`--json` prints every envelope, as
    the journal holds them).
    """

    def __init__(self, table: str, *, as_json: bool, silence: float) -> None:
        self.table = table
        self._json = as_json
        self._silence = silence
        self._held: dict[str, Any] | None = None
        self._shown = 0
        self._silent_since: float | None = None

    def follow(self, sub: Subscriber, *, count: int | None, timeout: float | None) -> int:
        """Print until `count` events are shown (0) or none came for `timeout` seconds (1)."""
        last_event = time.monotonic()
        while count is None or self._shown < count:
            try:
                event = sub.receive(timeout=POLL if timeout is None else min(POLL, timeout))
            except BusError as err:
                print(f"studio watch: {err}", file=sys.stderr, flush=True)
                continue
            now = time.monotonic()
            self._heard(sub.last_heard, now)
            for notice in sub.notices():
                self._notice(notice)
            if event is None:
                self._flush()
                if timeout is not None and now - last_event >= timeout:
                    return 1
                continue
            last_event = now
            self._take(json.loads(event.payload), count)
        return 0

    def _heard(self, heard: float, now: float) -> None:
        if self._silent_since is None and now - heard >= self._silence:
            self._silent_since = heard
            self._say(
                f"-- no heartbeat from table {self.table} for {now - heard:.1f} s: "
                "the table or the link is down"
            )
        elif self._silent_since is not None and heard > self._silent_since:
            self._say(f"-- table {self.table} heard again after {heard - self._silent_since:.1f} s")
            self._silent_since = None

    def _notice(self, notice: AnyNotice) -> None:
        # Notices are not envelopes: with --json they go to stderr, as the silence notices do.
        self._say(describe_notice(notice))

    def _say(self, line: str) -> None:
        # JSON lines stay envelopes only: the notice goes to stderr there.
        print(line, file=sys.stderr if self._json else sys.stdout, flush=True)

    def _take(self, envelope: dict[str, Any], count: int | None) -> None:
        if self._json:
            self._print(envelope)
            return
        held, self._held = self._held, None
        if held is not None:
            twin = (
                envelope.get("audience") == "restricted"
                and envelope.get("type") == held.get("type")
                and envelope.get("seq") == held.get("seq", 0) + 1
            )
            if not twin:
                self._print(held)
                if count is not None and self._shown >= count:
                    return
        if envelope.get("audience") == "public" and envelope.get("type") in PAIRED:
            self._held = envelope
        else:
            self._print(envelope)

    def _flush(self) -> None:
        held, self._held = self._held, None
        if held is not None:
            self._print(held)

    def _print(self, envelope: dict[str, Any]) -> None:
        print(json.dumps(envelope) if self._json else describe(envelope), flush=True)
        self._shown += 1
