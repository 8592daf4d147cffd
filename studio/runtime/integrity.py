"""The table's self-check against its certified manifest: when it is due, and what it found.

`IntegritySchedule` is pure (time is an argument): a check at start, then every `every`; the
runtime's clock asks it when the next one is due. `IntegrityChecker` does the hashing (I/O: the
runtime runs it off its loop) and turns the result into the `IntegrityChecked` input that
journals every hash (a difference pauses the table: `studio.controller`) and the
`IntegrityReport` notice for the restricted stream.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Literal

from studio.config import RuntimeConfig
from studio.messages import IntegrityChecked
from studio.messages.notices import IntegrityReport
from studio.runtime.manifest import (
    config_text,
    differences,
    digest_of,
    hash_files,
    package_roots,
    read_manifest,
)

Why = Literal["start", "command", "schedule"]


class IntegritySchedule:
    """When the next periodic check is due: `every` after the last check (any reason)."""

    def __init__(self, every: timedelta) -> None:
        self.every = every
        self.last: datetime | None = None

    def checked(self, at: datetime) -> None:
        """A check ran at `at`."""
        self.last = at

    def next_due(self) -> datetime | None:
        """When the next check is due (None: none ran yet, so one is due at once)."""
        return None if self.last is None else self.last + self.every

    def due(self, now: datetime) -> bool:
        """Whether a check is due at `now`."""
        due = self.next_due()
        return due is None or now >= due


class IntegrityChecker:
    """Hashes the installation and the effective configuration against the manifest at `path`.

    The manifest is read once, at construction (raises `ConfigurationError` when it cannot be);
    `roots` overrides the packages' directories (tests hash a copy).
    """

    def __init__(
        self, path: Path, config: RuntimeConfig, roots: Mapping[str, Path] | None = None
    ) -> None:
        self.path = path
        self.manifest, self.manifest_sha256 = read_manifest(path)
        self._config = config_text(config)
        self._roots = dict(roots) if roots is not None else package_roots()

    def check(self, why: Why, now: datetime) -> IntegrityChecked:
        """Hash everything now; the input that journals the result (blocking file I/O)."""
        found = hash_files(self._roots, self._config)
        return IntegrityChecked(
            ts=now,
            why=why,
            manifest=self.manifest_sha256,
            hashes=found,
            differences=differences(self.manifest.files, found),
        )


def report(table: str, checked: IntegrityChecked) -> IntegrityReport:
    """The restricted stream's notice of a journalled check."""
    return IntegrityReport(
        table=table,
        ts=checked.ts,
        why=checked.why,
        manifest=checked.manifest,
        digest=digest_of(checked.hashes),
        files=len(checked.hashes),
        differences=checked.differences,
    )
