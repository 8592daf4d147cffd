"""First-run keys: the table's own CURVE pair and local shift manager, observer and console keys.

`studio run` calls `ensure_keys` before it binds anything, so that on a fresh machine
`studio command ... --key .../shift-manager.key_secret`, `studio watch` and `studio console`
work at once. Keys
that exist are never touched (a key is never overwritten: its holder would be locked out), and
a name already on the allow-list is not registered twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from studio.bus.defaults import ALLOW_LIST_NAME, SERVER_KEY_NAME
from studio.bus.keys import (
    AllowList,
    KeyPair,
    KeyRole,
    create_key_files,
    read_allow_list,
    register_key,
)
from studio.bus.security import ServerSecurity

LOCAL_KEYS: tuple[tuple[str, KeyRole], ...] = (
    ("shift-manager", "shift_manager"),
    ("observer", "observer"),
    # `studio console` relays signed-in people's actions with it (the table checks their role).
    ("console", "console"),
)
"""The client keys made on first run, by name and role."""


@dataclass(frozen=True)
class TableKeys:
    """Where the table's keys are: the directory, its public key file, the allow-list."""

    directory: Path
    server_public: Path
    allow_list: Path

    def security(self) -> ServerSecurity:
        """The CURVE server identity and live allow-list; raises KeyFileError if unreadable."""
        server = KeyPair.load(self.directory / f"{SERVER_KEY_NAME}.key_secret")
        return ServerSecurity(server, AllowList(self.allow_list))

    def local_secret(self, name: str) -> Path:
        """The secret key file of a local client key, e.g. `shift-manager`."""
        return self.directory / f"{name}.key_secret"


def ensure_keys(directory: Path) -> TableKeys:
    """Make whatever of the server key and `LOCAL_KEYS` is missing in `directory`.

    Returns where the keys are. Raises KeyFileError when a file cannot be written or the
    allow-list is unreadable.
    """
    server_public = directory / f"{SERVER_KEY_NAME}.key"
    if not server_public.exists():
        create_key_files(directory, SERVER_KEY_NAME)
    allow_list = directory / ALLOW_LIST_NAME
    listed = {k.name for k in read_allow_list(allow_list).keys} if allow_list.exists() else set()
    for name, role in LOCAL_KEYS:
        public = directory / f"{name}.key"
        if not public.exists():
            create_key_files(directory, name)
        if name not in listed:
            register_key(allow_list, name, role, KeyPair.load(public).public)
    return TableKeys(directory, server_public, allow_list)
