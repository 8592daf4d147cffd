"""The `studio` command: one entry point, one subcommand module per job in `studio.commands`.

Every subcommand module exposes `register(subparsers)`, which adds its parser and sets the
function that runs it (`args.run(args) -> exit status`). Errors a user can cause derive from
`StudioError` and end as one line on stderr with exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from importlib import import_module
from typing import NoReturn

from studio import __version__
from studio.errors import StudioError

COMMAND_MODULES: tuple[str, ...] = (
    "journal",
    "settle",
    "recall",
    "simulate",
    "schema",
    "rtp",
    "shoe",
    "keys",
    "command",
    "proxy",
    "archive",
    "calibrate",
    "recognize",
    "run",
    "watch",
)
"""Modules of `studio.commands` that add a subcommand; the order is the help's order."""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr and exit status 2.

    Other tools parse our stderr; argparse's default repeats the whole usage text first.
    """

    def error(self, message: str) -> NoReturn:
        """Print `message` as one line naming the command, then exit with status 2."""
        self.exit(2, f"{self.prog}: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every subcommand registered."""
    parser = OneLineParser(prog="studio", description="Controller for a live-casino dealer table.")
    parser.add_argument("--version", action="version", version=f"studio {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug detail to stderr")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        import_module(f"studio.commands.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `studio` command line; return the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        status: int = args.run(args)
    except StudioError as err:
        print(f"studio {args.command}: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
