"""50 tables through `studio proxy`'s forwarder into one archive: throughput, lag, kill and restart.

Prints (1) events per second stored at full speed by batched COPY, (2) the lag p99 (the table's
event time to its storing transaction) with 50 tables publishing at a steady pace through the
proxy, and (3) after SIGKILL of the archive process mid-run and a restart, the missing and
duplicated events (both must be 0). Starts its own PostgreSQL cluster (tests/postgres_support).

    nice .venv/bin/python bench/archive.py [--tables 50] [--rate 5] [--seconds 10]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from postgres_support import remove_cluster, start_cluster
from test_bus_support import TableRig, make_keys

from studio.archive.follow import follow
from studio.archive.migrate import migrate
from studio.archive.store import store
from studio.bus import ReplayTarget, Subscriber
from studio.bus.proxy import StreamProxy
from studio.bus.wire import to_event

TARGET = 20_000
"""Events per second the archive must store at full speed."""


def _envelope(table: str, seq: int, ts: datetime) -> dict[str, object]:
    return {
        "table": table,
        "seq": seq,
        "game_number": f"{table}-{seq // 40}",
        "ts": ts.isoformat(),
        "audience": "public",
        "type": "card_dealt",
        "body": {"position": "player-1", "face": "up", "number": seq % 9, "card": "AS"},
    }


def full_speed(dsn: str, tables: int, per_table: int) -> float:
    events = [
        to_event(_envelope(f"F{t:02}", s, datetime.now(UTC)))
        for s in range(1, per_table + 1)
        for t in range(tables)
    ]
    with psycopg.connect(dsn, autocommit=True) as conn:
        migrate(conn)
        start = time.perf_counter()
        for i in range(0, len(events), 5000):
            store(conn, events[i : i + 5000])
        return len(events) / (time.perf_counter() - start)


def _archive(dsn: str, stream: str, targets: Mapping[str, ReplayTarget], keys: object) -> None:
    def subscribe(after: Mapping[str, int]) -> Subscriber:
        return Subscriber(stream, targets, client_keys=keys, after=after)  # type: ignore[arg-type]

    follow(dsn, subscribe, threading.Event())


def through_proxy(dsn: str, tables: int, rate: float, seconds: float) -> None:
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench-archive-{os.getpid()}"
    folder.mkdir()
    keys = make_keys(folder)
    rigs = [TableRig(keys, f"T{t:02}", heartbeat=0.5) for t in range(tables)]
    try:
        upstreams = [ReplayTarget(r.endpoints["public"]) for r in rigs]
        with StreamProxy("tcp://127.0.0.1:0", upstreams) as proxy:
            targets = {r.table: r.target() for r in rigs}
            observer = keys.clients["observer"]
            ctx = multiprocessing.get_context("fork")
            archive = ctx.Process(target=_archive, args=(dsn, proxy.frontend, targets, observer))
            archive.start()
            total = int(seconds * rate)
            killed = False
            for step in range(1, total + 1):
                tick = time.monotonic()
                now = datetime.now(UTC)
                for rig in rigs:
                    rig.emit(_envelope(rig.table, step, now))
                if not killed and step == total // 2:
                    os.kill(archive.pid or 0, signal.SIGKILL)  # mid-run, no goodbye
                    archive.join()
                    killed = True
                    archive = ctx.Process(
                        target=_archive, args=(dsn, proxy.frontend, targets, observer)
                    )
                    archive.start()
                time.sleep(max(0.0, 1 / rate - (time.monotonic() - tick)))
            expected = total * tables
            deadline = time.monotonic() + 60
            with psycopg.connect(dsn, autocommit=True) as conn:
                while time.monotonic() < deadline:
                    row = conn.execute(
                        "SELECT count(*) FROM archive_event WHERE table_id LIKE 'T%'"
                    ).fetchone()
                    if row is not None and row[0] >= expected:
                        break
                    time.sleep(0.2)
                os.kill(archive.pid or 0, signal.SIGKILL)
                archive.join()
                row = conn.execute(
                    "SELECT count(*), count(DISTINCT (table_id, seq)),"
                    " percentile_cont(0.99) WITHIN GROUP (ORDER BY"
                    " extract(epoch FROM archived_at - ts)),"
                    " percentile_cont(0.5) WITHIN GROUP (ORDER BY"
                    " extract(epoch FROM archived_at - ts))"
                    " FROM archive_event WHERE table_id LIKE 'T%'"
                ).fetchone()
            assert row is not None
            stored, distinct, p99, p50 = int(row[0]), int(row[1]), float(row[2]), float(row[3])
            print(f"through the proxy: {tables} tables x {rate:g} events/s for {seconds:g} s,")
            print(f"  archive killed (SIGKILL) at {seconds / 2:g} s and restarted")
            print(
                f"  lag p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms (the kill's gap included)"
            )
            missing, duplicated = expected - distinct, stored - distinct
            print(f"  expected {expected}, missing {missing}, duplicated {duplicated}")
    finally:
        for rig in rigs:
            rig.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--rate", type=float, default=5.0, help="events per second per table")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--per-table", type=int, default=2000, help="full-speed events per table")
    args = parser.parse_args()
    cluster = start_cluster()
    try:
        speed = full_speed(cluster.dsn, args.tables, args.per_table)
        verdict = "met" if speed >= TARGET else "NOT met"
        print(
            f"full speed: {speed:,.0f} events/s stored (batches of 5000, COPY);"
            f" target {TARGET:,}: {verdict}"
        )
        through_proxy(cluster.dsn, args.tables, args.rate, args.seconds)
    finally:
        remove_cluster(cluster)


if __name__ == "__main__":
    main()
