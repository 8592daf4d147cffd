"""The `studio` command: one entry point, one subcommand module per job in `studio.commands`.

Every subcommand module exposes `register(subparsers)`, which adds its parser and sets the
function that runs it (`args.run(args) -> exit status`). Errors a user can cause derive from
`StudioError` and end as one line on stderr with exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import signal
import sys
from collections.abc import Sequence
from importlib import import_module
from pathlib import Path
from typing import NoReturn

from studio import __version__
from studio.errors import StudioError, did_you_mean
from studio.logs import LOG_FORMATS, configure

COMMANDS: dict[str, tuple[str, str]] = {
    "journal": ("journal", "inspect a table's journal"),
    "settle": ("settle", "settle one player's bets on a round's cards"),
    "recall": ("recall", "print whole rounds from a table's journal"),
    "simulate": ("simulate", "play rounds headless with a simulated dealer, shoe and camera"),
    "schema": ("schema", "write the JSON Schema of every message"),
    "rtp": ("rtp", "compute every bet's return beside the published figure"),
    "shoe": ("shoe", "simulate, monitor or enroll a card shoe"),
    "keys": ("keys", "make CURVE keys and keep the allow-list"),
    "command": ("command", "give a table a command with your key"),
    "proxy": ("proxy", "forward many tables' streams to one endpoint"),
    "archive": ("archive", "store every table's events in PostgreSQL"),
    "archive-allow": ("archive_allow", "allow a table's new key in the archive"),
    "jackpot": ("jackpot", "the progressive jackpot pool in PostgreSQL"),
    "report": ("report", "rounds, voids and incidents per table and dealer, from the archive"),
    "retention": ("retention", "export old rounds from the archive, or back"),
    "calibrate": ("calibrate", "calibrate the camera: deck, table, lens"),
    "recognize": ("recognize", "read the cards in still images with a profile"),
    "run": ("run", "run a table (embedded defaults: simulated)"),
    "watch": ("watch", "follow a table's stream as a live log"),
    "status": ("status", "show what a table is doing now"),
    "integrity": (
        "integrity",
        "certify the installed software and configuration (SHA-256 manifest)",
    ),
    "users": ("users", "who may sign in to the console"),
    "console": ("console", "serve the dealer display and manager console"),
}
"""Subcommand -> (its module in `studio.commands`, its one-line help); the help's order.

Only the module of the subcommand being run is imported (each pulls in ZeroMQ, NumPy, OpenCV or
PostgreSQL's driver): `studio --version` and `studio --help` import none. The help here is what
`studio --help` lists; a test holds it equal to the module's own.
"""
COMMAND_MODULES: tuple[str, ...] = tuple(module for module, _ in COMMANDS.values())
"""Modules of `studio.commands` that add a subcommand."""
PIPE_CLOSED = 128 + signal.SIGPIPE
"""The status of a command whose reader closed the pipe: what a shell reports for `cat`."""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr and exit status 2.

    Other tools parse our stderr; argparse's default repeats the whole usage text first.
    """

    def error(self, message: str) -> NoReturn:
        """Print `message` as one line naming the command, then exit with status 2.

        A word that is not one of the choices gets the nearest choice suggested.
        """
        self.exit(2, f"{self.prog}: {message}{_suggestion(message)}\n")


_INVALID_CHOICE = re.compile(r"invalid choice: '(?P<word>[^']*)' \(choose from (?P<choices>.*)\)$")


def _suggestion(message: str) -> str:
    """`" (did you mean X?)"` for argparse's invalid-choice message, when a choice is near."""
    found = _INVALID_CHOICE.search(message)
    if found is None:
        return ""
    choices = [c.strip().strip("'") for c in found["choices"].split(",")]
    return did_you_mean(found["word"], choices)


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
            # A parser with subcommands sees its children's words too: no abbreviations there,
            # or `shoe simulate --log FILE` reads as an ambiguous `--log-format`/`--log-file`.
            parser.allow_abbrev = False
            for child in action.choices.values():
                _add_log_options(child, top=False)


def _chosen(argv: Sequence[str]) -> str | None:
    """The subcommand `argv` names (the first word that is one), or None."""
    for word in argv:
        if word == "--":
            return None
        if word in COMMANDS:
            return word
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser: every subcommand fully registered, or only the one `argv` names.

    With `argv`, the other subcommands are names with their help and nothing else, so their
    modules are not imported.
    """
    parser = OneLineParser(prog="studio", description="Controller for a live-casino dealer table.")
    parser.add_argument("--version", action="version", version=f"studio {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    chosen = None if argv is None else _chosen(argv)
    for name, (module, help_text) in COMMANDS.items():
        if argv is None or name == chosen:
            import_module(f"studio.commands.{module}").register(sub)
        else:
            sub.add_parser(name, help=help_text)
    _add_log_options(parser, top=True)
    return parser


def _log_level(args: argparse.Namespace) -> int:
    if args.verbose:
        return logging.DEBUG
    return logging.ERROR if args.quiet else logging.WARNING


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `studio` command line; return the process exit status."""
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(words)
    args = parser.parse_args(words)
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
