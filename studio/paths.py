"""The user's studio directories, by the XDG rules (platformdirs).

Kept apart from `studio.config` (which loads the device registries, OpenCV's among them) so a
client that only looks for a running table's run file imports nothing heavy.
"""

from __future__ import annotations

from pathlib import Path

import platformdirs


def data_dir() -> Path:
    """The user's studio data directory: `$XDG_DATA_HOME/studio`, else `~/.local/share/studio`."""
    # platformdirs applies the XDG rules (an unset or empty variable means the default).
    return platformdirs.user_data_path("studio")


def cache_dir() -> Path:
    """The user's studio cache directory: `$XDG_CACHE_HOME/studio`, else `~/.cache/studio`.

    What is kept there can always be made again (the learned index reader of a deck).
    """
    return platformdirs.user_cache_path("studio")
