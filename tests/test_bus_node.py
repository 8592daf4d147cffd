"""A Node.js consumer (npm `zeromq`) built from the docs and the JSON Schema sees what Python does.

The stream is a real table's: `studio.simulation`'s dealer, camera and shift manager play rounds
of each game through the real controller behind the real journal (faults injected, so pauses,
discards, resumes and voids happen too), and every event goes out through the real
`EventPublisher`, journal first, as the runtime does; the replay service reads that journal.
The Node consumer joins after some rounds (so it must catch up from replay), validates every
message it gets against the schema `studio schema` writes, and must deliver exactly the public
events, in order, that a Python `Subscriber` on the same stream delivers and the journal holds.

Skipped when `node` is missing or its packages are not installed (`npm ci --prefix tests/node`).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from test_bus_support import (  # noqa: F401  (fixtures are used by name)
    Keys,
    keys_fixture,
    no_leaks,
)

from studio.bus import EventPublisher, ReplayService, ReplayTarget, Subscriber
from studio.controller import TableController
from studio.journal import Journal, RecordedTable
from studio.journal.recorder import StoredEvent, bind_settings
from studio.messages import Command, Input, TableSettings
from studio.runtime.source import JournalSource
from studio.simulation import FaultRates, ManagerPolicy, SimulatedClock, SimulatedTable
from studio.simulation.table import card_faces

NODE_DIR = Path(__file__).resolve().parent / "node"
TABLE = "T1"
# High enough that pauses, discards, resumes and voids all happen within two dozen rounds.
FAULTS = FaultRates(duplicate=0.04, unreadable=0.04, out_of_turn=0.1, mismatch=0.04, device=0.02)
ROUNDS = 6
"""Rounds per phase; four phases: before and after the Node consumer joins, each resume/void."""


class PublishedTable(RecordedTable):
    """The runtime's order for every input: apply it, journal it with its events in one
    transaction (`RecordedTable.step`, as `studio run` and `studio simulate` write), publish
    them."""

    def __init__(
        self, journal: Journal, controller: TableController, publisher: EventPublisher
    ) -> None:
        super().__init__(journal, controller)
        self.view = controller.view
        self.publisher = publisher
        self.last_public = 0

    def step(self, inp: Input) -> list[StoredEvent]:
        events = super().step(inp)
        for stored in events:
            self.publisher.publish(stored.envelope)
            if stored.envelope.audience == "public":
                self.last_public = stored.envelope.seq
        return events


def _play(table: PublishedTable, settings: TableSettings, clock: SimulatedClock) -> None:
    """Play `ROUNDS` rounds with a manager who resumes, then `ROUNDS` with one who voids."""
    policies: tuple[ManagerPolicy, ...] = ("resume", "void")
    for manager in policies:
        sim = SimulatedTable(
            table,
            table.view,
            clock=clock,
            seed=f"{manager}:{table.journal.input_count}",
            faults=FAULTS,
            manager=manager,
            camera=settings.camera,
            faces=card_faces(settings.rules().deals),
        )
        sim.run(ROUNDS)
    # Between rounds the dealer loads a new deck: a public event the simulation never causes.
    now = clock.advance(1.0)
    table.step(Command(ts=now, actor="dealer-1", role="dealer", command="new_deck"))


@pytest.mark.parametrize("game", ["caribbean-stud", "ultimate-holdem"])
def test_a_node_consumer_validates_a_real_table_stream_and_sees_the_python_sequence(
    keys: Keys, tmp_path: Path, game: str
) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    if not (NODE_DIR / "node_modules" / "zeromq").is_dir():
        pytest.skip("npm packages missing: npm ci --prefix tests/node")
    schema = tmp_path / "schema.json"
    subprocess.run([sys.executable, "-m", "studio.cli", "schema", "--out", str(schema)], check=True)
    # Hold'em with the simulated camera: its confirmations and mismatches are on the stream too.
    settings = TableSettings(table=TABLE, game=game, camera=game == "ultimate-holdem")
    path = tmp_path / "table.journal"
    observer = keys.clients["observer"]
    assert observer.secret is not None
    clock = SimulatedClock(datetime(2026, 11, 29, 12, 0, tzinfo=UTC))
    with Journal(path) as journal:
        controller = TableController(bind_settings(journal, settings))
        with (
            ReplayService(
                "tcp://127.0.0.1:0",
                open_source=lambda: JournalSource(path, dict),
                security=keys.security,
            ) as replay,
            EventPublisher(
                TABLE,
                public_endpoint="tcp://127.0.0.1:0",
                restricted_endpoint="tcp://127.0.0.1:0",
                security=keys.security,
                heartbeat_interval=0.2,
            ) as publisher,
            Subscriber(
                publisher.endpoints["public"],
                {TABLE: ReplayTarget(replay.endpoint, keys.server.public)},
                client_keys=observer,
            ) as python_sub,
        ):
            table = PublishedTable(journal, controller, publisher)
            _play(table, settings, clock)  # Before the Node consumer exists: it must catch up.
            consumer = subprocess.Popen(
                [
                    node,
                    str(NODE_DIR / "consumer.mjs"),
                    publisher.endpoints["public"],
                    replay.endpoint,
                    keys.server.public.decode(),
                    observer.public.decode(),
                    observer.secret.decode(),
                    str(schema),
                    TABLE,
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            try:
                assert consumer.stdout is not None
                assert consumer.stdout.readline().strip() == "ready", consumer.stderr
                _play(table, settings, clock)  # Live, as fast as the table takes inputs.
                out, err = consumer.communicate(f"{table.last_public}\n", timeout=30)
            finally:
                if consumer.poll() is None:
                    consumer.kill()
                    consumer.communicate()
            python_seen = _drain(python_sub, table.last_public)
        stored = [
            (r.data()["seq"], r.data()["type"])
            for r in journal.events_from(1)
            if r.data()["audience"] == "public"
        ]
    assert consumer.returncode == 0, err
    result = json.loads(out.strip().splitlines()[-1])
    assert [tuple(pair) for pair in result["delivered"]] == python_seen == stored
    assert result["validated"] >= len(stored)
    assert result["heartbeats"] > 0
    types = {t for _, t in stored}
    # The stream was varied enough to test the body schemas, not only card_dealt.
    assert {"round_paused", "round_resumed", "round_voided", "card_discarded"} <= types
    assert {"card_dealt", "card_revealed", "round_result", "deck_changed"} <= types


def _drain(sub: Subscriber, until: int) -> list[tuple[int, str]]:
    """Every event `sub` delivers up to seq `until`, as (seq, type); stops if none for 10 s."""
    seen: list[tuple[int, str]] = []
    while not seen or seen[-1][0] < until:
        event = sub.receive(10.0)
        if event is None:
            break
        seen.append((event.seq, event.type))
    return seen
