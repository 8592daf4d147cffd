"""`studio keys`: make CURVE key pairs and keep the allow-list of client keys.

- `studio keys new NAME --role ROLE` writes `NAME.key` and `NAME.key_secret` in the key
  directory and registers the public key with its role on the allow-list; give the secret file
  to the person or system that will use it.
- `studio keys new NAME --server` writes a table's (or proxy's) own key pair, not registered.
- `studio keys remove NAME` takes a key off the allow-list: its next command is refused and its
  next handshake fails, even on a connection already made.
- `studio keys list` prints the allow-list, one `NAME ROLE PUBLIC_KEY` line each (`--json`:
  one list of `{"name", "role", "public_key"}` objects).

The directory defaults to `studio.bus.defaults.keys_dir()`; `--dir` and `--allow-list` override.
Errors (a name taken, an unreadable list) end as one line with exit status 2.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from studio.bus.defaults import ALLOW_LIST_NAME, keys_dir
from studio.errors import InputError
from studio.terms import ROLES


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the `keys` command and its `new`, `remove` and `list` actions to the parser."""
    parser = subparsers.add_parser("keys", help="make CURVE keys and keep the allow-list")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    new = actions.add_parser("new", help="make a key pair (and register it with a role)")
    new.add_argument("name", metavar="NAME", help="letters, digits, '_', '.', '-'")
    kind = new.add_mutually_exclusive_group(required=True)
    kind.add_argument("--role", choices=ROLES, help="register the client key with this role")
    kind.add_argument("--server", action="store_true", help="a server's own key: not listed")
    remove = actions.add_parser("remove", help="take a key off the allow-list")
    remove.add_argument("name", metavar="NAME")
    listing = actions.add_parser("list", help="print the allow-list")
    listing.add_argument(
        "--json",
        action="store_true",
        help='one JSON list: [{"name", "role", "public_key"}]',
    )
    for sub in (new, remove, listing):
        sub.add_argument("--dir", type=Path, default=None, help="the key directory")
        sub.add_argument("--allow-list", type=Path, default=None, help="the allow-list file")
    new.set_defaults(run=run_new)
    remove.set_defaults(run=run_remove)
    listing.set_defaults(run=run_list)


def _paths(args: argparse.Namespace) -> tuple[Path, Path]:
    folder: Path = args.dir or keys_dir()
    return folder, args.allow_list or folder / ALLOW_LIST_NAME


def run_new(args: argparse.Namespace) -> int:
    """Write the key pair, register it unless `--server`; print the files; return 0.

    Raises KeyFileError (exit 2) when the name exists or the allow-list is unreadable.
    """
    # Imported here, in each action: `studio keys --help` need not load ZeroMQ.
    from studio.bus.keys import KeyPair, create_key_files, register_key

    folder, allow_list = _paths(args)
    if not re.fullmatch(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}", args.name):
        raise InputError(f"key name {args.name!r} must be letters, digits, '_', '.' or '-'")
    public_file, secret_file = create_key_files(folder, args.name)
    if not args.server:
        register_key(allow_list, args.name, args.role, KeyPair.load(public_file).public)
        print(f"{args.name}: role {args.role}, registered in {allow_list}")
    print(f"public key: {public_file}")
    print(f"secret key: {secret_file} (give it only to its holder)")
    return 0


def run_remove(args: argparse.Namespace) -> int:
    """Take `args.name` off the allow-list; return 0 (KeyFileError, exit 2, if absent)."""
    from studio.bus.keys import unregister_key

    _, allow_list = _paths(args)
    unregister_key(allow_list, args.name)
    print(f"{args.name}: removed from {allow_list}")
    return 0


def run_list(args: argparse.Namespace) -> int:
    """Print the allow-list's keys, one line each; return 0."""
    from studio.bus.keys import read_allow_list

    _, allow_list = _paths(args)
    entries = read_allow_list(allow_list).keys
    if args.json:
        print(
            json.dumps(
                [{"name": e.name, "role": e.role, "public_key": e.public_key} for e in entries]
            )
        )
        return 0
    for entry in entries:
        print(f"{entry.name} {entry.role} {entry.public_key}")
    return 0
