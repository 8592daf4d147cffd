"""`studio proxy`: one studio-wide endpoint carrying many tables' streams.

`studio proxy --upstream tcp://host:7710 --upstream ... [--frontend E] [--backend E]` connects
to each table's stream (and, with `--backend`, also accepts publishers that connect to it) and
serves them all on the frontend, unchanged: subscribers still fetch gaps from each table's own
replay service. It prints its frontend endpoint and runs until interrupted (SIGINT or SIGTERM).
"""

from __future__ import annotations

import argparse
import signal
import threading
from types import FrameType
from typing import Any

from studio.bus.defaults import PROXY_FRONTEND
from studio.bus.proxy import StreamProxy
from studio.bus.subscriber import ReplayTarget


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the `proxy` command to the `studio` parser."""
    parser = subparsers.add_parser("proxy", help="forward many tables' streams to one endpoint")
    parser.add_argument("--frontend", default=PROXY_FRONTEND, help="where subscribers connect")
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
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Forward until SIGINT or SIGTERM; return 0 (BusError, exit 2, if an endpoint is taken)."""
    stop = threading.Event()

    def _stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        upstreams = [ReplayTarget(e) for e in args.upstream]
        with StreamProxy(args.frontend, upstreams, backend=args.backend) as proxy:
            print(f"proxy: frontend {proxy.frontend}, {len(upstreams)} upstream(s)", flush=True)
            while not stop.wait(0.2):
                pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0
