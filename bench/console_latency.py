"""Card-to-screen latency of the dealer display: from a card written into the shoe's line to its
appearance in the dealer page's DOM (a real headless Chromium), beside its arrival at a plain
subscriber of the public stream in the same run.

A table (`studio run`) reads a barcode shoe on a pty this script writes to; a console
(`studio console`) serves the dealer display; Debian's chromium (through Playwright) shows it, and
a MutationObserver in the page notes when each position's card appears. The script writes one
card whenever the table expects one, and notes the write and the subscriber's arrival on the
wall clock (`time.time()`), which the page's `performance.timeOrigin + performance.now()` shares.

    python bench/console_latency.py [--cards N] [--json]

Then it writes a card the shoe cannot read and notes when the full-screen STOP appears on the
dealer display and when the alarm appears on a shift manager's overview (a second page).

Targets: the browser adds at most 20 ms at p50 (DOM p50 minus subscriber p50); the fault reaches
both screens within one second.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

# The rig's configuration is test support, not part of the product: it lives in tests/.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from rig_support import RigConfig

from drivers.shoe.barcode import BarcodeCodec
from drivers.shoe.deck import BarcodeTable
from drivers.shoe.sim_line import PtyLine
from studio.bus import KeyPair, ReplayTarget, Subscriber
from studio.bus.commands import CommandClient
from studio.bus.replay import ReplayClient
from studio.cards import DECK, Card
from studio.console.users import add_user

OBSERVER = """() => {
  window.__seen = {};
  const note = () => {
    const game = document.getElementById("dealer").dataset.game;
    for (const card of document.querySelectorAll("#cards .card")) {
      const key = `${game}/${card.dataset.position}`;
      if (!(key in window.__seen)) window.__seen[key] = performance.timeOrigin + performance.now();
    }
    if (!document.getElementById("stop").hidden && window.__stopped === undefined) {
      window.__stopped = performance.timeOrigin + performance.now();
    }
  };
  new MutationObserver(note).observe(document.getElementById("dealer"),
    {subtree: true, childList: true, attributes: true});
}"""


ALARM = """() => {
  const alarm = document.getElementById("alarm");
  new MutationObserver(() => {
    if (!alarm.hidden && window.__alarmed === undefined) {
      window.__alarmed = performance.timeOrigin + performance.now();
    }
  }).observe(alarm, {attributes: true});
}"""


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


def _start(args: list[str], env: dict[str, str], ready: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "studio.cli", *args], env=env, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    while line := proc.stdout.readline():
        if re.search(ready, line):
            return proc, line
    raise SystemExit(f"studio {args[0]} did not start")


def measure(root: Path, cards: int) -> tuple[list[float], list[float], float, float]:
    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("Debian's chromium is needed: apt-get install chromium")
    # The quickest pace the table takes: the bench measures cards, not the waits between them.
    rig = RigConfig(
        root=root,
        betting_seconds=0.1,
        yellow_seconds=0.05,
        decision_seconds=0.1,
        round_gap_seconds=0.1,
    )
    config = rig.write()
    env = {
        **os.environ,
        "XDG_DATA_HOME": str(root / "data"),
        "STUDIO_KEYS_DIR": str(root / "keys"),
    }
    users = root / "users.json"
    add_user(users, "bob", "dealer", "bob-password")
    add_user(users, "alice", "shift_manager", "alice-password")
    line = PtyLine(rig.shoe_line)
    codec = BarcodeCodec(BarcodeTable.card_codes())
    procs: list[subprocess.Popen[str]] = []
    to_dom: list[float] = []
    to_sub: list[float] = []
    try:
        table, _ = _start(["run", "--config", str(config)], env, r"^ready")
        procs.append(table)
        console, banner = _start(["console", "--port", "0", "--users", str(users)], env, "open")
        procs.append(console)
        url = re.findall(r"http://\S+", banner)[0]
        server = KeyPair.load(root / "keys" / "table.key").public
        observer = KeyPair.load(root / "keys" / "observer.key_secret")
        manager = KeyPair.load(root / "keys" / "shift-manager.key_secret")
        with (
            sync_playwright() as playwright,
            Subscriber(
                f"ipc://{root}/pub",
                {"T01": ReplayTarget(f"ipc://{root}/rep", server)},
                client_keys=observer,
            ) as sub,
            ReplayClient(f"ipc://{root}/rep", client_keys=observer, server_key=server) as replay,
        ):
            browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            page = browser.new_context(bypass_csp=True).new_page()
            page.goto(f"{url}/signin")
            page.fill("#name", "bob")
            page.fill("#password", "bob-password")
            page.click("#signin")
            page.wait_for_selector("#dealer")
            page.evaluate(OBSERVER)
            overview = browser.new_context(bypass_csp=True).new_page()
            overview.goto(f"{url}/signin")
            overview.fill("#name", "alice")
            overview.fill("#password", "alice-password")
            overview.click("#signin")
            overview.wait_for_selector("#rows tr[data-table='T01']")
            overview.evaluate(ALARM)
            with CommandClient(f"ipc://{root}/cmd", manager, server) as client:
                client.send("start_round")
            rng = random.Random(1)
            deck: list[Card] = []
            game = ""
            while len(to_dom) < cards:
                view = replay.view(audience="public")
                if view.expecting is None or view.paused:
                    time.sleep(0.002)
                    continue
                if view.game_number != game:
                    game, deck = view.game_number or "", list(DECK)
                    rng.shuffle(deck)
                position = view.expecting
                card = deck.pop()
                written = time.time()
                line.write(codec.encode(card))
                arrived = None
                while arrived is None:
                    event = sub.receive(timeout=5)
                    if event is None:
                        raise SystemExit("the card never reached the subscriber")
                    body = json.loads(event.payload)["body"]
                    if event.type == "card_dealt" and body["position"] == position:
                        arrived = time.time()
                key = f"{game}/{position}"
                deadline = time.monotonic() + 5
                seen = None
                while seen is None and time.monotonic() < deadline:
                    seen = page.evaluate(f"() => window.__seen[{json.dumps(key)}] ?? null")
                    if seen is None:
                        time.sleep(0.002)
                if seen is None:
                    raise SystemExit(f"{key} never appeared on the dealer display")
                to_sub.append((arrived - written) * 1000)
                to_dom.append(seen - written * 1000)
            # Then a fault: a card the shoe cannot read, until the STOP screen shows.
            while (view := replay.view(audience="public")).expecting is None:
                time.sleep(0.002)
            written = time.time()
            line.write(b"NOREAD\r\n")
            page.locator("#stop").wait_for(state="visible", timeout=10000)
            stop_ms = page.evaluate("() => window.__stopped") - written * 1000
            overview.locator("#alarm").wait_for(state="visible", timeout=10000)
            alarm_ms = overview.evaluate("() => window.__alarmed") - written * 1000
            browser.close()
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=20)
        line.close()
    return to_dom, to_sub, stop_ms, alarm_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=100)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        dom, sub, stop, alarm = measure(Path(tmp), args.cards)
    figures = {
        "cards": len(dom),
        "dom_p50_ms": round(percentile(dom, 0.5), 2),
        "dom_p99_ms": round(percentile(dom, 0.99), 2),
        "subscriber_p50_ms": round(percentile(sub, 0.5), 2),
        "subscriber_p99_ms": round(percentile(sub, 0.99), 2),
        "fault_to_stop_screen_ms": round(stop, 2),
        "fault_to_manager_alarm_ms": round(alarm, 2),
    }
    added = figures["dom_p50_ms"] - figures["subscriber_p50_ms"]
    print(f"cards                {figures['cards']}")
    sub_p50, sub_p99 = figures["subscriber_p50_ms"], figures["subscriber_p99_ms"]
    print(f"shoe -> subscriber   p50 {sub_p50} ms, p99 {sub_p99} ms")
    print(f"shoe -> dealer DOM   p50 {figures['dom_p50_ms']} ms, p99 {figures['dom_p99_ms']} ms")
    print(f"browser adds         {added:.2f} ms at p50 (target: at most 20 ms)")
    stop_ms = figures["fault_to_stop_screen_ms"]
    print(f"fault -> STOP screen {stop_ms} ms (one unreadable card; target: within 1 s)")
    alarm_ms = figures["fault_to_manager_alarm_ms"]
    print(f"fault -> manager's alarm {alarm_ms} ms (the overview; target: within 1 s)")
    if args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
