"""How long `studio --version`, `studio --help` and some subcommands' --help take to start.

Each command runs `--runs` times in a fresh process; the median and the 90th percentile
(`statistics.quantiles`) are printed beside the target (0.2 s for `--version`, and for the
--help of `status`, `watch`, `journal` and `run`) and beside `python -c pass`, the floor no
command can go under on this machine.

    python bench/cli_start.py [--runs 15] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

TARGET_SECONDS = 0.2
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "studio --version": [sys.executable, "-m", "studio.cli", "--version"],
    "studio --help": [sys.executable, "-m", "studio.cli", "--help"],
}
# Each subcommand's --help imports that subcommand's module alone, and status, watch, journal and
# run import nothing heavy for it: they start about as fast as --version. command still loads the
# message models, where the command names it lists are defined.
for _name in ("status", "watch", "command", "journal", "run"):
    COMMANDS[f"studio {_name} --help"] = [sys.executable, "-m", "studio.cli", _name, "--help"]


def _time(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = {}
    for name, command in COMMANDS.items():
        _time(command)  # warm the page cache: the first start reads every file from disk
        times = [_time(command) for _ in range(args.runs)]
        figures[name] = {
            "median_s": statistics.median(times),
            "p90_s": statistics.quantiles(times, n=10)[-1],
        }
    if args.json:
        print(json.dumps({"target_s": TARGET_SECONDS, "figures": figures}))
        return
    print(
        f"{'command':24} {'median':>8} {'p90':>8}   "
        f"(target for --version and status, watch, journal, run --help: {TARGET_SECONDS} s)"
    )
    for name, figure in figures.items():
        print(f"{name:24} {figure['median_s']:8.3f} {figure['p90_s']:8.3f}")


if __name__ == "__main__":
    main()
