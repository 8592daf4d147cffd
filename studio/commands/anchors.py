"""`studio journal anchors`: keep a table's signed checkpoints in a file, away from its journal.

It follows the restricted stream (a shift manager's or settlement key: the stream is CURVE) and
appends every `Checkpoint` notice, one JSON object a line, to `--out`; the file is what
`studio journal verify --anchors FILE` holds the journal to. It stops after `--count`
checkpoints or `--seconds` seconds (default: until interrupted), and prints how many it kept.
Exit status 0, or 2 (through `studio.cli`) for a key that cannot be read.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from studio.errors import InputError


def register(actions: argparse._SubParsersAction[Any]) -> None:
    """Add the `anchors` action to the `studio journal` parser."""
    keep = actions.add_parser(
        "anchors", help="keep the table's signed checkpoints (for `verify --anchors`)"
    )
    keep.add_argument("--out", type=Path, required=True, help="the file to append them to")
    keep.add_argument("--table", help="the table id (default: the one `studio run` started)")
    keep.add_argument("--endpoint", help="the restricted stream (default: the table's)")
    keep.add_argument("--server-key", type=Path, help="the table's public key file")
    keep.add_argument(
        "--key", type=Path, help="your NAME.key_secret (default: the local shift manager's)"
    )
    keep.add_argument("--count", type=int, metavar="N", help="stop after N checkpoints")
    keep.add_argument("--seconds", type=float, metavar="S", help="stop after S seconds")
    keep.set_defaults(run=run_anchors)


def run_anchors(args: argparse.Namespace) -> int:
    """Append the checkpoints the restricted stream carries to `args.out`; return 0.

    A checkpoint whose signature does not hold is not kept (and said on stderr).
    Raises KeyFileError, BusError for a key or endpoint that cannot be used.
    """
    # Imported here, not above: `studio journal --help` need not load ZeroMQ and the messages.
    import zmq

    from studio.bus import KeyPair
    from studio.bus.endpoints import connect
    from studio.bus.security import secure_client
    from studio.bus.wire import parse_frames, topic_prefix
    from studio.commands.locate import locate
    from studio.journal.anchors import signature_ok
    from studio.messages.notices import Checkpoint

    where = locate(args.table)
    keys = KeyPair.load(args.key or where.keys_dir / "shift-manager.key_secret")
    server = KeyPair.load(args.server_key or where.server_key).public
    endpoint = args.endpoint or where.restricted
    if args.count is not None and args.count < 1:
        raise InputError(f"--count must be 1 or more, got {args.count}")
    deadline = None if args.seconds is None else time.monotonic() + args.seconds
    kept = 0
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    sock = ctx.socket(zmq.SUB)
    try:
        sock.setsockopt(zmq.LINGER, 0)
        secure_client(sock, keys, server)
        sock.setsockopt(zmq.SUBSCRIBE, topic_prefix(where.table))
        connect(sock, endpoint)
        with args.out.open("a", encoding="utf-8") as out:
            while args.count is None or kept < args.count:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    break
                if not sock.poll(1000 if left is None else int(min(left, 1.0) * 1000)):
                    continue
                try:
                    message = parse_frames(sock.recv_multipart())
                except InputError:
                    continue
                notice = message.notice
                if not isinstance(notice, Checkpoint):
                    continue
                if not signature_ok(notice):
                    print(f"studio journal anchors: bad signature at {notice.ts}, not kept")
                    continue
                out.write(notice.model_dump_json() + "\n")
                out.flush()
                kept += 1
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
        ctx.term()
    print(f"kept {kept} checkpoint(s) of table {where.table} in {args.out}")
    return 0
