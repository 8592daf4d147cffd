"""Events per second through one table: the runtime's own path (journal with an fsync per input,
controller, both streams) fed as fast as it takes inputs, and a restricted `Subscriber` in another
process receiving every event.

The table is a `TableRuntime` with its simulated dealer off; `studio.simulation`'s dealer,
on a simulated clock that never sleeps, feeds it whole Caribbean Stud rounds through
`TableRuntime.submit` (the same call the shoe, the clock and the command channel use). So the
figure is the table's capacity, not a dealer's pace. The subscriber (its own process, CURVE,
lossless) counts events from its first to its last.

    python bench/table_events.py [--rounds N] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from studio.bus import KeyPair, ReplayTarget, Subscriber
from studio.config import load_config
from studio.runtime import TableRuntime
from studio.simulation import SimulatedClock, SimulatedTable
from studio.simulation.table import card_faces

TABLE = """\
[table]
game = "caribbean-stud"
[shoe]
pty = "{root}/shoe"
[journal]
path = "{root}/table.journal"
[bus]
public = "ipc://{root}/pub"
restricted = "ipc://{root}/res"
replay = "ipc://{root}/rep"
commands = "ipc://{root}/cmd"
keys_dir = "{root}/keys"
[dealer]
enabled = false
# The card path alone, as measured before the defaults got the synthetic camera.
[camera]
backend = "none"
[metrics]
port = 0
"""


def subscribe(root: Path, rounds: int) -> None:
    """The subscriber process: count every restricted event until `rounds` results."""
    server = KeyPair.load(root / "keys" / "table.key").public
    with Subscriber(
        f"ipc://{root}/res",
        {"T01": ReplayTarget(f"ipc://{root}/rep", server)},
        audience="restricted",
        client_keys=KeyPair.load(root / "keys" / "shift-manager.key_secret"),
        stream_server_key=server,
        rcvhwm=100_000,
    ) as sub:
        time.sleep(0.5)  # let the subscription reach the publisher
        print("ready", flush=True)
        count, results, first = 0, 0, 0.0
        while results < rounds:
            event = sub.receive(timeout=30)
            if event is None:
                raise SystemExit("the table stopped publishing")
            count += 1
            if count == 1:
                first = time.monotonic()
            results += event.type == "round_result"
        elapsed = time.monotonic() - first
        print(json.dumps({"events": count, "seconds": elapsed, "replayed": sub.replayed}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--subscribe", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.subscribe is not None:
        subscribe(args.subscribe, args.rounds)
        return
    with tempfile.TemporaryDirectory(prefix="table-events-") as tmp:
        root = Path(tmp)
        (root / "t.toml").write_text(TABLE.format(root=root))
        os.environ["XDG_DATA_HOME"] = str(root / "data")
        config = load_config(root / "t.toml")
        measured: dict[str, Any] = {}

        async def drive(table: TableRuntime) -> None:
            child = subprocess.Popen(
                [sys.executable, __file__, "--subscribe", str(root), "--rounds", str(args.rounds)],
                stdout=subprocess.PIPE,
                text=True,
            )
            assert child.stdout is not None
            child.stdout.readline()
            sim = SimulatedTable(
                table,  # type: ignore[arg-type]  (it has the `submit` the simulation calls)
                table.view,
                clock=SimulatedClock(datetime.now(UTC)),
                seed=1,
                camera=False,
                faces=card_faces(config.table.rules().deals),
            )
            start = time.monotonic()
            # In the loop's own thread, as every input of a running table is; it blocks the loop,
            # which is the point: nothing else competes with the inputs being measured.
            summary = sim.run(args.rounds)
            measured["seconds"] = time.monotonic() - start
            measured["events"] = summary.events
            out, _ = child.communicate(timeout=60)
            measured["subscriber"] = json.loads(out.strip().splitlines()[-1])

        asyncio.run(TableRuntime(config, announce=False).run(drive))
    sub = measured["subscriber"]
    result = {
        "rounds": args.rounds,
        "events": measured["events"],
        "events_per_s": round(measured["events"] / measured["seconds"]),
        "rounds_per_s": round(args.rounds / measured["seconds"], 1),
        "subscriber_events_per_s": round(sub["events"] / sub["seconds"]),
        "subscriber_replayed": sub["replayed"],
    }
    print(
        f"one table, {args.rounds} Caribbean Stud rounds: {result['events_per_s']} events/s "
        f"({result['rounds_per_s']} rounds/s) journalled, applied and published; a restricted "
        f"subscriber in another process received {result['subscriber_events_per_s']} events/s "
        f"({sub['replayed']} of {sub['events']} from replay)"
    )
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
