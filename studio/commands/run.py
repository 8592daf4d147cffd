"""`studio run [--config TOML] [--game GAME] [--camera BACKEND] [--rounds N] [--duration S]`.

Runs a table.

With no config the table runs on the embedded defaults (`studio.config.DEFAULT_TOML`): a
simulated shoe on a pseudo-terminal read through the real serial driver, a SQLite journal in the
user's data directory, ZeroMQ on loopback and a simulated dealer dealing Caribbean Stud rounds
continuously. It prints where its streams and keys are, then `ready`, and runs until SIGTERM or
Ctrl-C (or `--rounds` rounds have ended, or `--duration` seconds have passed), draining before it
exits 0. `--print-config` prints every setting as TOML (the embedded defaults, with `--config`
and `--game` laid over them) and exits. A bad config, a journal
written with other settings or an endpoint in use ends as one line with exit status 2.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from drivers.camera.backends import CAMERA_BACKENDS
from studio.errors import ConfigurationError
from studio.terms import GAME_NAMES


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the `run` command to the `studio` parser."""
    parser = subparsers.add_parser("run", help="run a table (embedded defaults: simulated)")
    parser.add_argument("--config", metavar="TOML", help="the table's config file")
    parser.add_argument("--game", choices=GAME_NAMES, help="override the config's table.game")
    parser.add_argument(
        "--camera",
        choices=CAMERA_BACKENDS,
        help="override the config's camera.backend",
    )
    parser.add_argument("--rounds", type=int, metavar="N", help="stop after N rounds have ended")
    parser.add_argument("--duration", type=float, metavar="S", help="stop after S seconds")
    parser.add_argument(
        "--print-config", action="store_true", help="print every setting as TOML and exit"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run the table; return 0 after a clean stop, 1 if the journal failed while running.

    Raises `StudioError` (exit 2) when the table cannot start.
    """
    # Imported here, not above: `studio run --help` need not load the table, the bus and the
    # message models (the choices above are the registries alone).
    from studio.config import config_toml, load_config
    from studio.runtime import run_table

    if args.print_config:
        config = load_config(args.config, game=args.game, camera=args.camera)
        print(config_toml(config), end="")
        return 0
    if args.rounds is not None and args.rounds < 1:
        raise ConfigurationError(f"--rounds must be at least 1, got {args.rounds}")
    if args.duration is not None and not 0 < args.duration < math.inf:
        raise ConfigurationError(
            f"--duration must be a positive number of seconds, got {args.duration}"
        )
    config = load_config(args.config, game=args.game, camera=args.camera)
    return run_table(config, rounds=args.rounds, duration=args.duration)
