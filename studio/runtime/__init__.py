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

The names below are imported when first used (PEP 562,
by `lazy_loader` from the names in `__init__.pyi`): a client that only reads the run file
(`studio status`, `watch`, `command`) must not pay for OpenCV and the camera to find its table.
"""

import lazy_loader

# The stub beside this file is the one list of public names: the type checker reads it as the
# package's interface, and `attach_stub` imports each name from its module on first use.
__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
