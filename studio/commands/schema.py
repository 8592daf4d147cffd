"""`studio schema [--out FILE]`: write the JSON Schema of every table message.

One JSON document (see `studio.messages.json_schema`): the envelope (one branch per event type,
with its body, audiences and what the audience implies), the stream heartbeat, every input by
`kind`, every event body by `type` with the audiences it may go to, and the table settings.
Without `--out` it goes to standard output. Exit status 0; 2 (through `studio.cli`) when the
file cannot be written.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from studio.errors import InputError


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the `schema` command to the `studio` parser."""
    parser = subparsers.add_parser("schema", help="write the JSON Schema of every message")
    parser.add_argument("--out", metavar="FILE", help="write to FILE instead of standard output")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Write the schema to `args.out` (or stdout); return 0.

    Raises `InputError` when the file cannot be written.
    """
    # Imported here, not above: `studio schema --help` need not load the messages.
    from studio.messages import json_schema

    text = json.dumps(json_schema(), indent=2, sort_keys=True) + "\n"
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        Path(args.out).write_text(text, encoding="utf-8")
    except OSError as err:
        raise InputError(f"cannot write {args.out}: {err.strerror}") from err
    return 0
