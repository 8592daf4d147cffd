"""`JournalLock`: one running table per journal, held for as long as the table runs."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from studio.errors import ConfigurationError


class JournalLock:
    """An exclusive advisory lock on `<journal>.lock` for as long as a table runs on the journal.

    The journal notices a second writer only at an append, and recovery appends at once: a second
    `studio run` on the same journal would move the head under the running table and stop it.
    Context manager; `close()` is idempotent. Raises `ConfigurationError` when another process
    holds the lock.
    """

    def __init__(self, journal: Path) -> None:
        self.path = journal.with_name(journal.name + ".lock")
        self._fd: int | None = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            self.close()
            raise ConfigurationError(
                f"{journal} is in use by another running table (lock {self.path})"
            ) from err

    def close(self) -> None:
        """Release the lock; calling it again does nothing."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def __enter__(self) -> JournalLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
