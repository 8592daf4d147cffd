"""Journal append latency with durable commits (p50/p99), beside a bare durable SQLite insert.

Each measurement commits one transaction per append in WAL mode with `synchronous=FULL`, on the
disk of `--dir` (default: the system temp dir; never tmpfs, where fsync costs nothing):

* baseline: a bare `INSERT` of the same JSON text into a one-column table, committed;
* `append_input`: canonical JSON, SHA-256 chain link, the head update, committed;
* `append_events`: the two envelopes a card produces (public and restricted), committed to the
  WAL without an fsync (the default: the next input's fsync carries them), and with one
  (`durable_events=True`);
* `submit`: journal the input, apply it in the real controller, store its events.

    .venv/bin/python bench/journal.py [--appends N] [--dir PATH]

Target (issue): journal append p99 under 2 ms.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import numpy as np

from studio.controller import TableController
from studio.journal import Journal, RecordedTable, canonical_json
from studio.messages import CardDrawn, Envelope, TableSettings, Tick
from studio.simulation import START


def _percentiles(samples: list[float]) -> str:
    p50, p99 = (float(v) * 1e3 for v in np.percentile(samples, [50, 99]))
    mean = statistics.fmean(samples) * 1e3
    return f"p50 {p50:6.3f} ms  p99 {p99:6.3f} ms  mean {mean:6.3f} ms"


def _time(n: int, step: Callable[[int], object]) -> list[float]:
    samples = []
    for i in range(n):
        start = time.perf_counter()
        step(i)
        samples.append(time.perf_counter() - start)
    return samples


def bare_insert(path: Path, n: int, body: str) -> list[float]:
    """Durable WAL inserts of `body`, one transaction each: the floor any journal pays."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")

    def step(_: int) -> None:
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO t (body) VALUES (?)", (body,))
        db.execute("COMMIT")

    try:
        return _time(n, step)
    finally:
        db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=2000)
    parser.add_argument("--dir", default=None, help="where the files go (a real disk)")
    args = parser.parse_args()
    n = args.appends
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="bench-journal-") as name:
        root = Path(name)
        drawn = CardDrawn(ts=START, card="AS", raw="sim:AS").model_dump(mode="json")
        envelope = Envelope(
            table="T01",
            seq=1,
            game_number="T01-20261129-120000",
            ts=START,
            audience="public",
            type="card_dealt",
            body={"position": "player-1", "face": "up", "number": 1, "card": "AS"},
        ).model_dump(mode="json")
        print(f"durable commits (WAL, synchronous=FULL), {n} each, in {root}")
        base = bare_insert(root / "bare.db", n, canonical_json(drawn))
        print(f"  bare SQLite insert      {_percentiles(base)}")

        batches: dict[bool, list[float]] = {}
        for durable in (False, True):
            with Journal(root / f"inputs-{durable}.journal", durable_events=durable) as journal:
                inputs = _time(n, lambda _: journal.append_input(drawn))

                def events(_: int) -> None:
                    seq = journal.last_event_seq
                    pair = [envelope | {"seq": seq + 1}, envelope | {"seq": seq + 2}]
                    journal.append_events(pair)

                batches[durable] = _time(n, events)
        print(f"  journal append_input    {_percentiles(inputs)}")
        print(f"  journal append_events   {_percentiles(batches[False])}  (2 events, no fsync)")
        print(f"  ... durable_events      {_percentiles(batches[True])}  (2 events, fsync)")

        settings = TableSettings(game="ultimate-holdem")
        with Journal(root / "table.journal") as journal:
            table = RecordedTable(journal, TableController(settings))
            steps = _time(n, lambda i: table.step(Tick(ts=START + timedelta(seconds=i))))
        print(f"  RecordedTable.step      {_percentiles(steps)}  (tick: input + events, one fsync)")
        p99 = float(np.percentile(inputs, 99)) * 1e3
        print(f"target: append p99 < 2 ms: {'met' if p99 < 2 else 'NOT met'} ({p99:.3f} ms)")


if __name__ == "__main__":
    main()
