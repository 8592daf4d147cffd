"""The public stream never carries a face-down card's value before its reveal: 10,000 rounds.

What it scans: 10,000 rounds played by `studio.simulation` (the real controller, simulated dealer,
shoe, camera and shift manager, with faults injected so duplicates, unreadable cards, camera
mismatches, device faults, discards and voids all happen) on every game and Caribbean dealing
procedure. Every event the controller emits goes through the publisher's own serialisation
(`studio.bus.wire.to_event` and `event_frames`, what `EventPublisher.publish` runs in the caller's
thread) and the publisher's routing rule (only `audience == "public"` reaches the public
socket); each public frame's bytes are searched for the code of every face-down card of its
round that has not been revealed yet. Face-down values are learned from the restricted card
events, so the scan does not trust the code it checks. It runs in-process, without the journal's
fsyncs or sockets, to stay within seconds; the socket path itself is covered by the end-to-end
tests and the bus tests.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from studio.bus.wire import event_frames, to_event
from studio.controller import TableController
from studio.journal import RecordedTable
from studio.journal.recorder import StoredEvent, event_json
from studio.messages import Envelope, Input, TableSettings
from studio.simulation import FaultRates, SimulatedClock, SimulatedTable
from studio.simulation.table import card_faces

FAULTS = FaultRates(duplicate=0.01, unreadable=0.01, out_of_turn=0.005, mismatch=0.01, device=0.003)
TABLES = [
    ("caribbean-stud", "hidden", 4000),
    ("caribbean-stud", "late", 2000),
    ("ultimate-holdem", None, 4000),
]


class PublicScanner(RecordedTable):
    """A controller whose events are scanned on their way to the public socket (no journal)."""

    def __init__(self, controller: TableController) -> None:
        # Deliberately no journal: 10,000 rounds of fsyncs would take minutes, and what is
        # checked here is what reaches the public socket, not what is stored.
        self.controller = controller
        self.secrets: set[str] = set()
        self.game: str | None = None
        self.public_frames = 0
        self.hidden_cards = 0

    def step(self, inp: Input) -> list[StoredEvent]:
        # The simulated table writes through `step` (input and events in one transaction), so
        # that is where the events are caught on their way out.
        events = self.controller.handle(inp)
        for event in events:
            self._scan(event)
        return [StoredEvent(event, event_json(event)) for event in events]

    def _scan(self, event: Envelope) -> None:
        if event.game_number != self.game:
            self.game, self.secrets = event.game_number, set()
        body = event.body
        if event.audience == "restricted":
            face_down = body.get("face") == "down" and body.get("card")
            if event.type in ("card_dealt", "card_corrected") and face_down:
                self.secrets.add(body["card"])
                self.hidden_cards += 1
            return
        if event.type == "card_revealed":
            self.secrets.discard(body["card"])
        wire = to_event(event)
        frames = event_frames(wire, 0)
        self.public_frames += 1
        text = b"".join(frames).decode()
        for code in self.secrets:
            assert f'"{code}"' not in text, f"{code} leaked before its reveal: {text}"
        json.loads(frames[1])


@pytest.mark.parametrize(("game", "procedure", "rounds"), TABLES)
def test_no_public_frame_carries_a_secret_card(
    game: str, procedure: str | None, rounds: int
) -> None:
    settings = TableSettings(game=game, procedure=procedure, camera=True)
    controller = TableController(settings)
    scanner = PublicScanner(controller)
    sim = SimulatedTable(
        scanner,
        controller.view,
        clock=SimulatedClock(datetime(2026, 11, 29, 12, tzinfo=UTC)),
        seed=f"secrets-{game}-{procedure}",
        faults=FAULTS,
        manager="resume",
        camera=True,
        faces=card_faces(settings.rules().deals),
    )
    summary = sim.run(rounds)
    assert summary.rounds_completed + summary.rounds_voided == rounds
    assert sum(summary.incidents.values()) > 0
    if procedure != "late":
        assert scanner.hidden_cards >= 2 * rounds
    assert scanner.public_frames > 10 * rounds


def test_the_scan_catches_a_leak() -> None:
    settings = TableSettings(game="caribbean-stud", procedure="hidden")
    scanner = PublicScanner(TableController(settings))
    ts = datetime(2026, 11, 29, 12, tzinfo=UTC)
    hidden = {"position": "dealer-2", "face": "down", "number": 7, "card": "AS"}
    scanner._scan(
        Envelope(
            table="T01",
            seq=1,
            game_number="G",
            ts=ts,
            audience="restricted",
            type="card_dealt",
            body=hidden,
        )
    )
    leak = Envelope(
        table="T01",
        seq=2,
        game_number="G",
        ts=ts,
        audience="public",
        type="card_dealt",
        body=hidden,
    )
    with pytest.raises(AssertionError, match="AS leaked"):
        scanner._scan(leak)
