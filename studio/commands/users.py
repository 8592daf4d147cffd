"""`studio users add NAME --role ROLE` and `studio users list`: who may sign in to the console.

`add` asks for the password twice on the terminal (or reads one line from stdin with
`--password-stdin`), hashes it with argon2 and adds the user to the user file (default
`<data dir>/console/users.json`, owner-only). A name already there, a short password or a bad
name ends as one line with exit status 2. `list` prints each user's name and role.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path
from typing import Any

from studio.errors import ConfigurationError
from studio.paths import data_dir
from studio.terms import PERSON_ROLES


def default_users_file() -> Path:
    """Where `studio users` and `studio console` keep the user file by default."""
    return data_dir() / "console" / "users.json"


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the `users` command to the `studio` parser."""
    parser = subparsers.add_parser("users", help="who may sign in to the console")
    actions = parser.add_subparsers(dest="users_action", required=True, metavar="ACTION")
    add = actions.add_parser("add", help="add a person with a role and a password")
    add.add_argument("name")
    add.add_argument("--role", required=True, choices=PERSON_ROLES)
    add.add_argument("--users", type=Path, help="the user file (default: data dir)")
    add.add_argument("--password-stdin", action="store_true", help="read the password from stdin")
    listing = actions.add_parser("list", help="list the people who may sign in")
    listing.add_argument("--users", type=Path, help="the user file (default: data dir)")
    parser.set_defaults(run=run)


def _password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass("password: ")
    if getpass.getpass("again: ") != first:
        raise ConfigurationError("the two passwords differ")
    return first


def run(args: argparse.Namespace) -> int:
    """Add or list users; return 0. Raises ConfigurationError (exit 2) for bad input."""
    from studio.console.users import add_user, read_users  # argon2: only when it is needed

    path: Path = args.users or default_users_file()
    if args.users_action == "list":
        for user in read_users(path).users:
            print(f"{user.name} {user.role}")
        return 0
    user = add_user(path, args.name, args.role, _password(args.password_stdin))
    print(f"{user.name}: role {user.role}, added to {path}")
    return 0
