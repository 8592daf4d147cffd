"""Where a table is, for every client command (`watch`, `status`, `command`): one rule.

The run file `studio run` wrote for a live table here names its endpoints and key files; with
none, the bus's default TCP endpoints and key directory are used. An `--endpoint` a user gives
always wins over both.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from studio.bus import defaults as bus
from studio.runtime import find_table


@dataclass(frozen=True)
class Location:
    """A table's id, its four endpoints, its public key file and its key directory."""

    table: str
    public: str
    restricted: str
    replay: str
    commands: str
    server_key: Path
    keys_dir: Path
    from_run_file: bool


def locate(table: str | None) -> Location:
    """The table `table` (or the only one) `studio run` started here, else the defaults.

    Raises ConfigurationError when `table` is None and several tables run here.
    """
    found = find_table(table)
    if found is not None:
        return Location(
            table=found.table,
            public=found.public,
            restricted=found.restricted,
            replay=found.replay,
            commands=found.commands,
            server_key=Path(found.server_key),
            keys_dir=Path(found.keys_dir),
            from_run_file=True,
        )
    folder = bus.keys_dir()
    return Location(
        table=table or "T01",
        public=bus.PUBLIC_ENDPOINT,
        restricted=bus.RESTRICTED_ENDPOINT,
        replay=bus.REPLAY_ENDPOINT,
        commands=bus.COMMAND_ENDPOINT,
        server_key=folder / f"{bus.SERVER_KEY_NAME}.key",
        keys_dir=folder,
        from_run_file=False,
    )
