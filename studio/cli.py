"""The `studio` command: one entry point, one subcommand module per job in `studio.commands`.

Every subcommand module exposes `register(subparsers)`, which adds its parser and sets the
function that runs it (`args.run(args) -> exit status`). Errors a user can cause derive from
`StudioError` and end as one line on stderr with exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from collections.abc import Sequence
from importlib import import_module
from pathlib import Path
from typing import NoReturn

from studio import __version__
from studio.errors import StudioError
from studio.logs import LOG_FORMATS, configure

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
    "archive_allow",
    "jackpot",
    "report",
    "retention",
    "calibrate",
    "recognize",
    "run",
    "watch",
    "status",
)
"""Modules of `studio.commands` that add a subcommand; the order is the help's order."""
PIPE_CLOSED = 128 + signal.SIGPIPE
"""The status of a command whose reader closed the pipe: what a shell reports for `cat`."""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr and exit status 2.

    Other tools parse our stderr; argparse's default repeats the whole usage text first.
    """

    def error(self, message: str) -> NoReturn:
        """Print `message` as one line naming the command, then exit with status 2."""
        self.exit(2, f"{self.prog}: {message}\n")


def _add_log_options(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """Give `parser` and every subcommand under it `-v`/`-q`, `--log-format` and `--log-file`.

    Engineers type `studio run -v` as readily as `studio -v run`; on a subcommand the options
    default to "not given" so that they never undo what was said before the subcommand.
    """
    default: object = False if top else argparse.SUPPRESS
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "-v", "--verbose", action="store_true", default=default, help="log debug detail"
    )
    group.add_argument(
        "-q", "--quiet", action="store_true", default=default, help="log errors only"
    )
    parser.add_argument(
        "--log-format",
        choices=LOG_FORMATS,
        default="plain" if top else argparse.SUPPRESS,
        help="log lines as plain text (default) or one JSON object each",
    )
    parser.add_argument(
        "--log-file",
        type=Path,
        metavar="PATH",
        default=None if top else argparse.SUPPRESS,
        help="append log lines to PATH instead of stderr",
    )
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _add_log_options(child, top=False)


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every subcommand registered."""
    parser = OneLineParser(prog="studio", description="Controller for a live-casino dealer table.")
    parser.add_argument("--version", action="version", version=f"studio {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        import_module(f"studio.commands.{name}").register(sub)
    _add_log_options(parser, top=True)
    return parser


def _log_level(args: argparse.Namespace) -> int:
    if args.verbose:
        return logging.DEBUG
    return logging.ERROR if args.quiet else logging.WARNING


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `studio` command line; return the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.verbose and args.quiet:
        parser.error("-v and -q cannot both be given")
    try:
        configure(_log_level(args), log_format=args.log_format, file=args.log_file)
        status: int = args.run(args)
        sys.stdout.flush()
    except StudioError as err:
        print(f"studio {args.command}: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`studio recall ... | head`): end quietly, as Unix tools do.
        # Output still buffered would fail again at exit, so stdout now points at nothing.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return PIPE_CLOSED
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
