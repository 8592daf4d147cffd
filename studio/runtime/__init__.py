"""The table's runtime: the asyncio shell that wires devices, clock, journal, controller and bus.

`TableRuntime(config).run()` (or `run_table(config)`) runs one table from a `RuntimeConfig`
(`studio.config`); `studio run` is its command line. The parts: `table` (the loop, inputs,
commands, listeners, life cycle), `parts` (every part of a running table, built at once by
`build_parts`), `lock` (one running table per journal), `devices` (the shoe and its bridge into
the loop), `camera` (the camera backends and the reader thread that turns frames into inputs),
`dealer` (the simulated dealer), `source` (the replay service's journal-backed event source),
`keys` (first-run keys), `announce` (the run file that tells `studio watch` where a table's
streams are), `banner` (the lines `studio run` prints when ready), `metrics` and `health` (the
Prometheus figures and the HTTP probes), `systemd` (Type=notify).

The names below are imported when first used (PEP 562): a client that only reads the run file
(`studio status`, `watch`, `command`) must not pay for OpenCV and the camera to find its table.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from studio.runtime.announce import RunFile, find_table, read_run_file, run_dir
    from studio.runtime.devices import DealerShoe, ShoeDevice
    from studio.runtime.keys import TableKeys, ensure_keys
    from studio.runtime.parts import EventListener, TableParts, build_parts
    from studio.runtime.source import JournalSource
    from studio.runtime.table import TableRuntime, run_table

_HOMES = {
    "RunFile": "announce",
    "find_table": "announce",
    "read_run_file": "announce",
    "run_dir": "announce",
    "DealerShoe": "devices",
    "ShoeDevice": "devices",
    "TableKeys": "keys",
    "ensure_keys": "keys",
    "EventListener": "parts",
    "TableParts": "parts",
    "build_parts": "parts",
    "JournalSource": "source",
    "TableRuntime": "table",
    "run_table": "table",
}

__all__ = [
    "DealerShoe",
    "EventListener",
    "JournalSource",
    "RunFile",
    "ShoeDevice",
    "TableKeys",
    "TableParts",
    "TableRuntime",
    "build_parts",
    "ensure_keys",
    "find_table",
    "read_run_file",
    "run_dir",
    "run_table",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # imported once: later uses are plain attribute reads
    return value
