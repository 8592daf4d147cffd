"""Shoe-to-loop latency: from the simulator writing a card's bytes to the asyncio loop holding
its `CardRead`, for the two ways a table reads its shoe, taken in alternating blocks in one run.

- *thread*: a `SerialShoe` reads in its own thread and each delivery wakes the loop
  (`WakingQueue`, `call_soon_threadsafe`): the way a table read every line before, and still
  reads an `rfc2217://` one;
- *watched*: a `WatchedSerialShoe`, the loop watching the line's descriptor (a pty, or
  `socket://`): the way a table reads those now.

A card is in the loop's hand when the table's `wake()` would take it (`on_delivery`); as on a
table, the reader holds each card's acknowledgement until then (`hold_acks`). The
simulator runs as its own process (`studio shoe simulate`), as a real shoe does, and logs when
it wrote each card; both read CLOCK_MONOTONIC. Cards come one per `--interval-ms` (42 ms, a
table's card pace on the card-latency bench): after such an idle gap the reader's and the
loop's first steps run cold, as on a table. Blocks alternate (thread, watched, thread, ...) so
both meet the same minutes of a shared machine; the load average is printed beside them.

    python bench/shoe_to_loop.py [--cards N] [--blocks B] [--interval-ms MS] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from shoe_latency import start_simulator

from drivers.shoe.host import ProtocolOptions
from drivers.shoe.line_reader import ShoeLineReader
from drivers.shoe.readers import threaded, watched
from drivers.shoe.readings import CardRead

READERS: dict[str, Callable[..., ShoeLineReader]] = {"thread": threaded, "watched": watched}


async def in_hand(kind: str, url: str, cards: int) -> tuple[list[float], list[float]]:
    """When the loop held each of `cards` cards read from `url` by the `kind` reader, and how
    long after the reader had delivered it (the hand-over)."""
    loop = asyncio.get_running_loop()
    arrived: list[float] = []
    handed: list[float] = []
    done = asyncio.Event()
    reader: ShoeLineReader | None = None

    def wake() -> None:
        now = time.monotonic()
        assert reader is not None
        while not reader.deliveries.empty():
            delivery = reader.deliveries.get_nowait()
            if isinstance(delivery.item, CardRead):
                arrived.append(now)
                handed.append(now - delivery.at)
            reader.commit(delivery)
        if len(arrived) >= cards:
            done.set()

    # As a table reads: each card acknowledged once it is in hand (after its journal there).
    options = ProtocolOptions(hold_acks=True)
    reader = READERS[kind](url, "framed", loop, wake, options, 9600, None)
    try:
        await asyncio.wait_for(done.wait(), timeout=cards * 0.5 + 30)
    finally:
        await loop.run_in_executor(None, reader.close)
    return arrived, handed


def block(
    tmp: Path, kind: str, where: str, cards: int, interval_ms: float
) -> tuple[list[float], list[float]]:
    """One block of `cards` cards on a fresh simulator; their latencies and hand-overs (s)."""
    path = tmp / "shoe"
    args = ["--pty", str(path)] if where == "pty" else ["--listen", "127.0.0.1:0"]
    proc, log, address = start_simulator(tmp, "framed", args, cards, interval_ms)
    url = str(path) if where == "pty" else f"socket://{address}"
    try:
        arrived, handed = asyncio.run(in_hand(kind, url, cards))
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    written = [json.loads(line)["t"] for line in log.read_text().splitlines()]
    return [at - t for at, t in zip(arrived, written, strict=True)], handed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=200, help="cards per block")
    parser.add_argument("--blocks", type=int, default=2, help="blocks per reader and line")
    parser.add_argument("--interval-ms", type=float, default=42.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load = [os.getloadavg()[0]]
    samples: dict[str, list[float]] = {}
    handovers: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="shoe-to-loop-") as tmp:
        for where in ("pty", "socket"):
            for _ in range(args.blocks):
                for kind in READERS:
                    got, handed = block(Path(tmp), kind, where, args.cards, args.interval_ms)
                    samples.setdefault(f"{kind}, {where}", []).extend(got)
                    handovers.setdefault(f"{kind}, {where}", []).extend(handed)
    load.append(os.getloadavg()[0])
    result = {
        name: {
            "cards": len(values),
            "p50_ms": round(float(np.percentile(values, 50)) * 1000, 3),
            "p90_ms": round(float(np.percentile(values, 90)) * 1000, 3),
            "p99_ms": round(float(np.percentile(values, 99)) * 1000, 3),
            "handover_p50_ms": round(float(np.percentile(handovers[name], 50)) * 1000, 3),
        }
        for name, values in samples.items()
    }
    print(f"card written -> in the loop's hand, one card per {args.interval_ms:g} ms:")
    for name, row in result.items():
        print(
            f"  {name:16} {row['cards']:5d} cards  p50 {row['p50_ms']:.3f} ms  "
            f"p90 {row['p90_ms']:.3f} ms  p99 {row['p99_ms']:.3f} ms  "
            f"(delivered -> in hand p50 {row['handover_p50_ms']:.3f} ms)"
        )
    print(f"  load {load[0]:.2f} at the start, {load[1]:.2f} at the end (1 min average)")
    if args.json:
        print(json.dumps({"readers": result, "load_1m": [round(x, 2) for x in load]}))


if __name__ == "__main__":
    main()
