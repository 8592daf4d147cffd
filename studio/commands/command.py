"""`studio command ACTION [NAME=VALUE ...] --key KEYFILE`: give a table a command.

The shift manager's and dealer's tool. The command goes over the table's CURVE command channel,
signed by nothing but the key file (`NAME.key_secret`): the table reads the sender's role from
the key's allow-list entry, never from the command. Arguments are `position=...`, `card=...`
and `note=...`. The table is found as `studio watch` finds it (the run file of `studio run`,
else the default endpoint); `--endpoint` overrides. Prints `accepted` (exit 0) or
`refused: REASON` (exit 1); a channel that does not answer (wrong endpoint, or a key the table
does not admit) or a bad key file ends as one line with exit status 2. `--json` prints the
answer as one object, `{"action", "status", "reason"}` (`reason` null when accepted), with the
same exit status.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, get_args

from studio.errors import InputError, did_you_mean
from studio.terms import CommandName

_ARGUMENTS = ("position", "card", "note")

MAX_TIMEOUT = 86_400.0
"""The longest `--timeout` in seconds: a day, far inside what zmq's poll can wait."""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the `command` command to the `studio` parser."""
    parser = subparsers.add_parser("command", help="give a table a command with your key")
    parser.add_argument(
        "action",
        choices=get_args(CommandName),
        metavar="ACTION",
        help=", ".join(get_args(CommandName)),
    )
    parser.add_argument(
        "arguments", nargs="*", metavar="NAME=VALUE", help="position=..., card=..., note=..."
    )
    parser.add_argument("--key", type=Path, required=True, help="your NAME.key_secret file")
    parser.add_argument(
        "--table", help="the table id (default: the one `studio run` started, else T01)"
    )
    parser.add_argument(
        "--endpoint", help="the command channel (default: the run file's, else the bus default)"
    )
    parser.add_argument(
        "--server-key",
        type=Path,
        default=None,
        help="the table's public key file (default: the run file's, else table.key in the key dir)",
    )
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds to wait for a reply")
    parser.add_argument("--json", action="store_true", help="print the answer as one JSON object")
    parser.set_defaults(run=run)


def parse_arguments(items: list[str]) -> dict[str, str]:
    """`["card=AS", ...]` as a dict; raises InputError for an unknown name or a missing `=`."""
    result: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or name not in _ARGUMENTS:
            raise InputError(
                f"argument {item!r} is not one of {', '.join(_ARGUMENTS)}=VALUE"
                + did_you_mean(name, _ARGUMENTS)
            )
        result[name] = value
    return result


def run(args: argparse.Namespace) -> int:
    """Send the command; print the answer; return 0 if accepted, 1 if refused.

    Raises KeyFileError, InputError or BusError (exit 2) for a bad key, argument or channel.
    """
    # Imported here, not above: `studio command --help` need not load ZeroMQ and the controller.
    from studio.bus.commands import CommandClient
    from studio.bus.keys import KeyPair
    from studio.commands.locate import locate

    arguments = parse_arguments(args.arguments)
    # zmq waits forever for a negative timeout, and its poll overflows past about 24 days.
    if not 0 < args.timeout <= MAX_TIMEOUT:
        raise InputError(
            f"--timeout must be above 0 and at most {MAX_TIMEOUT:g} s, got {args.timeout}"
        )
    keys = KeyPair.load(args.key)
    keys.require_secret()
    where = locate(args.table)
    server = KeyPair.load(args.server_key or where.server_key)
    endpoint = args.endpoint or where.commands
    with CommandClient(endpoint, keys, server.public, timeout=args.timeout) as client:
        reply = client.send(args.action, arguments)
    if args.json:
        answer = {"action": args.action, "status": reply.status, "reason": reply.reason}
        print(json.dumps(answer))
        return 0 if reply.status == "accepted" else 1
    if reply.status == "accepted":
        print("accepted")
        return 0
    print(f"{reply.status}: {reply.reason}")
    return 1
