"""Events per second through the bus: one table, and 50 tables behind `StreamProxy`.

    python bench/bus.py [--events 20000] [--tables 50] [--per-table 1000] [--json]

Every figure is end to end and lossless: from the first `publish()` to the last event delivered
by a `Subscriber` running in its own process (as a consumer does), which fetches whatever the
stream dropped from the replay service (the count of replayed events is printed beside each
rate). Sockets are on loopback TCP; the restricted stream and the replay service use CURVE. The
events are realistic envelopes (~250 bytes of JSON).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from studio.bus import (
    AllowList,
    EventPublisher,
    KeyPair,
    ReplayService,
    ReplayTarget,
    ServerSecurity,
    StreamProxy,
    Subscriber,
)
from studio.bus.keys import register_key
from studio.messages import Envelope


class ListSource:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.events: list[Envelope] = []

    def append(self, event: Envelope) -> None:
        with self.lock:
            self.events.append(event)

    def events_from(self, seq: int) -> Iterator[Envelope]:
        with self.lock:
            return iter(self.events[max(0, seq - 1) :])

    def snapshot(self) -> Mapping[str, Any]:
        return {}


def make_events(table: str, count: int) -> list[Envelope]:
    events = []
    for seq in range(1, count + 1):
        restricted = seq % 4 == 0
        events.append(
            Envelope.model_validate(
                {
                    "table": table,
                    "seq": seq,
                    "game_number": f"{table}-{seq // 40:06d}",
                    "ts": "2026-01-01T12:00:00.123456Z",
                    "audience": "restricted" if restricted else "public",
                    "type": "card_dealt",
                    "body": {
                        "position": f"player_{seq % 7}",
                        "card": None if restricted else "AS",
                        "face_up": not restricted,
                        "index": seq % 5,
                    },
                }
            )
        )
    return events


def security(folder: Path) -> tuple[ServerSecurity, KeyPair, KeyPair]:
    server, client = KeyPair.generate(), KeyPair.generate()
    register_key(folder / "allow.json", "settler", "settlement", client.public)
    return ServerSecurity(server, AllowList(folder / "allow.json")), server, client


def consume(
    stream: str,
    targets: dict[str, ReplayTarget],
    audience: str,
    client: KeyPair,
    stream_key: bytes | None,
    expected: int,
    results: Any,
) -> None:
    """The consumer process: say when ready, then report the monotonic time of the last event."""
    with Subscriber(
        stream,
        targets,
        audience="restricted" if audience == "restricted" else "public",
        client_keys=client,
        stream_server_key=stream_key,
    ) as sub:
        results.put(("ready", 0.0, 0))
        got = 0
        while got < expected:
            if sub.receive(10.0) is None:
                results.put(("stalled", float(got), sub.replayed))
                return
            got += 1
        # CLOCK_MONOTONIC is system-wide on Linux, so the parent can subtract its own start.
        results.put(("done", time.monotonic(), sub.replayed))


def run_consumer(
    stream: str,
    targets: dict[str, ReplayTarget],
    audience: str,
    client: KeyPair,
    stream_key: bytes | None,
    expected: int,
    feed: Callable[[], None],
) -> dict[str, float]:
    """Start the consumer process, feed the publishers, and time the whole delivery."""
    ctx = multiprocessing.get_context("spawn")
    results: Any = ctx.Queue()
    proc = ctx.Process(
        target=consume, args=(stream, targets, audience, client, stream_key, expected, results)
    )
    proc.start()
    try:
        status, _, _ = results.get(timeout=60)
        if status != "ready":
            raise SystemExit(f"consumer failed to start: {status}")
        time.sleep(0.3)  # Let the subscription reach every publisher.
        start = time.monotonic()
        feed()
        publish_seconds = time.monotonic() - start
        status, end, replayed = results.get(timeout=120)
        if status != "done":
            raise SystemExit(f"consumer stalled after {int(end)} of {expected} events")
    finally:
        proc.join(timeout=10)
        if proc.is_alive():
            proc.kill()
    return {
        "events": expected,
        "seconds": end - start,
        "replayed": replayed,
        "publish_seconds": publish_seconds,
    }


def _emit(source: ListSource, pub: EventPublisher, event: Envelope) -> None:
    source.append(event)
    pub.publish(event)


def one_table(count: int, audience: str, folder: Path) -> dict[str, float]:
    sec, server, client = security(folder)
    source = ListSource()
    events = make_events("T1", count)
    restricted = audience == "restricted"
    expected = count if restricted else sum(1 for e in events if e.audience == "public")
    with ExitStack() as stack:
        pub = stack.enter_context(
            EventPublisher(
                "T1",
                public_endpoint="tcp://127.0.0.1:0",
                restricted_endpoint="tcp://127.0.0.1:0",
                security=sec,
            )
        )
        replay = stack.enter_context(ReplayService("tcp://127.0.0.1:0", source, security=sec))

        def feed() -> None:
            for event in events:
                _emit(source, pub, event)

        return run_consumer(
            pub.endpoints["restricted" if restricted else "public"],
            {"T1": ReplayTarget(replay.endpoint, server.public)},
            audience,
            client,
            server.public if restricted else None,
            expected,
            feed,
        )


def proxied(tables: int, per_table: int, folder: Path) -> dict[str, float]:
    sec, server, client = security(folder)
    names = [f"T{i:02d}" for i in range(tables)]
    sources = {n: ListSource() for n in names}
    events = {n: make_events(n, per_table) for n in names}
    expected = sum(1 for e in events[names[0]] if e.audience == "public") * tables
    with ExitStack() as stack:
        pubs, targets = {}, {}
        for n in names:
            pubs[n] = stack.enter_context(
                EventPublisher(n, public_endpoint="tcp://127.0.0.1:0", restricted_endpoint=None)
            )
            replay = stack.enter_context(
                ReplayService("tcp://127.0.0.1:0", sources[n], security=sec)
            )
            targets[n] = ReplayTarget(replay.endpoint, server.public)
        proxy = stack.enter_context(
            StreamProxy(
                "tcp://127.0.0.1:0", [ReplayTarget(p.endpoints["public"]) for p in pubs.values()]
            )
        )

        def feed() -> None:
            # Interleave the tables, as a studio's tables deal at the same time.
            for i in range(per_table):
                for n in names:
                    _emit(sources[n], pubs[n], events[n][i])

        return run_consumer(proxy.frontend, targets, "public", client, None, expected, feed)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--per-table", type=int, default=1_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "a").mkdir()
        (folder / "b").mkdir()
        (folder / "c").mkdir()
        results["one_table_public"] = one_table(args.events, "public", folder / "a")
        results["one_table_restricted_curve"] = one_table(args.events, "restricted", folder / "b")
        results[f"proxy_{args.tables}_tables_public"] = proxied(
            args.tables, args.per_table, folder / "c"
        )
    summary: dict[str, Any] = {}
    for name, r in results.items():
        rate = r["events"] / r["seconds"]
        summary[f"{name}_events_per_s"] = round(rate)
        summary[f"{name}_replayed"] = int(r["replayed"])
        published = r["events"] / r["publish_seconds"]
        summary[f"{name}_publish_calls_per_s"] = round(published)
        print(
            f"{name:32s} {int(r['events']):7d} events in {r['seconds']:.3f} s = {rate:10,.0f}/s"
            f"  (replayed {int(r['replayed'])}; publish() alone {published:,.0f}/s)"
        )
    if args.json:
        print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
