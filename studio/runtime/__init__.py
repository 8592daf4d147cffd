"""The table's runtime: the asyncio shell that wires devices, clock, journal, controller and bus.

`TableRuntime(config).run()` (or `run_table(config)`) runs one table from a `RuntimeConfig`
(`studio.config`); `studio run` is its command line. The parts: `table` (the loop, inputs,
commands, listeners, life cycle), `parts` (every part of a running table, built at once by
`build_parts`), `lock` (one running table per journal), `devices` (the shoe and its bridge into
the loop), `camera` (the camera backends and the reader thread that turns frames into inputs),
`dealer` (the simulated dealer), `source` (the replay service's journal-backed event source),
`keys` (first-run keys), `announce` (the run file that tells `studio watch` where a table's
streams are).
"""

from studio.runtime.announce import RunFile, find_table, read_run_file, run_dir
from studio.runtime.devices import DealerShoe, ShoeDevice
from studio.runtime.keys import TableKeys, ensure_keys
from studio.runtime.parts import EventListener, TableParts, build_parts
from studio.runtime.source import JournalSource
from studio.runtime.table import TableRuntime, run_table

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
