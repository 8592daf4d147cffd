"""Where a table's bus listens and its keys live when nothing else is configured.

Loopback TCP ports so that `studio run`, `studio watch`, `studio command` and `studio proxy` on
one machine find each other with no arguments; the key directory is in the user's data
directory (`$STUDIO_KEYS_DIR` overrides it, for tests and for several tables on one machine).
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

PUBLIC_ENDPOINT = "tcp://127.0.0.1:7710"
"""The public stream of the default table."""

RESTRICTED_ENDPOINT = "tcp://127.0.0.1:7711"
"""The restricted stream (CURVE) of the default table."""

REPLAY_ENDPOINT = "tcp://127.0.0.1:7712"
"""The replay service (CURVE) of the default table."""

COMMAND_ENDPOINT = "tcp://127.0.0.1:7713"
"""The command channel (CURVE) of the default table."""

PROXY_FRONTEND = "tcp://127.0.0.1:7720"
"""Where `studio proxy` serves the studio-wide stream."""

PROXY_RESTRICTED_FRONTEND = "tcp://127.0.0.1:7721"
"""Where `studio proxy` serves the tables' restricted streams (CURVE)."""

JACKPOT_ENDPOINT = "tcp://127.0.0.1:7730"
"""Where `studio jackpot` publishes the pool for the overlays (not the proxy's port: both run on
one studio machine)."""

SERVER_KEY_NAME = "table"
"""The name of the table's own key pair in the key directory (`table.key`, `table.key_secret`)."""

ALLOW_LIST_NAME = "allow_list.json"
"""The allow-list file's name in the key directory."""


def keys_dir() -> Path:
    """The key directory.

    `$STUDIO_KEYS_DIR`, else `$XDG_DATA_HOME/studio/keys`, else `~/.local/share/studio/keys`.
    """
    explicit = os.environ.get("STUDIO_KEYS_DIR")
    if explicit:
        return Path(explicit)
    # platformdirs applies the XDG rules (an unset or empty variable means the default).
    return platformdirs.user_data_path("studio") / "keys"
