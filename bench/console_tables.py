"""One console following many tables through `studio proxy`: does every table stay current?

A child process runs N stand-in tables (each a real `EventPublisher` and CURVE `ReplayService`
serving a `TableView`, publishing an event every `1/rate` s) and a `StreamProxy` forwarding their
public streams; this process runs the console (`ConsoleServer`, following every table through the
proxy, views from each table's replay service) and a headless Chromium on its overview, sampled
twice a second: the age of the last event each table's row shows. With events every 0.5 s, a
table shown as current never reads above about 0.5 s plus the console's delay.

    nice python bench/console_tables.py [--tables 50] [--rate 2] [--seconds 15]

Target: every table's last event shown within 1 s (max age across all samples and tables).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import multiprocessing
import queue
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from aiohttp import web
from playwright.sync_api import sync_playwright

from studio.bus import EventPublisher, KeyPair, ReplayService, ReplayTarget
from studio.bus.keys import AllowList, create_key_files, register_key
from studio.bus.proxy import StreamProxy
from studio.bus.security import ServerSecurity
from studio.console.link import TableAddress
from studio.console.users import UserDirectory, add_user
from studio.console.web import ConsoleServer, ConsoleSettings
from studio.messages.view import TableView


class ViewSource:
    """A stand-in table's journal and view: every event kept, the view's seq and time updated."""

    def __init__(self, table: str) -> None:
        self._lock = threading.Lock()
        self._events: list[dict[str, Any]] = []
        self._view = TableView(
            table=table,
            game="caribbean-stud",
            variant="live",
            procedure=None,
            seq=0,
            now=None,
            phase="betting",
            game_number=None,
            light="green",
            cards=(),
            expecting=None,
            rescan_next=None,
            window=None,
            turning=(),
            paused=False,
            incidents=(),
            resume_blockers=(),
            timers=(),
            devices={"shoe": "ok"},
        )

    def append(self, event: dict[str, Any], now: datetime) -> None:
        with self._lock:
            self._events.append(event)
            self._view = self._view.model_copy(update={"seq": event["seq"], "now": now})

    def events_from(self, seq: int) -> Iterator[dict[str, Any]]:
        with self._lock:
            return iter(list(self._events[max(0, seq - 1) :]))

    def snapshot(self) -> Mapping[str, Any]:
        with self._lock:
            return self._view.model_dump(mode="json")

    def public_snapshot(self) -> Mapping[str, Any]:
        with self._lock:
            return self._view.public().model_dump(mode="json")


def tables_process(root: Path, tables: int, rate: float, ready: Any, stop: Any) -> None:
    """The child: stand-in tables and the proxy, publishing until `stop` is set."""
    server = KeyPair.load(root / "table.key_secret")
    security = ServerSecurity(server, AllowList(root / "allow_list.json"))
    sources, publishers, services = [], [], []
    try:
        for t in range(tables):
            table = f"T{t:02}"
            source = ViewSource(table)
            sources.append(source)
            services.append(ReplayService(f"ipc://{root}/rep-{table}", source, security=security))
            publishers.append(
                EventPublisher(
                    table,
                    public_endpoint=f"ipc://{root}/pub-{table}",
                    restricted_endpoint=f"ipc://{root}/res-{table}",
                    security=security,
                    heartbeat_interval=0.5,
                )
            )
        upstreams = [ReplayTarget(f"ipc://{root}/pub-T{t:02}") for t in range(tables)]
        with StreamProxy(f"ipc://{root}/proxy", upstreams):
            ready.set()
            seq = 0
            while not stop.is_set():
                tick = time.monotonic()
                seq += 1
                now = datetime.now(UTC)
                for t, (source, publisher) in enumerate(zip(sources, publishers, strict=True)):
                    event = {
                        "table": f"T{t:02}",
                        "seq": seq,
                        "game_number": None,
                        "ts": now.isoformat(),
                        "audience": "public",
                        "type": "betting_light_changed",
                        "body": {
                            "light": "green",
                            "closes_at": (now + timedelta(seconds=5)).isoformat(),
                        },
                    }
                    source.append(event, now)
                    publisher.publish(event)
                time.sleep(max(0.0, 1 / rate - (time.monotonic() - tick)))
    finally:
        for publisher in publishers:
            publisher.close()
        for service in services:
            service.close()


def serve_console(server: ConsoleServer, urls: queue.Queue[str], stop: threading.Event) -> None:
    async def run() -> None:
        runner = web.AppRunner(server.app(), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        urls.put(f"http://127.0.0.1:{runner.addresses[0][1]}")
        while not stop.is_set():
            await asyncio.sleep(0.1)
        await runner.cleanup()

    asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--rate", type=float, default=2.0, help="events per second per table")
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args()
    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("Debian's chromium is needed: apt-get install chromium")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        create_key_files(root, "table")
        create_key_files(root, "console")
        console_keys = KeyPair.load(root / "console.key_secret")
        register_key(root / "allow_list.json", "console", "console", console_keys.public)
        server_public = KeyPair.load(root / "table.key").public
        add_user(root / "users.json", "alice", "shift_manager", "alice-password")
        ctx = multiprocessing.get_context("spawn")
        ready, stop = ctx.Event(), ctx.Event()
        child = ctx.Process(target=tables_process, args=(root, args.tables, args.rate, ready, stop))
        child.start()
        ready.wait(60)
        addresses = [
            TableAddress(
                table=f"T{t:02}",
                stream=f"ipc://{root}/proxy",
                replay=f"ipc://{root}/rep-T{t:02}",
                commands=f"ipc://{root}/cmd-T{t:02}",
                server_key=server_public,
                public_stream=True,
            )
            for t in range(args.tables)
        ]
        console = ConsoleServer(
            addresses,
            console_keys,
            UserDirectory(root / "users.json"),
            b"k" * 32,
            ConsoleSettings(link_timeout=2.0),
        )
        urls: queue.Queue[str] = queue.Queue()
        halt = threading.Event()
        thread = threading.Thread(target=serve_console, args=(console, urls, halt))
        thread.start()
        ages: list[float] = []
        behind = 0
        samples = 0
        try:
            url = urls.get(timeout=30)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=chromium, args=["--no-sandbox"]
                )
                page = browser.new_page()
                page.goto(f"{url}/signin")
                page.fill("#name", "alice")
                page.fill("#password", "alice-password")
                page.click("#signin")
                page.wait_for_selector(f"#rows tr >> nth={args.tables - 1}")
                time.sleep(2)  # every link has caught up and is following live
                end = time.monotonic() + args.seconds
                while time.monotonic() < end:
                    cells = page.locator("#rows tr td:nth-child(7)").all_inner_texts()
                    shown = [float(c.split()[0]) if c != "-" else math.inf for c in cells]
                    samples += 1
                    behind += sum(1 for a in shown if a > 1.0)
                    ages.extend(shown)
                    time.sleep(0.5)
                browser.close()
        finally:
            halt.set()
            thread.join(30)
            stop.set()
            child.join(30)
    ordered = sorted(ages)
    p99 = ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]
    print(f"tables {args.tables}, {args.rate:g} events/s each, {samples} samples of the overview")
    print(
        f"last event age shown: p50 {ordered[len(ordered) // 2]:.1f} s, p99 {p99:.1f} s, "
        f"max {ordered[-1]:.1f} s (target: every table within 1 s)"
    )
    print(f"rows over 1 s: {behind} of {len(ordered)}")


if __name__ == "__main__":
    main()
