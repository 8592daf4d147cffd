"""The shift manager's console in a real headless Chromium, against a table fed by a real pty.

A fault injected into the shoe's line (a card it could not read) pauses the table: the overview
raises its alarm with the table at the top, the webhook (a real local HTTP server) gets the
incident once, a dealer's session can neither see a void button nor void by a forged request
(the table refuses it), and a shift manager reads the incident in words, voids with a reason, and
the table goes on with its next round. The table journals the manager as `alice via console`,
for the void and for the acknowledgement of the alarm (a table command like any other).
A second table (T01, simulated) runs beside it on the same machine: the console, started with no
`--table`, shows both, the paused one (T02) above the running one.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import closing, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from console_support import browser, console_for, sign_in
from rig_support import RigConfig
from test_e2e_support import TableRig, table_rig

from drivers.shoe.sim_line import PtyLine
from studio.bus.commands import CommandClient
from studio.bus.replay import ReplayClient
from studio.config import DealerConfig, ShoeConfig


@contextmanager
def webhook_server() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A real HTTP server on loopback that keeps every JSON body POSTed to it."""
    received: list[dict[str, Any]] = []

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers["Content-Length"])
            received.append(json.loads(self.rfile.read(length)))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook", received
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def _beside(other: TableRig, rig: TableRig) -> None:
    """Make `other` a second table on `rig`'s machine: the same data and key directories."""
    RigConfig(
        root=other.root,
        camera_confirm_seconds=5.0,
        auto_start=False,
        # A simulated barcode shoe: no heartbeat, so no silence fault. A CI run once saw T01,
        # only scenery here, paused by a fault of its framed shoe, keeping the alarm up after
        # T02's void (the alarm's text was cut short; most likely the heartbeats, every 0.2 s
        # in the table's own process, starved past the 0.6 s silence limit on a loaded machine).
        shoe=ShoeConfig(protocol="barcode"),
        dealer=DealerConfig(draw_seconds=0.05),
        keys_dir=rig.keys_dir,
    ).write(other.config)
    other.env = rig.env


def test_a_shoe_fault_alarms_the_console_and_a_manager_voids_it(tmp_path: Path) -> None:
    (tmp_path / "other").mkdir()
    with (
        closing(PtyLine(tmp_path / "shoe")) as line,
        table_rig(tmp_path, table_id="T02") as rig,
        table_rig(tmp_path / "other") as other,
        webhook_server() as (hook, received),
        browser() as chromium,
    ):
        RigConfig(root=tmp_path, table="T02").write(rig.config)
        rig.start()
        _beside(other, rig)
        other.start()
        manager_key = rig.key("shift-manager")
        with CommandClient(rig.endpoint("cmd"), manager_key, rig.server_key()) as client:
            assert client.send("start_round").status == "accepted"
        with console_for(rig, "--webhook", hook, "--escalate-seconds", "600") as console:
            overview = chromium.new_page()
            sign_in(overview, console.url, "alice")
            overview.wait_for_selector("tr[data-table='T01'] >> text=running")
            overview.wait_for_selector("tr[data-table='T02'] >> text=dealing", timeout=5000)
            assert overview.locator("#rows tr").first.get_attribute("data-table") == "T01"

            with ReplayClient(
                rig.endpoint("rep"), client_keys=manager_key, server_key=rig.server_key()
            ) as replay:
                for _ in range(1000):  # until the table expects the round's first card
                    if replay.view().expecting == "player-1":
                        break
                    overview.wait_for_timeout(20)
            line.write(b"NOREAD\r\n")  # the shoe saw a card and could not read it
            alarm = overview.locator("#alarm")
            # Within one second on an idle machine (bench/console_latency.py measures the fault's
            # way to the screen); the wait is longer so a loaded machine does not fail the test.
            alarm.wait_for(state="visible", timeout=10000)
            assert "TABLE T02 PAUSED" in alarm.inner_text()
            assert alarm.get_attribute("data-audible") == "true"
            first_row = overview.locator("#rows tr").first
            assert first_row.get_attribute("data-table") == "T02"
            assert "paused" in first_row.inner_text()

            # A dealer's session: no void button, and a forged void is refused by the table.
            dealer = chromium.new_page()
            sign_in(dealer, console.url, "bob")
            dealer.wait_for_url(re.compile(r".*/dealer/T0[12]$"))
            dealer.goto(f"{console.url}/dealer/T02")
            dealer.locator("#stop").wait_for(state="visible")
            assert "STOP: shift manager called" in dealer.locator("#stop").inner_text()
            assert "could not read a card" in dealer.locator("#stop-reason").inner_text()
            dealer.goto(f"{console.url}/table/T02")
            dealer.wait_for_selector("#incidents .incident")
            assert dealer.locator("#action-void").count() == 0
            forged = dealer.evaluate(
                """async () => {
                    const csrf = document.getElementById("table").dataset.csrf;
                    const { nonce } = await (await fetch("/api/nonce")).json();
                    const reply = await fetch("/table/T02/command", {
                        method: "POST", headers: {"Content-Type": "application/json"},
                        body: JSON.stringify({action: "void", note: "forged", csrf, nonce})});
                    return await reply.json();
                }"""
            )
            assert forged == {"status": "refused", "reason": "role dealer may not void"}

            # The manager reads the incident and voids with a reason.
            page = chromium.new_page()
            sign_in(page, console.url, "alice")
            page.goto(f"{console.url}/table/T02")
            incident = page.locator("#incidents .incident")
            incident.wait_for()
            assert "The shoe could not read a card at player-1" in incident.inner_text()
            assert "NOREAD" in incident.inner_text()  # the raw frame
            page.click("#acknowledge")
            page.wait_for_selector("#answer >> text=acknowledge: accepted")
            page.click("#action-void")
            page.fill("#field-note", "unreadable card, dealer re-shuffles")
            page.click("#confirm-ok")
            page.wait_for_selector("#answer >> text=Void the round: accepted")
            # As long a wait as the alarm's showing: the void reaches the overview through the
            # table, the bus and the console, on a machine loaded by the suite's other workers,
            # three studio processes and Chromium. (The one CI failure here first blamed on a slow
            # hide was T01 pausing, mended in `_beside`.)
            alarm.wait_for(state="hidden", timeout=10000)
            # The table goes on: the next round opens by itself.
            overview.wait_for_selector("tr[data-table='T02'] >> text=running")
            dealer.goto(f"{console.url}/dealer/T02")
            dealer.wait_for_selector("#dealer[data-phase='dealing']", timeout=5000)
            assert dealer.locator("#stop").is_hidden()
            for p in (overview, dealer, page):
                p.close()
        with ReplayClient(
            rig.endpoint("rep"), client_keys=manager_key, server_key=rig.server_key()
        ) as replay:
            events = [json.loads(e.payload) for e in replay.fetch(1, audience="restricted")]
    commands = [e["body"] for e in events if e["type"] in ("command_accepted", "command_rejected")]
    assert {"command": "void", "actor": "bob via console", "role": "dealer"}.items() <= next(
        c for c in commands if c["command"] == "void"
    ).items()
    accepted = [c for c in commands if c["command"] == "void" and c.get("note")]
    assert accepted[-1]["actor"] == "alice via console"
    assert accepted[-1]["note"] == "unreadable card, dealer re-shuffles"
    assert [e["type"] for e in events].count("round_voided") == 1
    # The acknowledgement is the table's command too: the table journals who took the alarm.
    acknowledged = [c for c in commands if c["command"] == "acknowledge_alarm"]
    assert [(c["actor"], c["role"]) for c in acknowledged] == [
        ("alice via console", "shift_manager")
    ]
    # The webhook heard the incident once (no repeat while it stayed paused).
    assert [(r["table"], r["kind"], r["notice"]) for r in received] == [
        ("T02", "unreadable_card", "new")
    ]
    journal = (rig.root / "data" / "studio" / "console" / "journal.jsonl").read_text()
    lines = [json.loads(x) for x in journal.splitlines()]
    assert any(
        x["actor"] == "alice" and x["action"] == "acknowledge_alarm" and x["answer"] == "accepted"
        for x in lines
    )
