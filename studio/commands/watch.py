"""`studio watch [--table T] [--json] [--key KEYFILE]`: follow a table's stream as a live log.

With no arguments it follows the public stream of the table `studio run` started on this
machine (its run file in the data directory), losslessly: the local observer key made on first
run opens the replay service, so a gap the stream drops is fetched and nothing shows twice. A
`--key` whose role may read restricted events (shift manager, settlement) follows the restricted
stream instead. Each event is one line: sequence number, game number, what happened (phase and
light, cards by position, incidents, results); `--json` prints each envelope as one JSON object
per line instead (`table`, `seq`, `game_number`, `ts`, `audience`, `type`, `body`,
`schema_version`). It starts at the stream's present (`--from N` starts at event N) and runs
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

import zmq

from studio.bus import KeyPair, ReplayTarget, Subscriber
from studio.bus import defaults as bus
from studio.bus.endpoints import connect
from studio.bus.keys import RESTRICTED_READERS, AllowList
from studio.bus.replay import MAX_SEQ
from studio.bus.security import secure_client
from studio.bus.wire import parse_frames, topic_prefix
from studio.commands.locate import locate
from studio.errors import BusError, BusTimeoutError, InputError, KeyFileError


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the `watch` command to the `studio` parser."""
    parser = subparsers.add_parser("watch", help="follow a table's stream as a live log")
    parser.add_argument("--table", help="the table id (default: the one `studio run` started)")
    parser.add_argument("--json", action="store_true", help="one envelope per line as JSON")
    parser.add_argument("--key", type=Path, help="your NAME.key_secret (default: local observer)")
    parser.add_argument("--from", dest="start", type=int, metavar="N", help="start at event N")
    parser.add_argument("--count", type=int, metavar="N", help="stop after N events")
    parser.add_argument("--timeout", type=float, metavar="S", help="give up after S s of silence")
    parser.set_defaults(run=run)


def describe(envelope: dict[str, Any]) -> str:
    """One readable line for an event envelope (as JSON types)."""
    body: dict[str, Any] = envelope.get("body", {})
    kind = envelope.get("type", "?")
    game = envelope.get("game_number") or "-"
    text = _detail(kind, body)
    mark = " [restricted]" if envelope.get("audience") == "restricted" else ""
    return f"#{envelope.get('seq')} {game} {kind}{mark}{': ' + text if text else ''}"


def _card(code: Any, face: Any) -> str:
    if code:
        return f"{code} (face {face})"
    return "face down" if face == "down" else "unreadable"


def _detail(kind: str, body: dict[str, Any]) -> str:
    match kind:
        case "round_opened":
            return f"{body.get('game')} {body.get('variant')}, betting open, light green"
        case "betting_light_changed":
            return f"light {body.get('light')}"
        case "betting_closed":
            return "betting closed, light red"
        case "card_dealt":
            return f"{body.get('position')} {_card(body.get('card'), body.get('face'))}"
        case "card_revealed":
            return f"{body.get('position')} turns {body.get('card')}"
        case "decision_window_opened":
            options = "/".join(body.get("options", []))
            return f"{body.get('window')} window: {options}, else {body.get('automatic')}"
        case "decision_window_closed":
            return f"{body.get('window')} window closed, automatic {body.get('automatic')}"
        case "round_result":
            cards = " ".join(f"{p}={c}" for p, c in body.get("positions", {}).items())
            judgement = json.dumps(body.get("judgement", {}), separators=(",", ":"))
            return f"{cards} | {judgement}"
        case "round_paused":
            return f"PAUSED: {body.get('kind')} (incident {body.get('incident')})"
        case "incident_reported":
            return f"incident {body.get('incident')} {body.get('kind')}: {body.get('detail')}"
        case "round_resumed":
            return "resumed"
        case "round_voided":
            return f"VOIDED: {body.get('reason')} (refund {body.get('refund')})"
        case "command_accepted" | "command_rejected":
            why = f": {body.get('reason')}" if kind == "command_rejected" else ""
            return f"{body.get('command')} by {body.get('actor')} ({body.get('role')}){why}"
        case "device_health_changed":
            return f"{body.get('device')} {body.get('status')} {body.get('detail', '')}".strip()
    return json.dumps(body, separators=(",", ":"))


def _where(args: argparse.Namespace) -> tuple[str, dict[str, str], Path, Path]:
    """The table id, its endpoints, its server key file and key directory (see `locate`)."""
    where = locate(args.table)
    endpoints = {"public": where.public, "restricted": where.restricted, "replay": where.replay}
    return where.table, endpoints, where.server_key, where.keys_dir


def _present(endpoint: str, table: str, keys: KeyPair, server: bytes | None, timeout: float) -> int:
    """The stream's last sequence number, from the welcome heartbeat a new subscription gets.

    Raises BusTimeoutError when nothing arrives within `timeout` seconds (no table there).
    """
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    sock = ctx.socket(zmq.SUB)
    try:
        sock.setsockopt(zmq.LINGER, 0)
        if server is not None:
            secure_client(sock, keys, server)
        sock.setsockopt(zmq.SUBSCRIBE, topic_prefix(table))
        connect(sock, endpoint)
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            if not sock.poll(int(left * 1000)):
                break
            try:
                message = parse_frames(sock.recv_multipart())
            except InputError:
                continue
            # A heartbeat's position is the last event the stream carried; an event's is the one
            # before it: either way the stream's present is just after it.
            return message.position
        raise BusTimeoutError(f"no heartbeat from table {table} at {endpoint}: is it running?")
    finally:
        sock.close()
        ctx.term()


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
    table, endpoints, server_file, folder = _where(args)
    key_file: Path = args.key or folder / "observer.key_secret"
    try:
        keys = KeyPair.load(key_file)
    except KeyFileError as err:
        if args.key is not None:
            raise
        raise KeyFileError(f"{err}: start the table once with `studio run`, or pass --key") from err
    keys.require_secret()
    server = KeyPair.load(server_file).public
    audience: Literal["public", "restricted"] = "public"
    allow = server_file.parent / bus.ALLOW_LIST_NAME
    if allow.exists():
        entry = AllowList(allow).lookup(keys.public)
        if entry is None:
            raise KeyFileError(f"{key_file} is not on the table's allow-list")
        if entry.role in RESTRICTED_READERS:
            audience = "restricted"
    stream = endpoints[audience]
    stream_key = server if audience == "restricted" else None
    start = args.start
    if start is None:
        start = _present(stream, table, keys, stream_key, timeout=5.0) + 1
    shown = 0
    with Subscriber(
        stream,
        {table: ReplayTarget(endpoints["replay"], server)},
        audience=audience,
        client_keys=keys,
        stream_server_key=stream_key,
        after={table: max(0, start - 1)},
    ) as sub:
        if not args.json:
            print(f"watching table {table}: {audience} stream {stream}", flush=True)
        while args.count is None or shown < args.count:
            try:
                event = sub.receive(timeout=args.timeout)
            except BusError as err:
                print(f"studio watch: {err}", file=sys.stderr)
                continue
            if event is None:
                return 1
            envelope = json.loads(event.payload)
            print(json.dumps(envelope) if args.json else describe(envelope), flush=True)
            shown += 1
    return 0
