"""Where a running table's streams are: the run file `studio run` writes and `studio watch` reads.

`studio run` writes `<data dir>/run/<table>.json` once everything is bound and removes it when it
stops; a table killed outright leaves it behind, so readers check that its `pid` still runs.
Fields: table, game, pid, public, restricted, replay, commands (the bound endpoints), server_key
(the table's public key file), keys_dir, journal, and metrics (the HTTP address of `/metrics`,
`/healthz` and `/readyz`, absent when the table serves none).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from studio.errors import ConfigurationError
from studio.paths import data_dir


class RunFile(BaseModel):
    """The contents of one run file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str
    game: str
    # Positive and within pid_t: os.kill reads 0 and -1 as groups (always "alive") and
    # overflows beyond.
    pid: int = Field(gt=0, lt=2**31)
    public: str
    restricted: str
    replay: str
    commands: str
    server_key: str
    keys_dir: str
    journal: str
    metrics: str | None = None

    def alive(self) -> bool:
        """Whether the process that wrote it still runs."""
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True


def run_dir() -> Path:
    """The directory of run files (and of simulated shoes' ptys): `<data dir>/run`."""
    return data_dir() / "run"


def write_run_file(content: RunFile) -> Path:
    """Write `content` atomically as `run/<table>.json`; return its path."""
    folder = run_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{content.table}.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(content.model_dump(), indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def read_run_file(path: Path) -> RunFile:
    """Parse one run file; raises ConfigurationError when it is unreadable."""
    try:
        data: Any = json.loads(path.read_bytes())
        return RunFile.model_validate(data)
    except (OSError, ValueError) as err:
        if isinstance(err, ValidationError):
            first = err.errors()[0]
            reason = f"{'.'.join(str(p) for p in first['loc']) or 'run file'}: {first['msg']}"
        else:
            reason = str(err)
        raise ConfigurationError(
            f"cannot read the run file {path}: {reason} (remove it if no table runs there)"
        ) from err


def find_table(table: str | None) -> RunFile | None:
    """The live table `table` started by `studio run` here, or the only one when `table` is None.

    Returns None when there is none. Raises ConfigurationError when `table` is None and several
    tables run (name one with `--table`).
    """
    folder = run_dir()
    if table is not None:
        path = folder / f"{table}.json"
        if not path.exists():
            return None
        found = read_run_file(path)
        return found if found.alive() else None
    running = [r for r in map(read_run_file, sorted(folder.glob("*.json"))) if r.alive()]
    if len(running) > 1:
        names = ", ".join(r.table for r in running)
        raise ConfigurationError(f"several tables run here ({names}): choose one with --table")
    return running[0] if running else None
