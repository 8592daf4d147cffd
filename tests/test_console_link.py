"""A table that goes away and comes back: the console's link says so, reconnects by itself and
continues from the last event it had (its recall has every round once, in order), and the
screens in a real headless Chromium say the table is not answering, then follow it again."""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path

from console_support import browser, console_for, sign_in
from test_e2e_support import table_rig

from studio.bus.commands import CommandClient, RelayedPerson
from studio.bus.replay import ReplayClient
from studio.console.link import TableAddress, TableLink, TableState

SIMULATED_CAMERA = '[camera]\nbackend = "simulated"\n'


def _wait(states: list[TableState], ready: threading.Event, check, timeout: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if states and check(states[-1]):
            return
        ready.wait(0.1)
        ready.clear()
    raise AssertionError(f"gave up waiting; last state: {states[-1] if states else None}")


def test_the_link_says_the_table_is_away_and_continues_without_a_gap(tmp_path: Path) -> None:
    with table_rig(tmp_path, extra=SIMULATED_CAMERA) as rig:
        first = rig.start()
        address = TableAddress(
            table="T01",
            stream=rig.endpoint("res"),
            replay=rig.endpoint("rep"),
            commands=rig.endpoint("cmd"),
            server_key=rig.server_key(),
        )
        states: list[TableState] = []
        changed = threading.Event()

        def update(state: TableState) -> None:
            states.append(state)
            changed.set()

        link = TableLink(address, rig.key("console"), update, timeout=0.3)
        try:
            _wait(states, changed, lambda s: s.reachable and len(link.book.rounds) >= 2)
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=10)
            _wait(states, changed, lambda s: not s.reachable)
            assert states[-1].public is not None  # the last view is kept, marked unreachable
            before = [r.game_number for r in link.book.rounds]
            rig.start()
            # Back, with the round the kill interrupted paused until a manager acts on it.
            _wait(
                states,
                changed,
                lambda s: (
                    s.reachable
                    and s.restricted is not None
                    and any(i.kind == "controller_restarted" for i in s.restricted.incidents)
                ),
            )
            alice = RelayedPerson(name="alice", role="shift_manager")
            with CommandClient(address.commands, rig.key("console"), address.server_key) as c:
                assert c.send("void", {"note": "table restarted"}, relay=alice).status == "accepted"
            _wait(
                states,
                changed,
                lambda s: s.reachable and len(link.book.rounds) >= len(before) + 2,
            )
        finally:
            link.close()
        with ReplayClient(
            rig.endpoint("rep"), client_keys=rig.key("console"), server_key=rig.server_key()
        ) as replay:
            opened = [
                json.loads(e.payload)["body"]["game_number"]
                for e in replay.fetch(1, audience="restricted")
                if e.type == "round_opened"
            ]
    recalled = [r.game_number for r in link.book.rounds]
    assert recalled == opened[-len(recalled) :] or recalled == opened[-len(recalled) - 1 : -1]
    assert len(set(recalled)) == len(recalled)


def test_the_screens_say_the_table_is_away_and_follow_it_again(tmp_path: Path) -> None:
    with table_rig(tmp_path, extra=SIMULATED_CAMERA) as rig, browser() as chromium:
        first = rig.start()
        with console_for(rig) as console:
            dealer = chromium.new_page()
            sign_in(dealer, console.url, "bob")
            dealer.wait_for_selector("#dealer[data-game^='T01-']", timeout=20000)
            overview = chromium.new_page()
            sign_in(overview, console.url, "alice")
            overview.wait_for_selector("tr[data-table='T01'] >> text=running", timeout=20000)
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=10)
            dealer.wait_for_selector("#link >> text=table not answering", timeout=20000)
            overview.wait_for_selector("tr[data-table='T01'] >> text=unreachable", timeout=20000)
            rig.start()
            # Back (a round the kill interrupted is paused until a manager acts on it).
            dealer.wait_for_function(
                "() => document.getElementById('link').textContent === ''"
                " && document.getElementById('dealer').dataset.game.startsWith('T01-')",
                timeout=30000,
            )
            overview.wait_for_function(
                "() => { const row = document.querySelector(\"tr[data-table='T01']\");"
                " return row && /running|paused/.test(row.textContent); }",
                timeout=30000,
            )
            dealer.close()
            overview.close()
