"""Card-to-subscriber latency: from the simulated shoe writing a card frame into the pty to the
public subscriber receiving that card's `card_dealt` event, through the whole table (`studio run`:
serial driver, controller, journal with every input fsynced with its events before they are
published, publisher), beside
the bare path (pty -> pyserial reader -> PUB -> SUB, no controller, no journal) measured in the
same run.

Both paths run in their own process, as in production, and the subscriber runs here; the shoe's
log gives each card's write time and the subscriber notes each arrival, both on CLOCK_MONOTONIC
(one clock for every process on the machine). The n-th card written is the n-th `card_dealt`
received: a pty and the framed protocol keep order, and the run fails if any event had to be
fetched from replay (its latency would not be the stream's).

    python bench/card_latency.py [--cards N] [--durable-events] [--json]

With `--json` the last line is one object {"cards", "p50_ms", "p99_ms", "max_ms", "bare_p50_ms",
"bare_p99_ms", "disk_commit_p50_ms", "disk_commit_paced_p50_ms", "disk_commit_paced_p99_ms",
"floor_p50_ms", "floor_p99_ms", "margin_p50_ms", "margin_p99_ms", "met"} (one fsynced SQLite
commit back to back, and at the table's pace; the floor, bare path plus the paced commit: what a
table with no Python work at all would show, since every card waits for both; the margins, table
minus floor). Target, in the same run: table p50 <= floor p50 + 0.3 ms and table p99 <= floor
p99 + 1.5 ms. The paced commits are measured half before and half after the table, so a disk
that grows busier or quieter during the run moves the floor with it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import zmq

from drivers.shoe import SerialShoe, SimulatedShoe
from drivers.shoe.readings import CardRead
from studio.bus import KeyPair, ReplayTarget, Subscriber

TABLE = """\
[table]
game = "caribbean-stud"
betting_seconds = 0.05
yellow_seconds = 0.01
decision_seconds = 0.05
round_gap_seconds = 0.02
[shoe]
pty = "{root}/shoe"
log = "{root}/shoe.log"
[journal]
path = "{root}/table.journal"
durable_events = {durable}
[bus]
public = "ipc://{root}/pub"
restricted = "ipc://{root}/res"
replay = "ipc://{root}/rep"
commands = "ipc://{root}/cmd"
keys_dir = "{root}/keys"
[dealer]
draw_seconds = 0.005
# The card path alone, as measured before the defaults got the synthetic camera.
[camera]
backend = "none"
# Any free port: another table on this machine may hold the default one.
[metrics]
port = 0
"""
CARDS_PER_ROUND = 10
P50_ALLOWANCE = 0.3
"""Milliseconds of the table's own work a card may add to the floor at the median."""
P99_ALLOWANCE = 1.5
"""Milliseconds of the table's own work a card may add to the floor at the 99th percentile."""
BARE_INTERVAL = 0.02
"""Seconds between the bare path's cards: about the table's pace (its dealer looks every 20 ms)."""


def percentile(samples: list[float], q: float) -> float:
    """The `q` quantile (0.99 for p99) of `samples`, by numpy's linear interpolation."""
    return float(np.percentile(samples, q * 100))


def written_times(log: Path) -> list[float]:
    return [json.loads(line)["t"] for line in log.read_text().splitlines() if line.strip()]


def table_path(root: Path, cards: int, durable: bool) -> list[float]:
    """Run `studio run` for enough rounds; return each card's latency in seconds."""
    config = root / "table.toml"
    config.write_text(TABLE.format(root=root, durable="true" if durable else "false"))
    rounds = math.ceil(cards / CARDS_PER_ROUND)
    env = {**os.environ, "XDG_DATA_HOME": str(root / "data"), "STUDIO_KEYS_DIR": str(root / "keys")}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "studio.cli",
            "run",
            "--config",
            str(config),
            "--rounds",
            str(rounds),
        ],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.strip() == "ready":
                break
        server = KeyPair.load(root / "keys" / "table.key").public
        arrivals: list[float] = []
        with Subscriber(
            f"ipc://{root}/pub",
            {"T01": ReplayTarget(f"ipc://{root}/rep", server)},
            client_keys=KeyPair.load(root / "keys" / "observer.key_secret"),
        ) as sub:
            results = 0
            while results < rounds:
                event = sub.receive(timeout=30)
                now = time.monotonic()
                if event is None:
                    raise SystemExit("the table stopped publishing")
                if event.type == "card_dealt":
                    arrivals.append(now)
                results += event.type == "round_result"
            if sub.replayed:
                raise SystemExit(f"{sub.replayed} events came from replay: rerun on a quieter box")
        if proc.wait(timeout=30) != 0:
            raise SystemExit("studio run failed")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    writes = written_times(root / "shoe.log")
    if len(writes) != len(arrivals):
        raise SystemExit(f"{len(writes)} cards written but {len(arrivals)} card events received")
    return [a - w for w, a in zip(writes, arrivals, strict=True)]


def bare_serve(root: Path, cards: int) -> None:
    """The bare path's far side: simulated shoe on a pty, SerialShoe, PUB. Starts on stdin."""
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    pub = ctx.socket(zmq.PUB)
    pub.bind(f"ipc://{root}/bare")
    with open(root / "bare.log", "w") as log:
        shoe = SimulatedShoe(
            f"pty:{root}/bare-shoe", "framed", cards=cards, interval=BARE_INTERVAL, log_to=log
        )
        with shoe, SerialShoe(str(root / "bare-shoe"), "framed") as reader:
            print("ready", flush=True)
            sys.stdin.readline()
            shoe.start()
            sent = 0
            while sent < cards:
                delivery = reader.read(timeout=5)
                if delivery is None:
                    raise SystemExit("the bare shoe stopped")
                if isinstance(delivery.item, CardRead):
                    pub.send(delivery.item.card.code.encode())
                    sent += 1
            shoe.wait()
    pub.close(linger=1000)
    ctx.term()


def bare_path(root: Path, cards: int) -> list[float]:
    proc = subprocess.Popen(
        [sys.executable, __file__, "--bare-serve", str(root), "--cards", str(cards)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    sub = ctx.socket(zmq.SUB)
    try:
        assert proc.stdout is not None and proc.stdin is not None
        proc.stdout.readline()
        sub.setsockopt(zmq.SUBSCRIBE, b"")
        sub.connect(f"ipc://{root}/bare")
        time.sleep(0.5)  # the subscription must reach the PUB before the first card
        proc.stdin.write("go\n")
        proc.stdin.flush()
        arrivals = []
        while len(arrivals) < cards:
            if not sub.poll(10_000):
                raise SystemExit("the bare path stopped")
            sub.recv()
            arrivals.append(time.monotonic())
        proc.wait(timeout=30)
    finally:
        sub.close(linger=0)
        ctx.term()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    writes = written_times(root / "bare.log")
    return [a - w for w, a in zip(writes, arrivals, strict=True)]


PACE = 0.015
"""Seconds between two paced commits: about the table's card pace in this bench. A commit after
an idle gap costs more than one right after another (measured here: 0.2 ms back to back, 0.27
ms 5 ms apart, 0.53 ms 20 ms apart), so the paced figure is the floor a card's append meets."""


def durable_commits(
    root: Path, count: int = 300, gap: float = 0.0, name: str = "back-to-back"
) -> list[float]:
    """What one fsynced SQLite commit costs on this disk now (the journal's input append).

    `gap` seconds of idleness come before each commit (0: back to back); `name` names the file.
    """
    db = sqlite3.connect(root / f"commits-{name}.db", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE t (x TEXT)")
    times = []
    for _ in range(count):
        if gap:
            time.sleep(gap)
        start = time.monotonic()
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO t VALUES (?)", ("x" * 300,))
        db.execute("COMMIT")
        times.append(time.monotonic() - start)
    db.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--durable-events", action="store_true", help="fsync events too")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--bare-serve", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_serve is not None:
        bare_serve(args.bare_serve, args.cards)
        return
    with tempfile.TemporaryDirectory(prefix="card-latency-") as tmp:
        root = Path(tmp)
        paced = durable_commits(root, 100, PACE, name="before")
        bare = bare_path(root, args.cards)
        table = table_path(root, args.cards, args.durable_events)
        commits = durable_commits(root)
        paced += durable_commits(root, 100, PACE, name="after")
    ms = lambda s: round(s * 1000, 3)  # noqa: E731
    floor_p50 = percentile(bare, 0.50) + percentile(paced, 0.50)
    floor_p99 = percentile(bare, 0.99) + percentile(paced, 0.99)
    margin_p50 = ms(percentile(table, 0.50) - floor_p50)
    margin_p99 = ms(percentile(table, 0.99) - floor_p99)
    met = margin_p50 <= P50_ALLOWANCE and margin_p99 <= P99_ALLOWANCE
    result: dict[str, Any] = {
        "cards": len(table),
        "p50_ms": ms(percentile(table, 0.50)),
        "p99_ms": ms(percentile(table, 0.99)),
        "max_ms": ms(max(table)),
        "bare_p50_ms": ms(percentile(bare, 0.50)),
        "bare_p99_ms": ms(percentile(bare, 0.99)),
        "disk_commit_p50_ms": ms(percentile(commits, 0.5)),
        "disk_commit_paced_p50_ms": ms(percentile(paced, 0.5)),
        "disk_commit_paced_p99_ms": ms(percentile(paced, 0.99)),
        "floor_p50_ms": ms(floor_p50),
        "floor_p99_ms": ms(floor_p99),
        "margin_p50_ms": margin_p50,
        "margin_p99_ms": margin_p99,
        "met": met,
    }
    journal = "inputs and events fsynced" if args.durable_events else "inputs fsynced"
    print(f"card -> public subscriber over {len(table)} cards ({journal}):")
    print(
        f"  table  p50 {result['p50_ms']} ms  p99 {result['p99_ms']} ms  max {result['max_ms']} ms"
    )
    print(
        f"  bare   p50 {result['bare_p50_ms']} ms  p99 {result['bare_p99_ms']} ms  "
        f"max {ms(max(bare))} ms  (pty -> pyserial -> PUB -> SUB, {len(bare)} cards)"
    )
    print(
        f"  disk   one fsynced commit p50 {ms(percentile(commits, 0.5))} ms  "
        f"p99 {ms(percentile(commits, 0.99))} ms back to back; "
        f"p50 {ms(percentile(paced, 0.5))} ms  p99 {ms(percentile(paced, 0.99))} ms "
        f"{PACE * 1000:g} ms apart, before and after the table (what each card's append waits for)"
    )
    print(
        f"  floor  p50 {result['floor_p50_ms']} ms  p99 {result['floor_p99_ms']} ms "
        "(bare + paced commit)"
    )
    print(
        f"  target p50 <= floor + {P50_ALLOWANCE} ms: margin {margin_p50:+.3f} ms; "
        f"p99 <= floor + {P99_ALLOWANCE} ms: margin {margin_p99:+.3f} ms: "
        f"{'met' if met else 'NOT met'}"
    )
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
