"""How long `studio --version`, `studio --help` and every subcommand's --help take to start.

Each command runs `--runs` times in a fresh process; the wall-clock median and 90th percentile
(`statistics.quantiles`) are printed beside the target (0.2 s for `--version` and `--help`,
0.3 s for a subcommand's --help) and beside `python -c pass`, the floor no command can go under
on this machine. The median CPU time (user + system) is printed too: on a machine shared with
other work the wall clock mostly measures the wait for a core, the CPU time what the start
costs. The subcommands are those of the command's own registry (`studio.cli.COMMANDS`), so a
new one is measured without being named here. Beside each --help, the heavy libraries it
imported (`--modules`, one more run each): none should be there before a command runs.

    python bench/cli_start.py [--runs 15] [--target 0.3] [--only NAME ...] [--modules] [--json]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time

from studio.cli import COMMANDS as SUBCOMMANDS

VERSION_TARGET = 0.2
"""Seconds for `studio --version` and `studio --help`, which import no subcommand's module."""
HELP_TARGET = 0.3
"""Seconds for a subcommand's --help: its module and what its options' choices come from."""
HEAVY = ("cv2", "onnxruntime", "onnx", "jax", "zmq", "psycopg", "numpy", "pydantic", "aiohttp")
"""Libraries a --help has no use for (the test holds cv2, onnxruntime and jax out)."""

_IMPORTED = """\
import os, runpy, sys
sys.argv = ["studio", *sys.argv[1:]]
sys.stdout = open(os.devnull, "w")
try:
    runpy.run_module("studio.cli", run_name="__main__")
except SystemExit:
    pass
print(" ".join(m for m in {heavy!r} if m in sys.modules), file=sys.__stdout__)
"""


def _commands(only: list[str] | None) -> dict[str, tuple[list[str], float]]:
    cli = [sys.executable, "-m", "studio.cli"]
    found: dict[str, tuple[list[str], float]] = {
        "python -c pass": ([sys.executable, "-c", "pass"], 0.0),
        "studio --version": ([*cli, "--version"], VERSION_TARGET),
        "studio --help": ([*cli, "--help"], VERSION_TARGET),
    }
    for name in SUBCOMMANDS:
        if only is None or name in only:
            found[f"studio {name} --help"] = ([*cli, name, "--help"], HELP_TARGET)
    return found


def _time(command: list[str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds (user + system) of one run of `command`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _heavy(command: list[str]) -> str:
    """The heavy libraries `command` (a `studio` command line) imports, space-separated."""
    if command[1:3] != ["-m", "studio.cli"]:
        return ""
    script = _IMPORTED.format(heavy=HEAVY)
    found = subprocess.run(
        [sys.executable, "-c", script, *command[3:]],
        check=True,
        capture_output=True,
        text=True,
    )
    return found.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--target", type=float, default=HELP_TARGET, help="for subcommands' help")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="only these subcommands")
    parser.add_argument("--modules", action="store_true", help="list heavy imports per command")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = {}
    for name, (command, target) in _commands(args.only).items():
        _time(command)  # warm the page cache: the first start reads every file from disk
        runs = [_time(command) for _ in range(args.runs)]
        times = [wall for wall, _ in runs]
        target = args.target if target == HELP_TARGET else target
        median = statistics.median(times)
        figures[name] = {
            "median_s": median,
            "p90_s": statistics.quantiles(times, n=10)[-1] if len(times) > 1 else median,
            "cpu_median_s": statistics.median(cpu for _, cpu in runs),
            "target_s": target or None,
            "met": median <= target if target else None,
            "heavy": _heavy(command) if args.modules else None,
        }
    if args.json:
        print(json.dumps({"runs": args.runs, "figures": figures}))
        return
    print(f"{'command':28} {'median':>8} {'p90':>8} {'cpu':>6} {'target':>7}        heavy imports")
    for name, f in figures.items():
        target = (
            f"{f['target_s']:7.2f} {'met' if f['met'] else 'NOT met':7}"
            if f["met"] is not None
            else " " * 15
        )
        print(
            f"{name:28} {f['median_s']:8.3f} {f['p90_s']:8.3f} {f['cpu_median_s']:6.3f} "
            f"{target} {f['heavy'] or ''}"
        )
    missed = [name for name, f in figures.items() if f["met"] is False]
    print(f"{len(missed)} above target" + (f": {', '.join(missed)}" if missed else ""))


if __name__ == "__main__":
    main()
