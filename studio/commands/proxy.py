"""`studio proxy`: one studio-wide endpoint carrying many tables' streams.

`studio proxy --upstream tcp://host:7710 --upstream ... [--frontend E] [--backend E]` connects
to each table's public stream (and, with `--backend`, also accepts publishers that connect to
it) and serves them all on the frontend, unchanged: subscribers still fetch gaps from each
table's own replay service.

`--restricted-upstream tcp://host:7711` (repeatable) also forwards tables' restricted streams,
events and notices (journal alarms, checkpoints, integrity reports) alike, on a second frontend
(`--restricted-frontend`, default `tcp://127.0.0.1:7721`) that is a CURVE server: only keys
whose role reads the restricted stream complete its handshake. The key directory (`--keys`,
default the bus's key directory) gives the frontend's key pair and allow-list (`table.key_secret`,
`allow_list.json`) and the upstream tables' public key (`table.key`, or `--upstream-key`); the
proxy joins the upstreams with `--key` (default the directory's `console.key_secret`, a
restricted reader). So on the table's machine a shift manager follows through the proxy with
`studio watch --endpoint tcp://127.0.0.1:7721 --key shift-manager.key_secret`.

It prints its frontend endpoints and runs until interrupted (SIGINT or SIGTERM).
"""

from __future__ import annotations

import argparse
import signal
import threading
from contextlib import ExitStack
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from studio.bus import defaults as bus

if TYPE_CHECKING:
    from studio.bus.proxy import StreamProxy


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the `proxy` command to the `studio` parser."""
    parser = subparsers.add_parser("proxy", help="forward many tables' streams to one endpoint")
    parser.add_argument("--frontend", default=bus.PROXY_FRONTEND, help="where subscribers connect")
    parser.add_argument(
        "--upstream",
        action="append",
        default=[],
        metavar="ENDPOINT",
        help="a table's (public) stream to forward; repeat for each table",
    )
    parser.add_argument(
        "--backend",
        default=None,
        help="also bind this endpoint for publishers that connect to the proxy",
    )
    parser.add_argument(
        "--restricted-upstream",
        action="append",
        default=[],
        metavar="ENDPOINT",
        help="a table's restricted stream (CURVE) to forward; repeat for each table",
    )
    parser.add_argument(
        "--restricted-frontend",
        default=bus.PROXY_RESTRICTED_FRONTEND,
        metavar="E",
        help="where restricted readers connect (CURVE), with --restricted-upstream",
    )
    parser.add_argument(
        "--keys",
        type=Path,
        metavar="DIR",
        help="key directory: the frontend's key pair and allow-list (default: the bus's)",
    )
    parser.add_argument(
        "--key",
        type=Path,
        metavar="KEYFILE",
        help="the key the proxy joins restricted streams with (default: DIR/console.key_secret)",
    )
    parser.add_argument(
        "--upstream-key",
        type=Path,
        metavar="FILE",
        help="the upstream tables' public key file (default: DIR/table.key)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Forward until SIGINT or SIGTERM; return 0.

    Raises BusError (exit 2) if an endpoint is taken, KeyFileError (exit 2) for a key file or
    allow-list that cannot be read.
    """
    # Imported here, not above: `studio proxy --help` need not load ZeroMQ and the messages.
    from studio.bus.proxy import StreamProxy
    from studio.bus.subscriber import ReplayTarget

    stop = threading.Event()

    def _stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        with ExitStack() as stack:
            upstreams = [ReplayTarget(e) for e in args.upstream]
            proxy = stack.enter_context(StreamProxy(args.frontend, upstreams, backend=args.backend))
            # Both bound before either is announced: a bad key is the only line said.
            restricted = (
                stack.enter_context(_restricted(args)) if args.restricted_upstream else None
            )
            print(f"proxy: frontend {proxy.frontend}, {len(upstreams)} upstream(s)", flush=True)
            if restricted is not None:
                print(
                    f"proxy: restricted frontend {restricted.frontend} (CURVE), "
                    f"{len(args.restricted_upstream)} upstream(s)",
                    flush=True,
                )
            while not stop.wait(0.2):
                pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0


def _restricted(args: argparse.Namespace) -> StreamProxy:
    """The CURVE proxy of the restricted streams (see the module docstring)."""
    from studio.bus.keys import AllowList, KeyPair
    from studio.bus.proxy import StreamProxy
    from studio.bus.security import ServerSecurity
    from studio.bus.subscriber import ReplayTarget

    folder: Path = args.keys or bus.keys_dir()
    server = KeyPair.load(folder / f"{bus.SERVER_KEY_NAME}.key_secret")
    security = ServerSecurity(server, AllowList(folder / bus.ALLOW_LIST_NAME))
    client = KeyPair.load(args.key or folder / "console.key_secret")
    client.require_secret()
    upstream_key = KeyPair.load(args.upstream_key or folder / f"{bus.SERVER_KEY_NAME}.key").public
    upstreams = [ReplayTarget(e, upstream_key) for e in args.restricted_upstream]
    return StreamProxy(args.restricted_frontend, upstreams, security=security, client_keys=client)
