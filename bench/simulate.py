"""`studio simulate` throughput: rounds per second with every input durably committed.

Plays `--rounds` rounds (default 1000; the issue's target is 10,000 in under two minutes) through
`studio.simulation.simulate` into a fresh journal on the disk of `--dir` (never tmpfs, where
fsync costs nothing), then prints rounds per second, inputs and events, and beside them the
baseline measured in the same run: the time the same number of bare durable SQLite WAL commits
takes (one per input: each input commits with its events in one fsynced transaction, as in
`studio run`), i.e. the disk's floor for this work.

    .venv/bin/python bench/simulate.py [--rounds N] [--game G] [--faults SPEC] [--dir PATH]
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import time
from pathlib import Path

from studio.journal import Journal
from studio.messages import TableSettings
from studio.simulation import FaultRates, simulate

SAMPLE = 2000
"""Bare commits timed for the baseline; the floor is extrapolated from their mean."""


def bare_commit_seconds(path: Path, n: int) -> float:
    """Mean seconds of one durable WAL commit of a 200-byte row (one transaction each)."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        start = time.perf_counter()
        for _ in range(n):
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO t (body) VALUES (?)", ("x" * 200,))
            db.execute("COMMIT")
        return (time.perf_counter() - start) / n
    finally:
        db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--game", default="caribbean-stud")
    parser.add_argument("--faults", default="", help="as for studio simulate (default: none)")
    parser.add_argument("--camera", action="store_true", help="a table with a camera")
    parser.add_argument("--dir", default=None, help="where the journal goes (a real disk)")
    # Kept for its callers: events commit with their input now, so it changes only the events a
    # recovery stores for a journal written two commits per input, and this journal is new.
    parser.add_argument("--durable-events", action="store_true", help="fsync events too")
    args = parser.parse_args()
    settings = TableSettings(game=args.game, camera=args.camera)
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="bench-simulate-") as name:
        path = Path(name) / "table.journal"
        # The disk is shared: sample its commit time before and after, and report both.
        commit_before = bare_commit_seconds(Path(name) / "bare-before.db", SAMPLE)
        start = time.perf_counter()
        summary = simulate(
            path,
            settings,
            rounds=args.rounds,
            seed=1,
            faults=FaultRates.parse(args.faults),
            durable_events=args.durable_events,
        )
        elapsed = time.perf_counter() - start
        with Journal(path, readonly=True) as journal:
            inputs = journal.input_count
        commit_after = bare_commit_seconds(Path(name) / "bare-after.db", SAMPLE)
    fsyncs = inputs
    commit = (commit_before + commit_after) / 2
    floor = fsyncs * commit
    print(
        f"{args.game} camera={args.camera} faults={args.faults or 'none'} "
        f"durable_events={args.durable_events}: "
        f"{summary.rounds_completed} completed, {summary.rounds_voided} voided"
    )
    print(
        f"  simulate: {args.rounds} rounds in {elapsed:7.2f} s = {args.rounds / elapsed:8.1f} "
        f"rounds/s ({inputs} inputs, {summary.events} events, {inputs} commits, "
        f"{fsyncs} fsynced)"
    )
    print(
        f"  baseline: {fsyncs} bare durable commits at {commit * 1e3:.3f} ms "
        f"(before {commit_before * 1e3:.3f}, after {commit_after * 1e3:.3f}) = {floor:7.2f} s "
        "(the disk's floor for this run)"
    )
    projected = elapsed / args.rounds * 10_000
    verdict = "met" if projected < 120 else "NOT met"
    print(f"target: 10,000 rounds under 120 s: {verdict} (projected {projected:.1f} s)")


if __name__ == "__main__":
    main()
