"""Card-to-subscriber latency: from the simulated shoe writing a card frame into the pty to a
public `Subscriber` returning that card's `card_dealt` event (decoded and validated), through the
whole table (`studio run`: serial driver, controller, journal with every input fsynced with its
events in one transaction before they are published, publisher), beside the floor measured in
the same run.

Both paths run in their own process, as in production, and the subscriber runs here; the shoe's
log gives each card's write time and the subscriber notes each arrival, both on CLOCK_MONOTONIC
(one clock for every process on the machine). The shoes' logs are kept on a memory file system
(/dev/shm) where there is one: appended after every card on the journal's file system, the log
lengthened the table's fsync (see `memory_dir`). A card arrives when `Subscriber.receive()` returns
its event, on both paths, so both pay the same receive-side work (frames, envelope decoded and
validated, sequence checked). The n-th card written is the n-th `card_dealt` received: a pty and
the framed protocol keep order.

The table deals from its start, so its subscriber joins while it deals: the join is the first
message the stream itself delivers (the welcome heartbeat or an event). Only cards the shoe
writes after the join are measured (the first `--cards` of them; one round more is played for
those before it), and the run fails if any event comes from replay after the join (its latency
would not be the stream's).

The floor is what a table with no Python work of its own would show, since every card waits for
both parts: the bare path (the same simulated shoe on a pty -> `SerialShoe` -> XPUB -> the same
`Subscriber`, sending the table's own measured `card_dealt` frames, the shoe starting once the
subscription has reached the socket), plus one paced commit: a copy of the table's journal, in
the same file system, receiving again the rows of one of the table's card transactions (head in
`meta`, the input and its events, same sizes and indices) in one fsynced transaction, at the
table's own card pace (the median gap between its cards written), into a WAL grown first to the
size those commits write over, as the table's long has been. Both run after the table (they need
its journal, events and pace): half the paced commits before the bare path, half after. The
load average (1 min) at the start and the end is printed beside the figures: read a margin
on a quiet machine.

    python bench/card_latency.py [--cards N] [--durable-events] [--json]

With `--json` the last line is one object {"cards", "p50_ms", "p99_ms", "max_ms", "bare_p50_ms",
"bare_p99_ms", "disk_commit_p50_ms", "disk_commit_paced_p50_ms", "disk_commit_paced_p99_ms",
"pace_ms", "cards_before_join", "floor_p50_ms", "floor_p99_ms", "margin_p50_ms",
"margin_p99_ms", "met", "load_1m"} (a small fsynced SQLite commit back to back, for reference;
the card transaction at the table's pace; the floor, bare plus paced commit at each percentile;
the margins, table minus floor; the load average at the start and the end). Target, in the same
run: table p50 <= floor p50 + 0.3 ms and table p99 <= floor p99 + 1.5 ms.
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import zmq

from drivers.shoe import SerialShoe, SimulatedShoe
from drivers.shoe.readings import CardRead
from studio.bus import KeyPair, ReplayTarget, Subscriber
from studio.bus.wire import WireEvent, event_frames, to_event

TABLE = """\
[table]
game = "caribbean-stud"
betting_seconds = 0.05
yellow_seconds = 0.01
decision_seconds = 0.05
round_gap_seconds = 0.02
[shoe]
pty = "{root}/shoe"
log = "{root}/logs/shoe.log"
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


def percentile(samples: list[float], q: float) -> float:
    """The `q` quantile (0.99 for p99) of `samples`, by numpy's linear interpolation."""
    return float(np.percentile(samples, q * 100))


def ms(seconds: float) -> float:
    """`seconds` in milliseconds, to the microsecond."""
    return round(seconds * 1000, 3)


def memory_dir() -> str | None:
    """Where the simulated shoes log each card's write time: a memory file system if any.

    The log is the bench's instrument, not the table's work: appended right after each card
    on the journal's file system, it was measured to lengthen the table's next fsync by about
    0.5 ms at p50 once the loop read the card without a hand-over (its commit then overlapping
    the log's append), the kind of write a table with a real shoe does not have.
    """
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def written_times(log: Path) -> list[float]:
    return [json.loads(line)["t"] for line in log.read_text().splitlines() if line.strip()]


@dataclass(frozen=True)
class TableRun:
    """What one `studio run` gave: each measured card's latency, its pace and what it sent."""

    latencies: list[float]
    pace: float
    """Median seconds between two of its cards written (what the paced commits follow)."""
    events: list[WireEvent]
    """The measured `card_dealt` events as the stream carried them (the bare path sends these)."""
    before_join: int
    """Cards written before the subscriber joined the stream (not measured)."""


def table_path(root: Path, cards: int, durable: bool) -> TableRun:
    """Run `studio run`; return the latency of the first `cards` cards written after the join.

    The table deals from its start, so the subscriber can only join while it deals: the join is
    the first message the stream itself delivers to it (the table's welcome heartbeat or an
    event), on the same clock as the shoe's log. Cards written before it are not measured (their
    events may come from the replay service, at its latency); one round more than `cards`
    needs is played for them; and any event fetched from replay after the join fails the run.
    """
    config = root / "table.toml"
    config.write_text(TABLE.format(root=root, durable="true" if durable else "false"))
    rounds = math.ceil(cards / CARDS_PER_ROUND) + 1
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
        arrivals: list[tuple[float, WireEvent]] = []
        joined: float | None = None
        replayed_at_join = 0
        with Subscriber(
            f"ipc://{root}/pub",
            {"T01": ReplayTarget(f"ipc://{root}/rep", server)},
            client_keys=KeyPair.load(root / "keys" / "observer.key_secret"),
        ) as sub:
            created = sub.last_heard
            results = 0
            while results < rounds:
                event = sub.receive(timeout=30)
                now = time.monotonic()
                if event is None:
                    raise SystemExit("the table stopped publishing")
                if joined is None and sub.last_heard > created:
                    # The stream delivered its first message (any replay it set off is done).
                    joined, replayed_at_join = sub.last_heard, sub.replayed
                if event.type == "card_dealt":
                    arrivals.append((now, event))
                results += event.type == "round_result"
            if joined is None:
                raise SystemExit("the stream never reached the subscriber: rerun")
            late = sub.replayed - replayed_at_join
            if late:
                raise SystemExit(f"{late} events came from replay after the join: rerun")
        if proc.wait(timeout=30) != 0:
            raise SystemExit("studio run failed")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    writes = written_times(root / "logs" / "shoe.log")
    if len(writes) != len(arrivals):
        raise SystemExit(f"{len(writes)} cards written but {len(arrivals)} card events received")
    # The n-th card written is the n-th `card_dealt` received (see the module docstring).
    measured = [(w, a) for w, a in zip(writes, arrivals, strict=True) if w > joined][:cards]
    if len(measured) < cards:
        raise SystemExit(f"only {len(measured)} cards written after the subscriber joined: rerun")
    return TableRun(
        latencies=[a - w for w, (a, _) in measured],
        pace=float(np.median(np.diff(writes))),
        events=[event for _, (_, event) in measured],
        before_join=sum(w <= joined for w in writes),
    )


def bare_serve(root: Path, cards: int, interval: float) -> None:
    """The bare path's far side: simulated shoe on a pty (a card every `interval` s), reader, XPUB.

    Sends, for the n-th card read, the frames of the table's n-th measured `card_dealt` (from
    `bare-events.jsonl`, made before the shoe starts), so the subscriber decodes the same bytes.
    The shoe starts once the subscriber's subscription has reached the socket.
    """
    events = [to_event(line) for line in (root / "bare-events.jsonl").read_text().splitlines()]
    frames = [event_frames(event, events[i - 1].seq if i else 0) for i, event in enumerate(events)]
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    pub = ctx.socket(zmq.XPUB)
    pub.bind(f"ipc://{root}/bare")
    with open(root / "logs" / "bare.log", "w") as log:
        shoe = SimulatedShoe(
            f"pty:{root}/bare-shoe", "framed", cards=cards, interval=interval, log_to=log
        )
        with shoe, SerialShoe(str(root / "bare-shoe"), "framed") as reader:
            print("ready", flush=True)
            if not pub.poll(30_000):
                raise SystemExit("no subscriber came")
            pub.recv()  # the subscription: from here on every card sent reaches it
            shoe.start()
            sent = 0
            while sent < cards:
                delivery = reader.read(timeout=5)
                if delivery is None:
                    raise SystemExit("the bare shoe stopped")
                if isinstance(delivery.item, CardRead):
                    pub.send_multipart(frames[sent])
                    sent += 1
            shoe.wait()
    pub.close(linger=1000)
    ctx.term()


def bare_path(root: Path, events: list[WireEvent], pace: float) -> list[float]:
    """Run the bare path for `len(events)` cards, one every `pace` s; return their latencies (s).

    A card arrives when a `Subscriber` (as on the table's path) returns its event.
    """
    cards = len(events)
    (root / "bare-events.jsonl").write_bytes(b"\n".join(event.payload for event in events))
    proc = subprocess.Popen(
        [
            sys.executable,
            __file__,
            "--bare-serve",
            str(root),
            "--cards",
            str(cards),
            "--bare-interval",
            str(pace),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        proc.stdout.readline()
        table = events[0].table
        arrivals: list[float] = []
        # No replay service: a card lost on the way fails the run (BusError) instead of waiting.
        with Subscriber(
            f"ipc://{root}/bare",
            {table: ReplayTarget(f"ipc://{root}/bare-replay")},
            catch_up_on_start=False,
            replay_timeout=1.0,
        ) as sub:
            while len(arrivals) < cards:
                if sub.receive(timeout=10) is None:
                    raise SystemExit("the bare path stopped")
                arrivals.append(time.monotonic())
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    writes = written_times(root / "logs" / "bare.log")
    return [a - w for w, a in zip(writes, arrivals, strict=True)]


Row = tuple[Any, ...]
"""One `records` row of the journal, in its column order."""


def card_transactions(journal: Path) -> list[list[Row]]:
    """Each card's transaction in the table's journal: its input's row and its events' rows.

    A card's input and the events it caused are written in one transaction, as consecutive ids
    (the input, then its events, which name it as their `cause`).
    """
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        causes = db.execute(
            "SELECT DISTINCT cause FROM records WHERE kind = 'event' AND body LIKE ?",
            ('%"type":"card_dealt"%',),
        ).fetchall()
        found = []
        for (cause,) in causes:
            events = db.execute(
                "SELECT * FROM records WHERE kind = 'event' AND cause = ? ORDER BY id", (cause,)
            ).fetchall()
            inputs = db.execute(
                "SELECT * FROM records WHERE id = ? AND kind = 'input'", (events[0][0] - 1,)
            ).fetchall()
            found.append(inputs + events)
    finally:
        db.close()
    if not found:
        raise SystemExit(f"{journal}: no card_dealt found: is the journal's schema the same?")
    return found


def paced_commits(root: Path, journal: Path, pace: float, count: int, name: str) -> list[float]:
    """What the table's card transaction alone costs on this disk, one every `pace` seconds.

    A copy of the table's journal (same file system, schema, indices and size) in WAL with
    `synchronous=FULL`, as the journal, its WAL grown first as the table's is (see below); each
    commit moves the head in `meta` and writes again the rows of one of the table's card
    transactions (its input and its events, same bodies and hashes, new ids and sequence
    numbers), one fsynced transaction. `name` names the file.
    """
    copy = root / f"floor-{name}.db"
    src = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    db = sqlite3.connect(copy, isolation_level=None)
    src.backup(db)
    src.close()
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    transactions = card_transactions(journal)
    (next_id,) = db.execute("SELECT max(id) + 1 FROM records").fetchone()
    (next_seq,) = db.execute("SELECT max(seq) + 1 FROM records").fetchone()
    times = []
    # The copy's WAL starts empty, where the table's had long reached its size and is written
    # over in place: a commit that grows the file also fsyncs its size (on a busy disk a
    # growing WAL's paced commit took 4.2 ms at p50 against 2.8 ms for one at its size). So
    # `count` untimed commits first grow it as far as the timed ones reach, and a RESTART
    # checkpoint has the timed ones write it over from its start, as the table's commits do.
    for i in range(-count, count):
        rows = []
        for row in transactions[i % len(transactions)]:
            rows.append((next_id, row[1], next_seq, *row[3:]))
            next_id, next_seq = next_id + 1, next_seq + 1
        if i == 0:
            db.execute("PRAGMA wal_checkpoint(RESTART)")
            due = time.monotonic() + pace
        if i >= 0:
            # Pacing, not synchronisation: an idle disk and CPU answer slower than a busy one.
            time.sleep(max(0.0, due - time.monotonic()))
            due += pace
        start = time.monotonic()
        db.execute("BEGIN IMMEDIATE")
        db.execute("UPDATE meta SET value = ? WHERE key = 'head'", (f"{next_id}:{i}",))
        db.executemany("INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        db.execute("COMMIT")
        if i >= 0:
            times.append(time.monotonic() - start)
    db.close()
    return times


def durable_commits(root: Path, count: int = 300) -> list[float]:
    """What one small fsynced SQLite commit costs on this disk back to back (for reference)."""
    db = sqlite3.connect(root / "commits-back-to-back.db", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE t (x TEXT)")
    times = []
    for _ in range(count):
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
    parser.add_argument("--bare-interval", type=float, default=0.02, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_serve is not None:
        bare_serve(args.bare_serve, args.cards, args.bare_interval)
        return
    load = [os.getloadavg()[0]]
    with (
        tempfile.TemporaryDirectory(prefix="card-latency-") as tmp,
        tempfile.TemporaryDirectory(prefix="card-latency-logs-", dir=memory_dir()) as logs,
    ):
        root = Path(tmp)
        (root / "logs").symlink_to(logs)
        run = table_path(root, args.cards, args.durable_events)
        table, recorded = run.latencies, root / "table.journal"
        paced = paced_commits(root, recorded, run.pace, 100, name="before-bare")
        bare = bare_path(root, run.events, run.pace)
        paced += paced_commits(root, recorded, run.pace, 100, name="after-bare")
        commits = durable_commits(root)
    load.append(os.getloadavg()[0])
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
        "pace_ms": ms(run.pace),
        "cards_before_join": run.before_join,
        "floor_p50_ms": ms(floor_p50),
        "floor_p99_ms": ms(floor_p99),
        "margin_p50_ms": margin_p50,
        "margin_p99_ms": margin_p99,
        "met": met,
        "load_1m": [round(x, 2) for x in load],
    }
    journal = "inputs and events fsynced" if args.durable_events else "inputs fsynced"
    print(
        f"card -> public subscriber over {len(table)} cards ({journal}; "
        f"{run.before_join} written before the subscriber joined, not measured):"
    )
    print(
        f"  table  p50 {result['p50_ms']} ms  p99 {result['p99_ms']} ms  max {result['max_ms']} ms"
    )
    print(
        f"  bare   p50 {result['bare_p50_ms']} ms  p99 {result['bare_p99_ms']} ms  "
        f"max {ms(max(bare))} ms  (pty -> pyserial -> XPUB -> Subscriber, {len(bare)} cards)"
    )
    print(
        f"  disk   one fsynced commit p50 {ms(percentile(commits, 0.5))} ms  "
        f"p99 {ms(percentile(commits, 0.99))} ms back to back; "
        f"p50 {ms(percentile(paced, 0.5))} ms  p99 {ms(percentile(paced, 0.99))} ms "
        f"{run.pace * 1000:.3g} ms apart (the table's card pace), the table's card transaction, "
        "before and after the bare path"
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
    print(f"  load   {load[0]:.2f} at the start, {load[1]:.2f} at the end (1 min average)")
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
