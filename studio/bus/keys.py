"""CURVE key pairs and the allow-list that maps client public keys to roles.

Key pairs are stored in ZeroMQ's own certificate format (`NAME.key` holds the public key,
`NAME.key_secret` both), so any ZeroMQ binding can load them. The allow-list is one JSON file:

    {"format": "studio-allow-list/1",
     "keys": [{"name": "alice", "role": "shift_manager", "public_key": "<40 z85 chars>"}]}

`AllowList` re-reads the file whenever its identity (inode, size, modification time) changes, so a
key removed from the file is refused from the next lookup on, even on a connection made before.
A file that cannot be read or parsed refuses every key (fail closed) until it is repaired.
"""

from __future__ import annotations

import json
import logging
import os
import re
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import zmq
import zmq.auth
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from studio.errors import KeyFileError

# The roles are the table's terms (`studio.terms`), kept importable from here.
from studio.terms import PERSON_ROLES as PERSON_ROLES
from studio.terms import ROLES as ROLES
from studio.terms import KeyRole as KeyRole

log = logging.getLogger(__name__)

RESTRICTED_READERS: frozenset[KeyRole] = frozenset({"shift_manager", "settlement", "console"})
"""Roles that may read restricted events (stream, replay, snapshot); the others see public only.

The console reads them to show a shift manager the incident's particulars; it serves its dealer
display from the public view only.
"""

ALLOW_LIST_FORMAT: Literal["studio-allow-list/1"] = "studio-allow-list/1"
"""The value of `format` in every allow-list file this module writes."""

_Z85_KEY = r"^[0-9a-zA-Z.\-:+=^!/*?&<>()\[\]{}@%$#]{40}$"


class AllowedKey(BaseModel):
    """One client key on the allow-list: a unique name, its role, its z85 public key."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")
    role: KeyRole
    public_key: str = Field(pattern=_Z85_KEY)


class AllowListFile(BaseModel):
    """The allow-list file's content; names and public keys are each unique."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["studio-allow-list/1"] = ALLOW_LIST_FORMAT
    keys: tuple[AllowedKey, ...] = ()


@dataclass(frozen=True)
class KeyPair:
    """A CURVE key pair as z85 bytes; `secret` is None when only the public half was loaded."""

    public: bytes
    secret: bytes | None

    @classmethod
    def generate(cls) -> KeyPair:
        """A fresh random key pair."""
        public, secret = zmq.curve_keypair()
        return cls(public, secret)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> KeyPair:
        """Load `NAME.key` (public only) or `NAME.key_secret` (both halves).

        Raises KeyFileError when the file is missing or not a ZeroMQ certificate.
        """
        try:
            public, secret = zmq.auth.load_certificate(os.fspath(path))
        except (OSError, ValueError) as err:
            raise KeyFileError(f"cannot load the key file {os.fspath(path)!r}: {err}") from err
        # A damaged key would otherwise pass here and fail later as a bare ZMQError (EINVAL)
        # when a socket is given it.
        for half in (public, secret):
            if half is not None and not re.fullmatch(_Z85_KEY, half.decode("latin-1")):
                raise KeyFileError(
                    f"the key file {os.fspath(path)!r} is damaged: a key is 40 z85 characters"
                )
        return cls(public, secret)

    def require_secret(self) -> bytes:
        """The secret half; raises KeyFileError if this pair was loaded from a public key file."""
        if self.secret is None:
            raise KeyFileError("this key has no secret half: pass the NAME.key_secret file")
        return self.secret


def create_key_files(directory: str | os.PathLike[str], name: str) -> tuple[Path, Path]:
    """Write a new key pair as `directory/NAME.key` and `directory/NAME.key_secret`.

    Returns the two paths. Raises KeyFileError if either file exists already (a key is never
    overwritten silently: a client holding it would be locked out).
    """
    folder = Path(directory)
    public_path, secret_path = folder / f"{name}.key", folder / f"{name}.key_secret"
    if public_path.exists() or secret_path.exists():
        raise KeyFileError(f"a key named {name!r} already exists in {folder}")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        public_file, secret_file = zmq.auth.create_certificates(os.fspath(folder), name)
        os.chmod(secret_file, 0o600)
    except OSError as err:
        raise KeyFileError(f"cannot write a key pair in {folder}: {err}") from err
    return Path(public_file), Path(secret_file)


def read_allow_list(path: str | os.PathLike[str]) -> AllowListFile:
    """Parse the allow-list file at `path`; raises KeyFileError when unreadable or invalid."""
    try:
        # Bytes, not text: pydantic reports a file that is not UTF-8 as invalid JSON, where a
        # decode error would escape every caller (and kill the ZAP handler's thread).
        content = AllowListFile.model_validate_json(Path(path).read_bytes())
    except OSError as err:
        raise KeyFileError(f"cannot read the allow-list {os.fspath(path)!r}: {err}") from err
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        reason = f"{where}: {first['msg']}" if where else first["msg"]
        raise KeyFileError(f"cannot read the allow-list {os.fspath(path)!r}: {reason}") from err
    names = [k.name for k in content.keys]
    publics = [k.public_key for k in content.keys]
    if len(set(names)) != len(names) or len(set(publics)) != len(publics):
        raise KeyFileError(f"the allow-list {os.fspath(path)!r} repeats a name or a key")
    return content


def write_allow_list(path: str | os.PathLike[str], content: AllowListFile) -> None:
    """Replace the allow-list file atomically (readers see the old or the new file, never half).

    Raises KeyFileError when the file cannot be written.
    """
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(json.dumps(content.model_dump(mode="json"), indent=2) + "\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, target)
    except OSError as err:
        raise KeyFileError(f"cannot write the allow-list {target}: {err}") from err


def register_key(path: str | os.PathLike[str], name: str, role: KeyRole, public_key: bytes) -> None:
    """Add a key to the allow-list file at `path` (created if missing).

    Raises KeyFileError if the name or the key is listed already, or the file is invalid.
    """
    current = read_allow_list(path) if Path(path).exists() else AllowListFile()
    entry = AllowedKey(name=name, role=role, public_key=public_key.decode("ascii"))
    if any(k.name == name or k.public_key == entry.public_key for k in current.keys):
        raise KeyFileError(f"the allow-list already holds the name {name!r} or its key")
    write_allow_list(path, AllowListFile(keys=(*current.keys, entry)))


def unregister_key(path: str | os.PathLike[str], name: str) -> None:
    """Remove the key called `name` from the allow-list file; raises KeyFileError if absent."""
    current = read_allow_list(path)
    kept = tuple(k for k in current.keys if k.name != name)
    if len(kept) == len(current.keys):
        raise KeyFileError(f"the allow-list has no key named {name!r}")
    write_allow_list(path, AllowListFile(keys=kept))


class AllowList:
    """The live allow-list: who a public key is, re-read from its file whenever the file changes.

    Thread-safe: the ZAP handler and the command channel look keys up from their own threads.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        """Watch the allow-list at `path`; raises KeyFileError if it cannot be read now."""
        self._path = Path(path)
        self._lock = threading.Lock()
        self._stamp: tuple[int, int, int] | None = None
        self._by_key: dict[str, AllowedKey] = {}
        with self._lock:
            self._refresh(strict=True)

    @property
    def path(self) -> Path:
        """The file this list is read from."""
        return self._path

    def lookup(self, public_key: str | bytes) -> AllowedKey | None:
        """The entry for a z85 public key as the file says now, or None if it is not listed."""
        key = public_key.decode("ascii") if isinstance(public_key, bytes) else public_key
        with self._lock:
            self._refresh(strict=False)
            return self._by_key.get(key)

    def _refresh(self, *, strict: bool) -> None:
        try:
            info = self._path.stat()
            stamp = (info.st_ino, info.st_size, info.st_mtime_ns)
        except OSError as err:
            if strict:
                raise KeyFileError(f"cannot read the allow-list {self._path}: {err}") from err
            stamp = None
        if stamp is not None and stamp == self._stamp:
            return
        try:
            if stamp is None:
                raise KeyFileError(f"the allow-list {self._path} has gone")
            content = read_allow_list(self._path)
        except KeyFileError:
            if strict:
                raise
            # Fail closed: a list we cannot read grants nothing, not the last version's rights.
            log.exception("allow-list unreadable; refusing every key until it is repaired")
            self._by_key, self._stamp = {}, None
            return
        self._by_key = {k.public_key: k for k in content.keys}
        self._stamp = stamp
        log.info("allow-list %s loaded: %d keys", self._path, len(self._by_key))
