"""The console's user file: who may sign in, with which role, and their argon2 password hash.

One JSON file (`{"format": "studio-users/1", "users": [{"name", "role", "hash"}]}`) written by
`studio users add NAME --role ROLE`. Passwords are hashed with argon2id (argon2-cffi's
defaults, which follow RFC 9106's recommendation); the file never holds a password. A user's
role is one a person has (dealer, shift_manager, settlement, observer): the console relays their
actions under it, and the table decides what that role may do.
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
from pathlib import Path
from typing import Literal

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from studio.errors import ConfigurationError
from studio.messages import Role

USERS_FORMAT: Literal["studio-users/1"] = "studio-users/1"
"""The value of `format` in every user file."""

MIN_PASSWORD = 8
"""The shortest password `studio users add` accepts."""

_HASHER = PasswordHasher()


@functools.cache
def _dummy_hash() -> str:
    # Verifying a name nobody has still costs one hash, so a wrong name and a wrong password take
    # as long as each other (the time would otherwise tell an attacker which names exist). Made
    # on first use: hashing is slow on purpose, and every `studio` command imports this module.
    return _HASHER.hash("not a password anyone has")


class User(BaseModel):
    """One person who may sign in: a unique name, their role, their password's argon2 hash."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")
    role: Role
    hash: str = Field(pattern=r"^\$argon2")


class UserFile(BaseModel):
    """The user file's content; names are unique."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["studio-users/1"] = USERS_FORMAT
    users: tuple[User, ...] = ()


def read_users(path: Path) -> UserFile:
    """The user file at `path` (none there: no users); raises ConfigurationError when invalid."""
    if not path.exists():
        return UserFile()
    try:
        content = UserFile.model_validate_json(path.read_bytes())
    except OSError as err:
        raise ConfigurationError(f"cannot read the user file {path}: {err}") from err
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "file"
        raise ConfigurationError(
            f"the user file {path} is invalid: {where}: {first['msg']}"
        ) from err
    names = [u.name for u in content.users]
    if len(set(names)) != len(names):
        raise ConfigurationError(f"the user file {path} names a user twice")
    return content


def add_user(path: Path, name: str, role: Role, password: str) -> User:
    """Add `name` with `role` and the hash of `password` to the user file (made if missing).

    Raises ConfigurationError when the name exists, the password is shorter than MIN_PASSWORD, or
    the file cannot be written. The file is replaced atomically and readable by its owner only.
    """
    if len(password) < MIN_PASSWORD:
        raise ConfigurationError(f"a password has at least {MIN_PASSWORD} characters")
    current = read_users(path)
    if any(u.name == name for u in current.users):
        raise ConfigurationError(f"the user file {path} already has a user named {name!r}")
    try:
        user = User(name=name, role=role, hash=_HASHER.hash(password))
    except ValidationError as err:
        raise ConfigurationError(f"bad user name {name!r}: letters, digits, '_', '.', '-'") from err
    content = UserFile(users=(*current.users, user))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(json.dumps(content.model_dump(mode="json"), indent=2) + "\n")
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except OSError as err:
        raise ConfigurationError(f"cannot write the user file {path}: {err}") from err
    return user


class UserDirectory:
    """Checks sign-ins against the user file, re-read on every sign-in (so `users add` applies)."""

    def __init__(self, path: Path) -> None:
        """Check the user file at `path` now; raises ConfigurationError when it is invalid."""
        self.path = path
        read_users(path)

    def verify(self, name: str, password: str) -> User | None:
        """The user when `password` is theirs, else None (the same work for an unknown name)."""
        try:
            users = read_users(self.path).users
        except ConfigurationError:
            users = ()
        user = next((u for u in users if u.name == name), None)
        try:
            _HASHER.verify(user.hash if user is not None else _dummy_hash(), password)
        except (VerificationError, InvalidHashError):
            return None
        return user

    def role_of(self, name: str) -> Role | None:
        """The role `name` has in the file now (None: no longer a user)."""
        try:
            users = read_users(self.path).users
        except ConfigurationError:
            return None
        return next((u.role for u in users if u.name == name), None)
